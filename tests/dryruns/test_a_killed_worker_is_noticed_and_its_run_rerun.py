"""SIGKILL the worker running a dry-run: the run is noticed lost, run again on another
worker and succeeds; nothing of the lost attempt is stored.

Two real Celery worker processes on a queue of their own; the heartbeat,
staleness and reaper intervals are shortened for the test (the defaults,
5 s / 20 s / 5 s, notice a lost worker within 25 s: test_defaults_...).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

from dashboard import conf
from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun, DryRunResultPage
from dashboard.dryruns.tasks import run_dry_run_task
from tests.support.fixtures import start_worker, stop_worker
from tests.support.synthetic import fleet

STALE = 2.0


def _worker(queue: str) -> subprocess.Popen:
    return start_worker(
        queue=queue,
        env={
            "SCHEDLAB_DRYRUN_HEARTBEAT_SECONDS": "0.3",
            "SCHEDLAB_DRYRUN_STALE_SECONDS": str(STALE),
            "SCHEDLAB_DRYRUN_REAP_SECONDS": "0.3",
        },
    )


def _wait(run: DryRun, until, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        run.refresh_from_db()
        if until(run):
            return time.monotonic() - started
        time.sleep(0.1)
    raise AssertionError(f"dry-run {run.pk} stayed {run.status} ({run.progress}%)")


def test_defaults_notice_a_lost_worker_within_30_seconds():
    assert conf.heartbeat_seconds() * 3 <= conf.stale_seconds()
    assert conf.stale_seconds() + conf.reap_seconds() <= 30
    assert conf.max_attempts() == 2


def test_a_sigkilled_worker_is_noticed_and_the_run_rerun_elsewhere(demo_cluster, transactional_db):
    queue = f"lost-worker-{os.getpid()}"
    run = DryRun.objects.create(
        cluster=demo_cluster, snapshot=codec.pack(fleet(60, pending=3000)), seed=1
    )
    first = _worker(queue)
    second = None
    try:
        run_dry_run_task.apply_async((run.pk,), queue=queue)
        # long enough (3,000 pods) to be caught running on a quiet machine too
        _wait(run, lambda r: r.status == "running", 60)
        assert run.attempts == 1
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        killed_at = time.monotonic()
        assert not DryRunResultPage.objects.filter(dry_run=run).exists()
        second = _worker(queue)
        _wait(run, lambda r: r.attempts == 2, 60)
        noticed = time.monotonic() - killed_at
        assert noticed < 30, noticed
        _wait(run, lambda r: r.finished_at is not None, 180)
        assert run.status == "succeeded", run.error
        assert run.error == "" and run.result_count == 3000
        assert DryRunResultPage.objects.filter(dry_run=run).count() >= 1
        print(f"lost worker noticed and the run restarted {noticed:.1f} s after SIGKILL")
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                stop_worker(proc)


def test_a_run_lost_on_its_last_attempt_is_failed(
    demo_cluster, db, settings, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    from dashboard.dryruns.services.runner import reap_stale_runs

    settings.SCHEDLAB_DRYRUN_STALE_SECONDS = 20
    old = timezone.now() - timedelta(seconds=21)
    once = DryRun.objects.create(
        cluster=demo_cluster, snapshot=b"", status="running", heartbeat_at=old, attempts=1
    )
    twice = DryRun.objects.create(
        cluster=demo_cluster, snapshot=b"", status="running", heartbeat_at=old, attempts=2
    )
    requeued: list[int] = []
    with django_capture_on_commit_callbacks(execute=True):
        assert reap_stale_runs(requeue=requeued.append) == 2
    once.refresh_from_db()
    twice.refresh_from_db()
    assert once.status == "queued" and "running it again" in once.error
    assert requeued == [once.pk]
    assert twice.status == "failed" and "last of 2 attempts" in twice.error
