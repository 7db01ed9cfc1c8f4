"""selectors.overview: the overview page's counts and, per resource, requested / allocatable."""

from __future__ import annotations

import pytest

from dashboard.cluster import selectors
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from tests.support import objects


@pytest.mark.django_db
def test_each_resource_has_its_requests_allocatable_and_share():
    cluster = ensure_snapshot_cluster("overview", "test")
    import_objects(
        cluster,
        [
            objects.node("gpu-1", gpus=8, cpu="32", memory="128Gi"),
            objects.node("cpu-1", cpu="16", memory="64Gi"),
            objects.pod("train", node="gpu-1", gpus=2, cpu="4"),
            objects.pod("web", node="cpu-1", cpu="2"),
            objects.pod("waiting", gpus=1),
        ],
    )
    o = selectors.overview(cluster)
    counts = {k: o[k] for k in ("nodes", "gpuNodes", "pods", "podsRunning", "podsPending")}
    assert counts == {"nodes": 2, "gpuNodes": 1, "pods": 3, "podsRunning": 2, "podsPending": 1}
    # requests count for the pods that hold their node (the pending pod's GPU does not);
    # objects.pod sets a GPU limit only, which, as in the API server, is its request too
    assert o["gpusPending"] == 1
    assert o["allocation"]["cpu"] == {"requested": 6000, "allocatable": 48000, "share": 0.125}
    assert o["allocation"]["memory"] == {
        "requested": 2 * 2**30,
        "allocatable": 192 * 2**30,
        "share": round(2 / 192, 4),
    }
    assert o["allocation"]["gpu"] == {"requested": 2, "allocatable": 8, "share": 0.25}
    assert list(o["allocation"]) == ["cpu", "memory", "gpu"]


@pytest.mark.django_db
def test_an_empty_cluster_has_no_share():
    o = selectors.overview(ensure_snapshot_cluster("empty", "test"))
    assert o["allocation"]["gpu"] == {"requested": 0, "allocatable": 0, "share": None}
