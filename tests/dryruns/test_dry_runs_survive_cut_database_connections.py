"""PostgreSQL connections cut (pg_terminate_backend) while a worker runs dry-runs:
every run still ends succeeded with all its results, none stays running or failed.

Only this test's own database is touched; the session's Celery worker uses it.
"""

from __future__ import annotations

import time

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun, DryRunResultPage
from dashboard.dryruns.tasks import run_dry_run_task
from tests.support.pg import terminate_our_connections
from tests.support.synthetic import fleet


def test_dry_runs_finish_when_their_database_connections_are_cut(demo_cluster, worker):
    runs = [
        DryRun.objects.create(
            cluster=demo_cluster, snapshot=codec.pack(fleet(40, pending=2000)), seed=i
        )
        for i in range(3)
    ]
    for run in runs:
        run_dry_run_task.delay(run.pk)
    cut = 0
    deadline = time.monotonic() + 180  # 2,000 pods a run: still running on a quiet machine
    while time.monotonic() < deadline:
        statuses = list(
            DryRun.objects.filter(pk__in=[r.pk for r in runs]).values_list("status", flat=True)
        )
        if all(s in ("succeeded", "failed", "cancelled") for s in statuses):
            break
        if "running" in statuses and cut < 8:
            cut += terminate_our_connections() and 1
        time.sleep(0.1)
    assert cut, "no worker connection was ever cut"
    for run in runs:
        run.refresh_from_db()
        assert run.status == "succeeded", (run.status, run.error)
        assert run.result_count == 2000 and run.error == ""
        assert DryRunResultPage.objects.filter(dry_run=run).exists()
