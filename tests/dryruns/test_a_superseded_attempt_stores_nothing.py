"""An attempt taken for lost (its worker too busy to beat) stores nothing when it ends late.

The reaper queues such a run again; whichever attempt is the run's own now
stores the results, the late one drops its own: no run is stored twice.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun, DryRunResultPage
from dashboard.dryruns.services import runner
from tests.support.synthetic import fleet, pod


def _queued_run(cluster) -> DryRun:
    snapshot = codec.pack([*fleet(2), pod(1), pod(2)])
    return DryRun.objects.create(cluster=cluster, snapshot=snapshot, status="queued")


def _taken_for_lost(run: DryRun) -> None:
    """What the reaper does to a run whose heartbeat is old."""
    old = timezone.now() - timedelta(hours=1)
    DryRun.objects.filter(pk=run.pk).update(heartbeat_at=old)
    assert runner.reap_stale_runs(requeue=lambda pk: None) == 1


def test_a_late_attempt_of_a_requeued_run_stores_nothing(demo_cluster, transactional_db):
    late = runner._claim(_queued_run(demo_cluster).pk)
    _taken_for_lost(late)
    runner._run(late)  # the busy worker finishes after all
    row = DryRun.objects.get(pk=late.pk)
    assert row.status == "queued" and row.attempts == 1
    assert not DryRunResultPage.objects.filter(dry_run_id=late.pk).exists()


def test_the_new_attempt_stores_and_the_late_one_cannot_overwrite_it(
    demo_cluster, transactional_db
):
    late = runner._claim(_queued_run(demo_cluster).pk)
    _taken_for_lost(late)
    assert runner.run_dry_run(late.pk) == "succeeded"  # the second attempt, another worker
    stored = DryRun.objects.get(pk=late.pk)
    pages = list(DryRunResultPage.objects.filter(dry_run_id=late.pk).values_list("pk", flat=True))
    assert stored.attempts == 2 and stored.result_count == 2 and pages

    runner._run(late)  # the first attempt ends late, after the second
    row = DryRun.objects.get(pk=late.pk)
    assert (row.status, row.attempts, row.finished_at) == ("succeeded", 2, stored.finished_at)
    after = list(DryRunResultPage.objects.filter(dry_run_id=late.pk).values_list("pk", flat=True))
    assert after == pages


def test_a_late_attempt_that_fails_does_not_mark_the_run_failed(
    demo_cluster, transactional_db, monkeypatch
):
    late = runner._claim(_queued_run(demo_cluster).pk)
    _taken_for_lost(late)

    def broken(*args, **kwargs):
        raise RuntimeError("engine bug")

    monkeypatch.setattr(runner, "simulate", broken)
    runner._run(late)
    row = DryRun.objects.get(pk=late.pk)
    assert row.status == "queued" and row.error.startswith("its worker was lost")
