"""A small cluster with native gangs: one that fits, one blocked by GPUs (zones a and b)."""

from __future__ import annotations

from typing import Any

from dashboard.cluster.models import Cluster
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from tests.support import objects

# what kube-scheduler needs to schedule native gangs as groups
GATES = "GenericWorkload=true,GangScheduling=true"


def zone_node(name: str, zone: str, gpus: int) -> dict[str, Any]:
    n = objects.node(name, gpus=gpus)
    n["metadata"]["labels"]["topology.kubernetes.io/zone"] = zone
    return n


def member(name: str, group: str, gpus: int) -> dict[str, Any]:
    p = objects.pod(name, namespace="train", gpus=gpus)
    p["spec"]["schedulingGroup"] = {"podGroupName": group}
    return p


def native_group(name: str, min_count: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "train"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def gang_objects() -> list[dict[str, Any]]:
    """Two 8-GPU nodes; gang ``fits`` (2 × 8 GPUs) takes both, ``big`` (4 × 8) cannot."""
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "train"}},
        zone_node("a1", "a", 8),
        zone_node("b1", "b", 8),
        native_group("fits", 2),
        *(member(f"fits-{i}", "fits", 8) for i in range(2)),
        native_group("big", 4),
        *(member(f"big-{i}", "big", 8) for i in range(4)),
    ]


def make_gang_cluster(name: str = "gangs") -> Cluster:
    cluster = ensure_snapshot_cluster(name, "test")
    result = import_objects(cluster, gang_objects())
    assert not result.skipped, result.skipped
    return cluster
