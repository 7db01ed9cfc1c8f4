"""Upstream's defaults for kube-scheduler v1.36 configuration.

Sources (kubernetes v1.36): ``pkg/scheduler/apis/config/v1/default_plugins.go``
and ``defaults.go`` (default plugins, ``mergePlugins``, args defaults),
``pkg/features/kube_features.go`` (which gates are on by default),
``pkg/scheduler/framework/plugins/*`` (which extension points each in-tree
plugin implements) and ``podtopologyspread/plugin.go`` (system default
constraints).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..objects.pod import DEFAULT_SCHEDULER_NAME

__all__ = [
    "DEFAULT_CAPABILITIES",
    "DEFAULT_MULTIPOINT",
    "DEFAULT_SCHEDULER_NAME",
    "FEATURE_GATES",
    "FRAMEWORK_POINT_ORDER",
    "PLACEMENT_EXTENSION_POINTS",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "MergedEntry",
    "MergedSet",
    "default_args",
    "default_multipoint",
    "effective_default_constraints",
    "merge_plugin_set",
]

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"

# The v1.36 default values of the gates that change configuration defaults.
FEATURE_GATES: Mapping[str, bool] = {
    "NodeDeclaredFeatures": True,  # beta in 1.36
    "DynamicResourceAllocation": True,  # GA, locked
    "GenericWorkload": False,  # alpha (scheduling.k8s.io/v1alpha2, pod-group cycle)
    "GangScheduling": False,  # alpha, needs GenericWorkload
    "TopologyAwareWorkloadScheduling": False,  # alpha, needs GenericWorkload
    "WorkloadAwarePreemption": False,  # alpha, needs GangScheduling
    "StorageCapacityScoring": False,  # alpha
    "DRASchedulerFilterTimeout": True,  # beta
    "DRADeviceBindingConditions": True,  # beta in 1.36
    "DRAResourceClaimDeviceStatus": True,  # beta
    "OpportunisticBatching": True,  # beta in 1.35 and 1.36
}

# Alpha extension points of v1.36 (workload-aware scheduling), beside EXTENSION_POINTS.
PLACEMENT_EXTENSION_POINTS: tuple[str, ...] = ("placementGenerate", "placementScore")


def default_multipoint(
    gates: Mapping[str, bool] | None = None,
) -> tuple[tuple[str, int | None], ...]:
    """The default profile's multiPoint plugins under ``gates`` (default: v1.36's defaults)."""
    g = {**FEATURE_GATES, **(gates or {})}
    base: list[tuple[str, int | None]] = [
        ("SchedulingGates", None),
        ("PrioritySort", None),
        ("NodeUnschedulable", None),
        ("NodeName", None),
        ("TaintToleration", 3),
        ("NodeAffinity", 2),
        ("NodePorts", None),
        ("NodeResourcesFit", 1),
        ("VolumeRestrictions", None),
        ("NodeVolumeLimits", None),
        ("VolumeBinding", None),
        ("VolumeZone", None),
        ("PodTopologySpread", 2),
        ("InterPodAffinity", 2),
        ("DefaultPreemption", None),
        ("NodeResourcesBalancedAllocation", 1),
        ("ImageLocality", 1),
        ("DefaultBinder", None),
    ]
    # applyFeatureGates, in upstream's order
    if g["NodeDeclaredFeatures"]:
        base.append(("NodeDeclaredFeatures", None))
    if g["DynamicResourceAllocation"]:
        # before DefaultPreemption: free an idle claim before evicting a pod
        at = [n for n, _ in base].index("DefaultPreemption")
        base.insert(at, ("DynamicResources", 2))
    if g["GangScheduling"]:
        base.append(("GangScheduling", None))
    if g["TopologyAwareWorkloadScheduling"]:
        base.append(("TopologyPlacementGenerator", None))
        base.append(("PodGroupPodsCount", 1))
    return tuple(base)


# The default profile's multiPoint list: (plugin name, weight or None when unset).
DEFAULT_MULTIPOINT: tuple[tuple[str, int | None], ...] = default_multipoint()


def _caps(*points: str) -> frozenset[str]:
    return frozenset(points)


# Which extension points each in-tree plugin implements (its Go method set).
DEFAULT_CAPABILITIES: Mapping[str, frozenset[str]] = {
    "PrioritySort": _caps("queueSort"),
    "SchedulingGates": _caps("preEnqueue"),
    "NodeUnschedulable": _caps("filter"),
    "NodeName": _caps("filter"),
    "TaintToleration": _caps("filter", "preScore", "score"),
    "NodeAffinity": _caps("preFilter", "filter", "preScore", "score"),
    "NodePorts": _caps("preFilter", "filter"),
    "NodeResourcesFit": _caps("preFilter", "filter", "preScore", "score", "placementScore"),
    "NodeResourcesBalancedAllocation": _caps("preScore", "score"),
    "ImageLocality": _caps("score"),
    "PodTopologySpread": _caps("preFilter", "filter", "preScore", "score"),
    "InterPodAffinity": _caps("preFilter", "filter", "preScore", "score"),
    "DefaultPreemption": _caps("preEnqueue", "postFilter"),
    "DefaultBinder": _caps("bind"),
    "VolumeRestrictions": _caps("preFilter", "filter"),
    "NodeVolumeLimits": _caps("preFilter", "filter"),
    "VolumeBinding": _caps("preFilter", "filter", "preScore", "score", "reserve", "preBind"),
    "VolumeZone": _caps("preFilter", "filter"),
    "DynamicResources": _caps(
        "preEnqueue", "preFilter", "filter", "postFilter", "score", "reserve", "preBind"
    ),
    "NodeDeclaredFeatures": _caps("preFilter", "filter"),
    "GangScheduling": _caps("preEnqueue", "permit"),
    "TopologyPlacementGenerator": _caps("placementGenerate"),
    "PodGroupPodsCount": _caps("placementScore"),
}

# The order in which the framework builds its per-point plugin lists
# (frameworkImpl.getExtensionPoints); it decides which error is reported first.
FRAMEWORK_POINT_ORDER: tuple[str, ...] = (
    "preFilter",
    "filter",
    "postFilter",
    "reserve",
    "preScore",
    "score",
    "preBind",
    "bind",
    "postBind",
    "permit",
    "preEnqueue",
    "queueSort",
    "placementGenerate",
    "placementScore",
)

# Go interface names, as the framework's error messages spell them.
INTERFACE_NAMES: Mapping[str, str] = {
    p: p[0].upper() + p[1:] + "Plugin" for p in FRAMEWORK_POINT_ORDER
}

# PodTopologySpread with defaultingType System (hostname first, as upstream lists them).
SYSTEM_DEFAULT_CONSTRAINTS: tuple[Mapping[str, Any], ...] = (
    {"maxSkew": 3, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"},
    {
        "maxSkew": 5,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "ScheduleAnyway",
    },
)


def effective_default_constraints(args: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    """The constraints PodTopologySpread applies to pods that declare none."""
    if args.get("defaultingType", "System") == "System":
        return SYSTEM_DEFAULT_CONSTRAINTS
    return tuple(args.get("defaultConstraints") or ())


# --- mergePlugins ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MergedEntry:
    name: str
    weight: int | None
    # where the user wrote it (``profiles[0].plugins.score.enabled[1]``); None for defaults
    origin: str | None


@dataclass(frozen=True, slots=True)
class MergedSet:
    enabled: tuple[MergedEntry, ...]
    disabled: tuple[str, ...]


def merge_plugin_set(
    defaults: Sequence[MergedEntry], custom: Mapping[str, Any] | None, path: str
) -> MergedSet:
    """Upstream ``mergePluginSet``: a custom entry replaces a default in place
    (keeping its position), other custom entries follow the defaults, ``disabled``
    (or ``"*"``) drops defaults."""
    custom = custom or {}
    disabled = tuple(p["name"] for p in custom.get("disabled", ()))
    enabled_custom = list(custom.get("enabled", ()))
    by_name: dict[str, int] = {}
    for i, p in enumerate(enabled_custom):
        by_name[p["name"]] = i  # the last one wins, as with a Go map
    replaced: set[int] = set()
    out: list[MergedEntry] = []
    if "*" not in disabled:
        for d in defaults:
            if d.name in disabled:
                continue
            if d.name in by_name:
                i = by_name[d.name]
                p = enabled_custom[i]
                d = MergedEntry(p["name"], p.get("weight"), f"{path}.enabled[{i}]")
                replaced.add(i)
            out.append(d)
    for i, p in enumerate(enabled_custom):
        if i not in replaced:
            out.append(MergedEntry(p["name"], p.get("weight"), f"{path}.enabled[{i}]"))
    return MergedSet(tuple(out), disabled)


# --- plugin args defaults (SetDefaults_*Args) ------------------------------------

_DEFAULT_RESOURCES = ({"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1})


def _default_resources(resources: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if not resources:
        return [dict(r) for r in _DEFAULT_RESOURCES]
    # a weight that is unset or 0 means 1
    return [{**r, "weight": r.get("weight") or 1} for r in resources]


def default_args(plugin: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` with upstream's v1 defaults applied (a copy; camelCase keys)."""
    a: dict[str, Any] = copy.deepcopy(dict(args))
    a.pop("apiVersion", None)
    a.pop("kind", None)
    if plugin == "DefaultPreemption":
        a.setdefault("minCandidateNodesPercentage", 10)
        a.setdefault("minCandidateNodesAbsolute", 100)
    elif plugin == "InterPodAffinity":
        a.setdefault("hardPodAffinityWeight", 1)
        a.setdefault("ignorePreferredTermsOfExistingPods", False)
    elif plugin == "NodeResourcesFit":
        strategy = a.get("scoringStrategy")
        if strategy is None:
            strategy = {"type": "LeastAllocated"}
        strategy = dict(strategy)
        strategy["resources"] = _default_resources(strategy.get("resources"))
        a["scoringStrategy"] = strategy
    elif plugin == "NodeResourcesBalancedAllocation":
        a["resources"] = _default_resources(a.get("resources"))
    elif plugin == "PodTopologySpread":
        if not a.get("defaultingType"):
            a["defaultingType"] = "System"
    elif plugin == "VolumeBinding":
        a.setdefault("bindTimeoutSeconds", 600)
        if not a.get("shape") and FEATURE_GATES["StorageCapacityScoring"]:
            a["shape"] = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
    elif plugin == "DynamicResources":
        if "filterTimeout" not in a and FEATURE_GATES["DRASchedulerFilterTimeout"]:
            a["filterTimeout"] = "10s"
        if (
            "bindingTimeout" not in a
            and FEATURE_GATES["DRADeviceBindingConditions"]
            and FEATURE_GATES["DRAResourceClaimDeviceStatus"]
        ):
            a["bindingTimeout"] = "10m0s"
    return a
