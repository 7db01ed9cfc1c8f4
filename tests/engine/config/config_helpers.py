"""Builders shared by the configuration tests."""

from __future__ import annotations

from typing import Any

API = "kubescheduler.config.k8s.io/v1"


# kube-scheduler v1.36 default profile after multiPoint expansion
# (pkg/scheduler/apis/config/testing/defaults: ExpandedPluginsV1)
EXPECTED = {
    "preEnqueue": ["SchedulingGates", "DynamicResources", "DefaultPreemption"],
    "queueSort": ["PrioritySort"],
    "preFilter": [
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
        "NodeDeclaredFeatures",
    ],
    "filter": [
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
        "DynamicResources",
        "NodeDeclaredFeatures",
    ],
    "postFilter": ["DynamicResources", "DefaultPreemption"],
    "preScore": [
        "TaintToleration",
        "NodeAffinity",
        "NodeResourcesFit",
        "VolumeBinding",
        "PodTopologySpread",
        "InterPodAffinity",
        "NodeResourcesBalancedAllocation",
    ],
    "reserve": ["VolumeBinding", "DynamicResources"],
    "permit": [],
    "preBind": ["VolumeBinding", "DynamicResources"],
    "bind": ["DefaultBinder"],
    "postBind": [],
}

EXPECTED_SCORE = [
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodeResourcesFit", 1),
    ("VolumeBinding", 1),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 2),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
]


def ksc(**fields: Any) -> dict[str, Any]:
    """A KubeSchedulerConfiguration document with the given top-level fields."""
    return {"apiVersion": API, "kind": "KubeSchedulerConfiguration", **fields}


def profile(name: str | None = None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {} if name is None else {"schedulerName": name}
    out.update(fields)
    return out


def names(refs: Any) -> list[str]:
    return [r.name for r in refs]


def weighted(refs: Any) -> list[tuple[str, int]]:
    return [(r.name, r.weight) for r in refs]
