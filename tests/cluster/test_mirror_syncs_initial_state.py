from __future__ import annotations

from dashboard.cluster.models import (
    Cluster,
    Event,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
)
from tests.support import objects as b
from tests.support.mirror import wait_watching


def _populate(kube):
    kube.apply(b.namespace("default"))
    kube.apply(b.namespace("ml"))
    for i in range(5):
        kube.apply(b.node(f"gpu-{i}", gpus=8))
    kube.apply(b.node("cpu-0"))
    kube.apply(b.pod("trainer-0", namespace="ml", node="gpu-0", gpus=4, priority=1000))
    kube.apply(b.pod("trainer-1", namespace="ml", gpus=8))
    kube.apply(b.pod("web", node="cpu-0"))
    kube.apply(b.priority_class("high", 1000))
    kube.apply(b.pdb("trainer", namespace="ml"))
    kube.apply(b.event("trainer-1.17", pod_name="trainer-1", namespace="ml"))
    kube.apply(b.event("web.18", pod_name="web", reason="Scheduled"))


def test_it_lists_every_kind_through_paginated_lists(kube, live_cluster, start_mirror):
    _populate(kube)
    start_mirror(live_cluster)

    wait_watching(live_cluster)

    assert Pod.objects.filter(cluster=live_cluster).count() == 3
    assert Event.objects.filter(cluster=live_cluster).count() == 1  # FailedScheduling only
    assert Node.objects.filter(cluster=live_cluster).count() == 6
    assert Namespace.objects.filter(cluster=live_cluster).count() == 2
    assert PriorityClass.objects.get(cluster=live_cluster).value == 1000
    assert PodDisruptionBudget.objects.get(cluster=live_cluster).min_available == "1"
    # Page size 2: lists came in several pages.
    assert any("continue=" in r for r in kube.requests)


def test_it_stores_indexed_columns(kube, live_cluster, start_mirror):
    _populate(kube)
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    running = Pod.objects.get(cluster=live_cluster, namespace="ml", name="trainer-0")
    assert (running.node_name, running.phase, running.gpu_requested, running.priority) == (
        "gpu-0",
        "Running",
        4,
        1000,
    )
    assert running.pending_since is None
    waiting = Pod.objects.get(cluster=live_cluster, name="trainer-1")
    assert waiting.pending_since is not None and waiting.node_name == ""
    assert waiting.obj["kind"] == "Pod" and waiting.uid
    gpu = Node.objects.get(cluster=live_cluster, name="gpu-0")
    assert (gpu.gpu_capacity, gpu.gpu_allocatable, gpu.ready) == (8, 8, True)
    assert gpu.gpu_resources == ["nvidia.com/gpu"]
    event = Event.objects.get(cluster=live_cluster)
    assert (event.involved_name, event.reason) == ("trainer-1", "FailedScheduling")


def test_it_reports_a_healthy_watching_mirror(kube, live_cluster, start_mirror):
    _populate(kube)
    start_mirror(live_cluster)

    wait_watching(live_cluster)
    cluster = Cluster.objects.get(pk=live_cluster.pk)
    assert cluster.last_sync_at is not None and cluster.last_error == ""
    assert set(cluster.resource_versions) >= {"pods", "nodes", "events"}
