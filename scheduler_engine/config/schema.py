"""Strict decoding of ``kubescheduler.config.k8s.io/v1`` documents.

kube-scheduler decodes its configuration file strictly: a field that the v1
types do not declare, or a value of the wrong JSON type, is an error.  The
schema below lists the fields of the v1 Go types (``KubeSchedulerConfiguration``,
the component-base leader-election/client-connection/debugging structs, the
typed plugin args and the core/v1 types they embed).  Decoding returns a clean
copy in which ``null`` values are dropped, as Go leaves such fields unset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .fielderr import FieldError
from .types import EXTENSION_POINTS

__all__ = [
    "ARGS_SCHEMAS",
    "CONFIG_SCHEMA",
    "decode",
    "format_duration",
    "parse_duration",
]

# Leaf types are strings; ("list", T) and ("map", T) are containers; a dict is a struct.
INT32, INT64, FLOAT32, BOOL, STRING, DURATION, ANY = (
    "int32",
    "int64",
    "float32",
    "bool",
    "string",
    "duration",
    "any",
)


def _list(t: Any) -> tuple[str, Any]:
    return ("list", t)


def _map(t: Any) -> tuple[str, Any]:
    return ("map", t)


_TYPE_META = {"apiVersion": STRING, "kind": STRING}

_PLUGIN = {"name": STRING, "weight": INT32}
_PLUGIN_SET = {"enabled": _list(_PLUGIN), "disabled": _list(_PLUGIN)}
PLUGIN_SET_FIELDS: tuple[str, ...] = (
    *EXTENSION_POINTS,
    "multiPoint",
    "placementGenerate",
    "placementScore",
)
_PLUGINS = dict.fromkeys(PLUGIN_SET_FIELDS, _PLUGIN_SET)
_PROFILE = {
    "schedulerName": STRING,
    "percentageOfNodesToScore": INT32,
    "plugins": _PLUGINS,
    # args are decoded per plugin once the name is known (see ARGS_SCHEMAS)
    "pluginConfig": _list({"name": STRING, "args": ANY}),
}
_EXTENDER = {
    "urlPrefix": STRING,
    "filterVerb": STRING,
    "preemptVerb": STRING,
    "prioritizeVerb": STRING,
    "weight": INT64,
    "bindVerb": STRING,
    "enableHTTPS": BOOL,
    "tlsConfig": {
        "insecure": BOOL,
        "serverName": STRING,
        "certFile": STRING,
        "keyFile": STRING,
        "caFile": STRING,
        "certData": STRING,
        "keyData": STRING,
        "caData": STRING,
    },
    "httpTimeout": DURATION,
    "nodeCacheCapable": BOOL,
    "managedResources": _list({"name": STRING, "ignoredByScheduler": BOOL}),
    "ignorable": BOOL,
}
CONFIG_SCHEMA: dict[str, Any] = {
    **_TYPE_META,
    "parallelism": INT32,
    "leaderElection": {
        "leaderElect": BOOL,
        "leaseDuration": DURATION,
        "renewDeadline": DURATION,
        "retryPeriod": DURATION,
        "resourceLock": STRING,
        "resourceName": STRING,
        "resourceNamespace": STRING,
    },
    "clientConnection": {
        "kubeconfig": STRING,
        "acceptContentTypes": STRING,
        "contentType": STRING,
        "qps": FLOAT32,
        "burst": INT32,
    },
    "enableProfiling": BOOL,
    "enableContentionProfiling": BOOL,
    "percentageOfNodesToScore": INT32,
    "podInitialBackoffSeconds": INT64,
    "podMaxBackoffSeconds": INT64,
    "profiles": _list(_PROFILE),
    "extenders": _list(_EXTENDER),
    "delayCacheUntilActive": BOOL,
}

# core/v1 types embedded in plugin args
_REQUIREMENT = {"key": STRING, "operator": STRING, "values": _list(STRING)}
_LABEL_SELECTOR = {"matchLabels": _map(STRING), "matchExpressions": _list(_REQUIREMENT)}
_NODE_SELECTOR_TERM = {"matchExpressions": _list(_REQUIREMENT), "matchFields": _list(_REQUIREMENT)}
_NODE_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": _list(_NODE_SELECTOR_TERM)
    },
    "preferredDuringSchedulingIgnoredDuringExecution": _list(
        {"weight": INT32, "preference": _NODE_SELECTOR_TERM}
    ),
}
_TOPOLOGY_SPREAD_CONSTRAINT = {
    "maxSkew": INT32,
    "topologyKey": STRING,
    "whenUnsatisfiable": STRING,
    "labelSelector": _LABEL_SELECTOR,
    "minDomains": INT32,
    "nodeAffinityPolicy": STRING,
    "nodeTaintsPolicy": STRING,
    "matchLabelKeys": _list(STRING),
}
_RESOURCE_SPEC = {"name": STRING, "weight": INT64}
_SHAPE = _list({"utilization": INT32, "score": INT32})

# plugin name -> schema of its "<Name>Args" kind (the kinds registered in v1)
ARGS_SCHEMAS: dict[str, dict[str, Any]] = {
    "DefaultPreemption": {
        **_TYPE_META,
        "minCandidateNodesPercentage": INT32,
        "minCandidateNodesAbsolute": INT32,
    },
    "InterPodAffinity": {
        **_TYPE_META,
        "hardPodAffinityWeight": INT32,
        "ignorePreferredTermsOfExistingPods": BOOL,
    },
    "NodeResourcesFit": {
        **_TYPE_META,
        "ignoredResources": _list(STRING),
        "ignoredResourceGroups": _list(STRING),
        "scoringStrategy": {
            "type": STRING,
            "resources": _list(_RESOURCE_SPEC),
            "requestedToCapacityRatio": {"shape": _SHAPE},
        },
    },
    "PodTopologySpread": {
        **_TYPE_META,
        "defaultConstraints": _list(_TOPOLOGY_SPREAD_CONSTRAINT),
        "defaultingType": STRING,
    },
    "NodeResourcesBalancedAllocation": {**_TYPE_META, "resources": _list(_RESOURCE_SPEC)},
    "VolumeBinding": {**_TYPE_META, "bindTimeoutSeconds": INT64, "shape": _SHAPE},
    "NodeAffinity": {**_TYPE_META, "addedAffinity": _NODE_AFFINITY},
    "DynamicResources": {**_TYPE_META, "filterTimeout": DURATION, "bindingTimeout": DURATION},
}

_INT_RANGES = {INT32: (-(2**31), 2**31 - 1), INT64: (-(2**63), 2**63 - 1)}


def _json_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, Mapping):
        return "object"
    return type(v).__name__


def _go_type(t: Any) -> str:
    if isinstance(t, str):
        return {DURATION: "string", ANY: "interface {}"}.get(t, t)
    if isinstance(t, tuple):
        return ("[]" if t[0] == "list" else "map[string]") + _go_type(t[1])
    return "struct"


def _mismatch(path: str, value: Any, t: Any) -> FieldError:
    kind = _json_kind(value)
    shown = f"number {value}" if kind == "number" else kind
    return FieldError(path, f"cannot unmarshal {shown} into Go value of type {_go_type(t)}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def decode(value: Any, schema: Any, path: str, errors: list[FieldError]) -> Any:
    """A cleaned copy of ``value`` per ``schema``; problems are appended to ``errors``."""
    if schema == ANY:
        return value
    if isinstance(schema, dict):
        if not isinstance(value, Mapping):
            errors.append(_mismatch(path, value, schema))
            return {}
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = _join(path, str(key))
            if key not in schema:
                errors.append(FieldError(sub, f'unknown field "{key}"'))
                continue
            if item is None:
                continue
            out[key] = decode(item, schema[key], sub, errors)
        return out
    if isinstance(schema, tuple):
        container, item_schema = schema
        if container == "list":
            if not isinstance(value, list):
                errors.append(_mismatch(path, value, schema))
                return []
            return [decode(v, item_schema, f"{path}[{i}]", errors) for i, v in enumerate(value)]
        if not isinstance(value, Mapping):
            errors.append(_mismatch(path, value, schema))
            return {}
        return {
            str(k): decode(v, item_schema, f"{path}[{k}]", errors)
            for k, v in value.items()
            if v is not None
        }
    if schema in _INT_RANGES:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append(_mismatch(path, value, schema))
            return 0
        lo, hi = _INT_RANGES[schema]
        if not lo <= value <= hi:
            errors.append(_mismatch(path, value, schema))
            return 0
        return value
    if schema == FLOAT32:
        if not isinstance(value, int | float) or isinstance(value, bool):
            errors.append(_mismatch(path, value, schema))
            return 0.0
        return float(value)
    if schema == BOOL:
        if not isinstance(value, bool):
            errors.append(_mismatch(path, value, schema))
            return False
        return value
    if schema == STRING:
        if not isinstance(value, str):
            errors.append(_mismatch(path, value, schema))
            return ""
        return value
    if schema == DURATION:
        if not isinstance(value, str):
            errors.append(_mismatch(path, value, schema))
            return "0s"
        try:
            return format_duration(parse_duration(value))
        except ValueError as exc:
            errors.append(FieldError(path, str(exc)))
            return "0s"
    raise AssertionError(f"unknown schema type {schema!r}")  # pragma: no cover


# --- Go time.Duration, as metav1.Duration (de)serialises it ------------------------

_UNITS_NS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)([^\d.]*)")


def parse_duration(text: str) -> int:
    """Nanoseconds in a Go duration string such as ``1m30s``, ``1.5h`` or ``-300ms``."""
    s = text
    sign = 1
    if s and s[0] in "+-":
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise ValueError(f'time: invalid duration "{text}"')
    total = 0
    pos = 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if not m:
            raise ValueError(f'time: invalid duration "{text}"')
        number, unit = m.groups()
        if not unit:
            raise ValueError(f'time: missing unit in duration "{text}"')
        if unit not in _UNITS_NS:
            raise ValueError(f'time: unknown unit "{unit}" in duration "{text}"')
        whole, _, frac = number.partition(".")
        scale = _UNITS_NS[unit]
        total += int(whole or 0) * scale
        if frac:
            total += int(frac) * scale // (10 ** len(frac))
        pos = m.end()
    return sign * total


def _fmt_frac(value: int, digits: int) -> str:
    whole, frac = divmod(value, 10**digits)
    frac_s = str(frac).rjust(digits, "0").rstrip("0")
    return f"{whole}.{frac_s}" if frac_s else str(whole)


def format_duration(ns: int) -> str:
    """Go's ``time.Duration.String``: ``10s``, ``10m0s``, ``1h0m0s``, ``1.5s``, ``500ms``."""
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)
    if u < 1_000_000_000:
        if u < 1_000:
            return f"{sign}{u}ns"
        if u < 1_000_000:
            return f"{sign}{_fmt_frac(u, 3)}µs"
        return f"{sign}{_fmt_frac(u, 6)}ms"
    hours, rest = divmod(u, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    secs = _fmt_frac(rest, 9) + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{secs}"
    if minutes:
        return f"{sign}{minutes}m{secs}"
    return f"{sign}{secs}"
