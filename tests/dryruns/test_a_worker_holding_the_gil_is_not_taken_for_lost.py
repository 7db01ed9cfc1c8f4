"""A worker whose run holds the GIL longer than the lost-worker threshold keeps beating.

The run's heartbeat is written by a process of its own, so a long C-level step
in the worker (here: a plugin's PreScore holding the GIL for HOLD seconds,
longer than STALE) does not make a live run look lost. The test process reaps
as another worker's reaper would, all along.
"""

from __future__ import annotations

import os
import time

from django.test import override_settings

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.runner import reap_stale_runs
from dashboard.dryruns.tasks import run_dry_run_task
from tests.support.fixtures import start_worker, stop_worker
from tests.support.gil_holder import profile, worker_env
from tests.support.synthetic import fleet

STALE = 3.0
HOLD = 7


@override_settings(SCHEDLAB_DRYRUN_STALE_SECONDS=STALE)
def test_a_run_holding_the_gil_past_the_threshold_is_not_reaped(demo_cluster, transactional_db):
    queue = f"gil-holder-{os.getpid()}"
    run = DryRun.objects.create(
        cluster=demo_cluster,
        snapshot=codec.pack(fleet(20, pending=40)),
        inline_config=profile(HOLD),
        seed=1,
    )
    worker = start_worker(
        queue=queue,
        env=worker_env(
            SCHEDLAB_DRYRUN_STALE_SECONDS=str(STALE),
            SCHEDLAB_DRYRUN_REAP_SECONDS="0",  # the reaper is this test's
        ),
    )
    requeued: list[int] = []
    try:
        run_dry_run_task.apply_async((run.pk,), queue=queue)
        started = time.monotonic()
        while time.monotonic() - started < 120:
            reap_stale_runs(requeue=requeued.append)
            run.refresh_from_db()
            if run.finished_at is not None or requeued:
                break
            time.sleep(0.2)
    finally:
        stop_worker(worker)
    assert requeued == [], f"taken for lost: {run.error}"
    assert run.status == "succeeded", run.error
    assert run.attempts == 1 and run.result_count == 40
    # the hold happened inside the run: its engine time covers it
    assert run.engine_seconds >= HOLD, run.engine_seconds
