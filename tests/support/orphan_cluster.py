"""Small clusters: pending pods waiting for what nobody provides; two schedulers to collide."""

from __future__ import annotations

import json
from typing import Any

from dashboard.cluster.models import Cluster
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from tests.support import objects

# pod name → (reason, value) it must be reported with under the defaults
EXPECTED = {
    "ml/volcano-job": ("UnknownScheduler", "volcano"),
    "ml/held": ("GateNobodyRemoves", "example.com/hold"),
    "ml/cosched": ("PodGroupMissing", "train"),
    "ml/native": ("PodGroupMissing", "infer"),
    "ml/claimless": ("ClaimTemplateMissing", "one-gpu"),
}


def orphan_objects() -> list[dict[str, Any]]:
    def pending(name: str) -> dict[str, Any]:
        return objects.pod(name, namespace="ml")

    volcano = pending("volcano-job")
    volcano["spec"]["schedulerName"] = "volcano"
    held = pending("held")
    held["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
    queued = pending("queued")  # Kueue removes this gate: not an orphan
    queued["spec"]["schedulingGates"] = [{"name": "kueue.x-k8s.io/admission"}]
    cosched = pending("cosched")
    cosched["metadata"]["labels"] = {"scheduling.x-k8s.io/pod-group": "train"}
    native = pending("native")
    native["spec"]["schedulingGroup"] = {"podGroupName": "infer"}
    claimless = pending("claimless")
    claimless["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]
    return [
        objects.namespace("ml"),
        objects.node("n1"),
        objects.pod("running", namespace="ml", node="n1"),
        pending("fine"),
        volcano,
        held,
        queued,
        cosched,
        native,
        claimless,
    ]


def make_orphan_cluster(name: str = "orphans") -> Cluster:
    cluster = ensure_snapshot_cluster(name, "test")
    result = import_objects(cluster, orphan_objects())
    assert not result.skipped, result.skipped
    return cluster


# two profiles: kube-scheduler's and a second scheduler's
TWO_SCHEDULERS = json.dumps(
    {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "batch-scheduler"}],
    }
)


def collision_objects() -> list[dict[str, Any]]:
    """One 8-GPU node; each scheduler has a 6-GPU pod: only one fits (train, then infer)."""
    a = objects.pod("train", gpus=6)
    b = objects.pod("infer", gpus=6)
    b["spec"]["schedulerName"] = "batch-scheduler"
    b["metadata"]["creationTimestamp"] = "2025-01-01T00:00:01Z"
    return [objects.node("g1", gpus=8), a, b]


def make_collision_cluster(name: str = "collide") -> Cluster:
    cluster = ensure_snapshot_cluster(name, "test")
    result = import_objects(cluster, collision_objects())
    assert not result.skipped, result.skipped
    return cluster
