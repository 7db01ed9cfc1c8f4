from __future__ import annotations

import re

from dashboard.cluster.models import Cluster, Event
from dashboard.cluster.selectors import PAGE_SIZE
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from tests.support import objects as b


def keys(html: str) -> list[str]:
    return re.findall(r'<tr data-key="([^"]+)"', html)


def test_filters_by_namespace_priority_and_gpu(demo, viewer):
    page = viewer.get("/clusters/demo/pending/", {"namespace": "batch"}).content.decode()
    assert keys(page) and all(k.startswith("batch/") for k in keys(page))

    page = viewer.get("/clusters/demo/pending/", {"gpu": "16"}).content.decode()
    assert keys(page) == ["ml-training/bad-request-16gpu"]

    page = viewer.get("/clusters/demo/pending/", {"gpu": "none"}).content.decode()
    assert "ml-training/bad-request-16gpu" not in keys(page) and keys(page)


def test_filters_by_reason_in_the_scheduler_message(demo, viewer):
    page = viewer.get("/clusters/demo/pending/", {"reason": "untolerated taint"}).content.decode()
    assert "ml-inference/no-toleration-gpu" in keys(page)
    assert "ml-training/queued-job-0" not in keys(page)


def _many_pending(n: int) -> Cluster:
    cluster = ensure_snapshot_cluster("many", "inline")
    pods = [b.pod(f"p{i:03d}", namespace="ns") for i in range(n)]
    import_objects(cluster, [b.node("n1"), *pods])
    # A FailedScheduling event for one of them: its message shows on its row.
    Event.objects.create(
        cluster=cluster,
        namespace="ns",
        name="p000.1",
        obj={},
        reason="FailedScheduling",
        message="0/1 nodes are available: 1 Insufficient cpu. preemption: not helpful",
        involved_namespace="ns",
        involved_name="p000",
    )
    return cluster


def test_pages_and_each_row_carries_its_message(db, viewer):
    _many_pending(PAGE_SIZE + 7)
    first = viewer.get("/clusters/many/pending/").content.decode()
    assert len(keys(first)) == PAGE_SIZE
    assert "1 Insufficient cpu" in first
    assert 'rel="next"' in first
    second = viewer.get("/clusters/many/pending/", {"page": 2}).content.decode()
    assert len(keys(second)) == 7 and not set(keys(first)) & set(keys(second))
    rows = viewer.get("/clusters/many/pending/rows/", {"page": 2}).content.decode()
    assert keys(rows) == keys(second) and "<html" not in rows
    # Reason filter in SQL against events
    only = viewer.get("/clusters/many/pending/", {"reason": "insufficient cpu"}).content.decode()
    assert keys(only) == ["ns/p000"]


def test_overview_lists_the_top_reasons(demo, viewer):
    page = viewer.get("/clusters/demo/").content.decode()
    assert "Insufficient nvidia.com/gpu" in page
    data = viewer.get("/clusters/demo/overview.json").json()
    # 17 pending pods, and the 10 workers of the demo's three gangs
    assert data["podsPending"] == 17 + 10 and data["allocation"]["gpu"]["allocatable"] == 67
    assert any(r["reason"] == "node(s) had untolerated taint(s)" for r in data["reasons"])
