"""A real worker process, through the real Redis broker, against the test database."""

from __future__ import annotations

from dashboard.cluster.tasks import cluster_object_count, import_snapshot_task
from tests.support.fixtures import SMALL_CLUSTER


def test_a_worker_imports_a_snapshot_and_reads_it_back(worker):
    counts = import_snapshot_task.delay(str(SMALL_CLUSTER), "via-celery").get(timeout=60)
    assert counts["nodes"] == 2
    assert cluster_object_count.delay("via-celery").get(timeout=30) == 7
