"""Builders for gang tests: native PodGroups and members."""

from __future__ import annotations

from typing import Any

from scheduler_engine.cluster import build_cluster
from scheduler_engine.results import SimulationResult
from scheduler_engine.simulate import simulate
from tests.engine.builders import PodBuilder, cluster_objects, make_pod

GANG_GATES = {"GenericWorkload": True, "GangScheduling": True}
TAS_GATES = {**GANG_GATES, "TopologyAwareWorkloadScheduling": True}

MSG_GROUP_WAITING = (
    "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled, "
    "one or more plugins asked to wait and no plugin rejected pod"
)


def native_pod_group(
    name: str,
    min_count: int | None = None,
    topology_key: str | None = None,
    namespace: str = "default",
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "schedulingPolicy": {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    }
    if topology_key is not None:
        spec["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def member(name: str, group: str) -> PodBuilder:
    return make_pod(name).set("spec.schedulingGroup", {"podGroupName": group})


def run(*objs: Any, gates: dict[str, bool] | None = None, seed: int = 0) -> SimulationResult:
    return simulate(build_cluster(cluster_objects(*objs)), seed=seed, feature_gates=gates)


def by_pod(res: SimulationResult) -> dict[str, dict[str, Any]]:
    return {r["pod"]: r for r in res.to_dict()["results"]}
