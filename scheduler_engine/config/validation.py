"""Upstream's ``ValidateKubeSchedulerConfiguration`` and the plugin-args validators.

Sources (kubernetes v1.36): ``pkg/scheduler/apis/config/validation/validation.go``
and ``validation_pluginargs.go``, component-base config validation, and
``component-helpers/scheduling/corev1/nodeaffinity`` for ``addedAffinity``.
Input is the *defaulted* v1 document (dicts), as upstream validates after
defaulting; every error names its field with upstream's path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..apinames import is_label_key, is_label_value
from ..objects.resources import is_extended_resource_name
from .defaults import API_VERSION, FEATURE_GATES
from .fielderr import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from .schema import parse_duration
from .types import EXTENSION_POINTS

__all__ = ["validate_args", "validate_document"]

# Plugins removed by v1 (validation.go invalidPluginsByVersion).
REMOVED_PLUGINS = ("AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits")
_REMOVED_MSG = f'was invalid in version "{API_VERSION}" (KubeSchedulerConfiguration is version "{API_VERSION}")'

# The explicit points that validation.go checks for removed plugins (not multiPoint).
_VALIDATED_POINTS = EXTENSION_POINTS


def validate_document(doc: Mapping[str, Any]) -> list[FieldError]:
    """All errors upstream validation finds in a defaulted v1 document, in its order."""
    errs: list[FieldError] = []
    cc = doc.get("clientConnection", {})
    if cc.get("burst", 0) < 0:
        errs.append(invalid("clientConnection.burst", cc["burst"], "must be non-negative"))
    errs += _validate_leader_election(doc.get("leaderElection", {}))

    if doc.get("parallelism", 0) <= 0:
        errs.append(
            invalid(
                "parallelism",
                doc.get("parallelism", 0),
                "should be an integer value greater than zero",
            )
        )

    profiles = doc.get("profiles", [])
    if not profiles:
        errs.append(required("profiles"))
    else:
        seen: dict[str, int] = {}
        for i, prof in enumerate(profiles):
            path = f"profiles[{i}]"
            errs += _validate_profile(path, prof)
            name = prof.get("schedulerName", "")
            if name in seen:
                # upstream's bad value is the first profile's path (rendered "{}" by Go)
                errs.append(duplicate(f"{path}.schedulerName", name))
            seen[name] = i
        errs += _validate_common_queue_sort(profiles)

    errs += _percentage("percentageOfNodesToScore", doc.get("percentageOfNodesToScore"))
    initial = doc.get("podInitialBackoffSeconds", 0)
    if initial <= 0:
        errs.append(invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    max_backoff = doc.get("podMaxBackoffSeconds", 0)
    if max_backoff < initial:
        errs.append(
            invalid(
                "podMaxBackoffSeconds",
                max_backoff,
                "must be greater than or equal to PodInitialBackoffSeconds",
            )
        )
    errs += _validate_extenders(doc.get("extenders", []))
    return errs


def _validate_leader_election(le: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    if not le.get("leaderElect", False):
        return errs
    p = "leaderElection"
    lease = parse_duration(le.get("leaseDuration", "0s"))
    renew = parse_duration(le.get("renewDeadline", "0s"))
    retry = parse_duration(le.get("retryPeriod", "0s"))
    if lease <= 0:
        errs.append(
            invalid(f"{p}.leaseDuration", le.get("leaseDuration"), "must be greater than zero")
        )
    if renew <= 0:
        errs.append(
            invalid(f"{p}.renewDeadline", le.get("renewDeadline"), "must be greater than zero")
        )
    if retry <= 0:
        errs.append(invalid(f"{p}.retryPeriod", le.get("retryPeriod"), "must be greater than zero"))
    if lease <= renew:
        errs.append(
            invalid(
                f"{p}.leaseDuration",
                le.get("renewDeadline"),
                "must be greater than `RenewDeadline`",
            )
        )
    for key in ("resourceLock", "resourceNamespace", "resourceName"):
        if not le.get(key):
            errs.append(required(f"{p}.{key}"))
    if le.get("resourceLock") != "leases":
        errs.append(
            invalid(
                f"{p}.resourceLock",
                le.get("resourceLock", ""),
                'resourceLock value must be "leases"',
            )
        )
    return errs


def _percentage(path: str, value: int | None) -> list[FieldError]:
    if value is not None and not 0 <= value <= 100:
        return [invalid(path, value, "not in valid range [0-100]")]
    return []


def _validate_profile(path: str, prof: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    if not prof.get("schedulerName"):
        errs.append(required(f"{path}.schedulerName"))
    errs += _percentage(f"{path}.percentageOfNodesToScore", prof.get("percentageOfNodesToScore"))
    plugins = prof.get("plugins", {})
    for point in _VALIDATED_POINTS:
        for j, p in enumerate(plugins.get(point, {}).get("enabled", ())):
            if p["name"] in REMOVED_PLUGINS:
                errs.append(
                    invalid(f"{path}.plugins.{point}.enabled[{j}]", p["name"], _REMOVED_MSG)
                )
    seen: set[str] = set()
    for j, pc in enumerate(prof.get("pluginConfig", ())):
        pc_path = f"{path}.pluginConfig[{j}]"
        name = pc.get("name", "")
        if name in seen:
            errs.append(duplicate(pc_path, name))
        seen.add(name)
        if name in REMOVED_PLUGINS:
            errs.append(invalid(pc_path, name, _REMOVED_MSG))
        elif name in _CONFIG_TIME_VALIDATORS:
            errs += _CONFIG_TIME_VALIDATORS[name](f"{pc_path}.args", pc.get("args", {}))
    return errs


def _go_plugin_set(ps: Mapping[str, Any]) -> dict[str, Any]:
    # How Go renders an internal config.PluginSet (no json tags, nil slices are null).
    def plugins(items: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]] | None:
        return [{"Name": p["name"], "Weight": p.get("weight") or 0} for p in items] or None

    return {"Enabled": plugins(ps.get("enabled", ())), "Disabled": plugins(ps.get("disabled", ()))}


def _queue_sort_set(prof: Mapping[str, Any]) -> dict[str, Any]:
    qs = prof.get("plugins", {}).get("queueSort", {})
    return {
        "enabled": [
            {"name": p["name"], "weight": p.get("weight") or 0} for p in qs.get("enabled", ())
        ],
        "disabled": [
            {"name": p["name"], "weight": p.get("weight") or 0} for p in qs.get("disabled", ())
        ],
    }


def _validate_common_queue_sort(profiles: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    errs: list[FieldError] = []
    canon = _queue_sort_set(profiles[0])
    queue_sort_name = canon["enabled"][0]["name"] if canon["enabled"] else ""
    if len(canon["enabled"]) > 1:
        errs.append(
            invalid(
                "profiles[0].plugins.queueSort.Enabled",
                len(canon["enabled"]),
                "only one queue sort plugin can be enabled",
            )
        )
    canon_args = None
    for pc in profiles[0].get("pluginConfig", ()):
        if queue_sort_name and pc.get("name") == queue_sort_name:
            canon_args = pc.get("args")
    for i in range(1, len(profiles)):
        curr = _queue_sort_set(profiles[i])
        if curr != canon:
            raw = profiles[i].get("plugins", {}).get("queueSort", {})
            errs.append(
                invalid(
                    f"profiles[{i}].plugins.queueSort",
                    _go_plugin_set(raw),
                    "must be the same for all profiles",
                )
            )
        for pc in profiles[i].get("pluginConfig", ()):
            if pc.get("name") == queue_sort_name and pc.get("args") != canon_args:
                errs.append(
                    invalid(
                        f"profiles[{i}].pluginConfig.args",
                        pc.get("args"),
                        "queueSort must be the same for all profiles",
                    )
                )
    return errs


def _validate_extenders(extenders: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    errs: list[FieldError] = []
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders):
        path = f"extenders[{i}]"
        if ext.get("prioritizeVerb") and ext.get("weight", 0) <= 0:
            errs.append(
                invalid(
                    f"{path}.weight",
                    ext.get("weight", 0),
                    "must have a positive weight applied to it",
                )
            )
        if ext.get("bindVerb"):
            binders += 1
        for j, res in enumerate(ext.get("managedResources", ())):
            rpath = f"{path}.managedResources[{j}].name"
            name = res.get("name", "")
            msgs = is_label_key(name)
            errs += [invalid(rpath, name, m) for m in msgs]
            if not msgs and not is_extended_resource_name(name):
                errs.append(invalid(rpath, name, "is an invalid extended resource name"))
            if name in managed:
                errs.append(invalid(rpath, name, "duplicate extender managed resource name"))
            managed.add(name)
    if binders > 1:
        errs.append(
            invalid(
                "extenders",
                f"found {binders} extenders implementing bind",
                "only one extender can implement bind",
            )
        )
    return errs


# --- plugin args ---------------------------------------------------------------------


def _default_preemption(path: str, a: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    pct = a.get("minCandidateNodesPercentage", 0)
    absolute = a.get("minCandidateNodesAbsolute", 0)
    if not 0 <= pct <= 100:
        errs.append(
            invalid(f"{path}.minCandidateNodesPercentage", pct, "not in valid range [0, 100]")
        )
    if absolute < 0:
        errs.append(
            invalid(f"{path}.minCandidateNodesAbsolute", absolute, "not in valid range [0, inf)")
        )
    if pct == 0 and absolute == 0:
        errs.append(
            invalid(
                f"{path}.minCandidateNodesPercentage",
                pct,
                "cannot be zero at the same time as minCandidateNodesAbsolute",
            )
        )
        errs.append(
            invalid(
                f"{path}.minCandidateNodesAbsolute",
                absolute,
                "cannot be zero at the same time as minCandidateNodesPercentage",
            )
        )
    return errs


def _inter_pod_affinity(path: str, a: Mapping[str, Any]) -> list[FieldError]:
    w = a.get("hardPodAffinityWeight", 0)
    if not 0 <= w <= 100:
        return [invalid(f"{path}.hardPodAffinityWeight", w, "not in valid range [0, 100]")]
    return []


def _label_name(path: str, value: str) -> list[FieldError]:
    return [invalid(path, value, m) for m in is_label_key(value)]


def _pod_topology_spread(path: str, a: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    dtype = a.get("defaultingType", "")
    constraints = a.get("defaultConstraints", [])
    if dtype not in ("System", "List"):
        errs.append(not_supported(f"{path}.defaultingType", dtype, ["System", "List"]))
    elif dtype == "System" and constraints:
        errs.append(
            invalid(f"{path}.defaultingType", dtype, "when .defaultConstraints are not empty")
        )
    cpath = f"{path}.defaultConstraints"
    for i, c in enumerate(constraints):
        p = f"{cpath}[{i}]"
        if c.get("maxSkew", 0) <= 0:
            errs.append(invalid(f"{p}.maxSkew", c.get("maxSkew", 0), "not in valid range (0, inf)"))
        key = c.get("topologyKey", "")
        if not key:
            errs.append(required(f"{p}.topologyKey", "can not be empty"))
        else:
            errs += _label_name(f"{p}.topologyKey", key)
        when = c.get("whenUnsatisfiable", "")
        if not when:
            errs.append(required(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif when not in ("DoNotSchedule", "ScheduleAnyway"):
            errs.append(
                not_supported(f"{p}.whenUnsatisfiable", when, ["DoNotSchedule", "ScheduleAnyway"])
            )
        if "labelSelector" in c:
            errs.append(
                forbidden(
                    f"{p}.labelSelector",
                    "constraint must not define a selector, as they deduced for each pod",
                )
            )
        for other in constraints[:i]:
            if other.get("topologyKey", "") == key and other.get("whenUnsatisfiable", "") == when:
                errs.append(duplicate(p, f"{{{key}, {when}}}"))
                break
    return errs


def _function_shape(path: str, shape: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    if not shape:
        return [required(path, "at least one point must be specified")]
    errs: list[FieldError] = []
    for i in range(1, len(shape)):
        if shape[i - 1].get("utilization", 0) >= shape[i].get("utilization", 0):
            errs.append(
                invalid(
                    f"{path}[{i}].utilization",
                    shape[i].get("utilization", 0),
                    "values must be sorted in increasing order",
                )
            )
            break
    for i, point in enumerate(shape):
        u, s = point.get("utilization", 0), point.get("score", 0)
        if not 0 <= u <= 100:
            errs.append(invalid(f"{path}[{i}].utilization", u, "not in valid range [0, 100]"))
        if not 0 <= s <= 10:
            errs.append(invalid(f"{path}[{i}].score", s, "not in valid range [0, 10]"))
    return errs


def _resources(path: str, resources: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    errs = []
    for i, r in enumerate(resources):
        w = r.get("weight", 0)
        if not 0 < w <= 100:
            errs.append(
                invalid(
                    f"{path}[{i}].weight",
                    w,
                    f"resource weight of {r.get('name', '')} not in valid range (0, 100]",
                )
            )
    return errs


def _balanced_allocation(path: str, a: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, r in enumerate(a.get("resources", ())):
        name = r.get("name", "")
        if name in seen:
            errs.append(duplicate(f"{path}.resources[{i}].name", name))
        seen.add(name)
        if r.get("weight", 0) != 1:
            errs.append(invalid(f"{path}.resources[{i}].weight", r.get("weight", 0), "must be 1"))
    return errs


def _node_resources_fit(path: str, a: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, res in enumerate(a.get("ignoredResources", ())):
        errs += _label_name(f"{path}.ignoredResources[{i}]", res)
    for i, group in enumerate(a.get("ignoredResourceGroups", ())):
        p = f"{path}.ignoredResourceGroups[{i}]"
        if "/" in group:
            errs.append(invalid(p, group, "resource group name can't contain '/'"))
        errs += _label_name(p, group)
    spath = f"{path}.scoringStrategy"
    strategy = a.get("scoringStrategy")
    if strategy is None:
        errs.append(required(spath, "ScoringStrategy field is required"))
        return errs
    stype = strategy.get("type", "")
    supported = ["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"]
    if stype not in supported:
        errs.append(not_supported(f"{spath}.type", stype, sorted(supported)))
    errs += _resources(f"{spath}.resources", strategy.get("resources", ()))
    rtc = strategy.get("requestedToCapacityRatio")
    if stype == "RequestedToCapacityRatio":
        if rtc is None:
            errs.append(
                required(
                    f"{spath}.requestedToCapacityRatio",
                    "must be specified when type is RequestedToCapacityRatio",
                )
            )
        else:
            errs += _function_shape(f"{spath}.requestedToCapacityRatio.shape", rtc.get("shape", ()))
    elif rtc is not None:
        errs.append(
            forbidden(
                f"{spath}.requestedToCapacityRatio",
                "must be nil when type is not RequestedToCapacityRatio",
            )
        )
    return errs


def _volume_binding(path: str, a: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    t = a.get("bindTimeoutSeconds", 0)
    if t < 0:
        errs.append(
            invalid(
                f"{path}.bindTimeoutSeconds",
                t,
                "invalid BindTimeoutSeconds, should not be a negative value",
            )
        )
    if FEATURE_GATES["StorageCapacityScoring"]:
        errs += _function_shape(f"{path}.shape", a.get("shape", ()))
    elif "shape" in a:
        errs.append(
            invalid(
                f"{path}.shape",
                a["shape"],
                "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring",
            )
        )
    return errs


def _dynamic_resources(path: str, a: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    if "filterTimeout" in a and parse_duration(a["filterTimeout"]) < 0:
        errs.append(
            invalid(f"{path}.filterTimeout", a["filterTimeout"], "must be zero or positive")
        )
    if "bindingTimeout" in a and parse_duration(a["bindingTimeout"]) < 1_000_000_000:
        errs.append(
            invalid(f"{path}.bindingTimeout", a["bindingTimeout"], "must be at least 1 second")
        )
    return errs


_NODE_OPS = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
_INT_RE = re.compile(r"^[+-]?\d+$")


def _requirements_as_selector(path: str, reqs: Sequence[Mapping[str, Any]]) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, r in enumerate(reqs):
        p = f"{path}[{i}]"
        op = r.get("operator", "")
        if op not in _NODE_OPS:
            errs.append(not_supported(f"{p}.operator", op, _NODE_OPS))
            continue
        key = r.get("key", "")
        values = list(r.get("values", ()))
        msgs = is_label_key(key)
        if msgs:
            errs.append(invalid(f"{p}.key", key, "; ".join(msgs)))
        vpath = f"{p}.values"
        if op in ("In", "NotIn") and not values:
            errs.append(
                invalid(vpath, values, "for 'in', 'notin' operators, values set can't be empty")
            )
        elif op in ("Exists", "DoesNotExist") and values:
            errs.append(
                invalid(vpath, values, "values set must be empty for exists and does not exist")
            )
        elif op in ("Gt", "Lt"):
            if len(values) != 1:
                errs.append(
                    invalid(
                        vpath, values, "for 'Gt', 'Lt' operators, exactly one value is required"
                    )
                )
            for j, v in enumerate(values):
                if not _INT_RE.match(v) or not -(2**63) <= int(v) < 2**63:
                    errs.append(
                        invalid(
                            f"{vpath}[{j}]",
                            v,
                            "for 'Gt', 'Lt' operators, the value must be an integer",
                        )
                    )
        for j, v in enumerate(values):
            vmsgs = is_label_value(v)
            if vmsgs:
                errs.append(invalid(f"{vpath}[{j}][{key}]", v, "; ".join(vmsgs)))
    return errs


def _requirements_as_field_selector(
    path: str, reqs: Sequence[Mapping[str, Any]]
) -> list[FieldError]:
    errs: list[FieldError] = []
    for i, r in enumerate(reqs):
        p = f"{path}[{i}]"
        op = r.get("operator", "")
        values = list(r.get("values", ()))
        if op in ("In", "NotIn"):
            if len(values) != 1:
                errs.append(invalid(f"{p}.values", values, "must have one element"))
        else:
            errs.append(not_supported(f"{p}.operator", op, ["In", "NotIn"]))
    return errs


def _node_selector_term(path: str, term: Mapping[str, Any]) -> list[FieldError]:
    errs: list[FieldError] = []
    if term.get("matchExpressions"):
        errs += _requirements_as_selector(f"{path}.matchExpressions", term["matchExpressions"])
    if term.get("matchFields"):
        errs += _requirements_as_field_selector(f"{path}.matchFields", term["matchFields"])
    return errs


def _is_empty_term(term: Mapping[str, Any]) -> bool:
    return not term.get("matchExpressions") and not term.get("matchFields")


def _node_affinity(path: str, a: Mapping[str, Any]) -> list[FieldError]:
    affinity = a.get("addedAffinity")
    if affinity is None:
        return []
    errs: list[FieldError] = []
    ns = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if ns is not None:
        tpath = (
            f"{path}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
        )
        for i, term in enumerate(ns.get("nodeSelectorTerms", ())):
            if not _is_empty_term(term):
                errs += _node_selector_term(f"{tpath}[{i}]", term)
    ppath = f"{path}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution"
    for i, pref in enumerate(affinity.get("preferredDuringSchedulingIgnoredDuringExecution", ())):
        term = pref.get("preference", {})
        if pref.get("weight", 0) == 0 or _is_empty_term(term):
            continue
        errs += _node_selector_term(f"{ppath}[{i}]", term)
    return errs


# Validated while the configuration is validated (validation.go's table; its key
# for NodeResourcesFit is "NodeResourcesFitArgs", so that one never matches there).
_CONFIG_TIME_VALIDATORS = {
    "DefaultPreemption": _default_preemption,
    "InterPodAffinity": _inter_pod_affinity,
    "NodeAffinity": _node_affinity,
    "NodeResourcesBalancedAllocation": _balanced_allocation,
    "PodTopologySpread": _pod_topology_spread,
    "VolumeBinding": _volume_binding,
    "DynamicResources": _dynamic_resources,
}

# Every plugin validates its own args again when the framework builds it.
_PLUGIN_TIME_VALIDATORS = {**_CONFIG_TIME_VALIDATORS, "NodeResourcesFit": _node_resources_fit}


def validate_args(plugin: str, path: str, args: Mapping[str, Any]) -> list[FieldError]:
    """The checks a plugin's constructor runs on its (defaulted) args."""
    check = _PLUGIN_TIME_VALIDATORS.get(plugin)
    return check(path, args) if check else []
