"""Pods parsed once into what the scheduler reads (upstream ``PodInfo``).

What the API server would have done before any scheduler sees a pod is done
here too, so a hand-written snapshot and a mirrored one behave the same:
limits are copied into missing requests, ``spec.priority`` is resolved from
``priorityClassName``, and ``matchLabelKeys``/``mismatchLabelKeys`` of pod
(anti-)affinity terms are merged into their label selectors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

import orjson

from ..errors import FieldError as _FieldError
from ..errors import InputError
from ..quantity import QuantityError, milli_value, parse_quantity, value
from .resources import CPU, MEMORY, Resource
from .selectors import (
    LabelSelector,
    NodeSelector,
    NodeSelectorTerm,
    Requirement,
    SelectorError,
    parse_label_selector,
    parse_node_affinity,
)
from .shapes import MAPPING, Memo, memo_key
from .taints import Toleration, parse_tolerations

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "DEFAULT_SCHEDULER_NAME",
    "SYSTEM_PRIORITIES",
    "AffinityTerm",
    "HostPort",
    "Pod",
    "WeightedAffinityTerm",
    "parse_pod",
    "parse_resource_list",
    "parse_time",
    "pod_requests",
    "reparse_pod",
]

DEFAULT_SCHEDULER_NAME = "default-scheduler"
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
PREEMPT_LOWER_PRIORITY = "PreemptLowerPriority"
PREEMPT_NEVER = "Never"
_SUPPORTED_POD_LEVEL = (CPU, MEMORY)


def parse_time(raw: Any) -> float | None:
    """RFC 3339 timestamp → seconds since the epoch (None when absent)."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, datetime):
        return raw.timestamp()
    try:
        return datetime.fromisoformat(str(raw).replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise ValueError(f"invalid timestamp {raw!r}") from None


def parse_resource_list(raw: Any, field: str) -> dict[str, Fraction]:
    if raw is None:
        return {}
    if not isinstance(raw, MAPPING):
        raise _FieldError(field, "must be a map of resource quantities")
    out: dict[str, Fraction] = {}
    for k, v in raw.items():
        try:
            out[str(k)] = parse_quantity(v)
        except QuantityError as exc:
            raise _FieldError(f"{field}.{k}", f"{exc}") from None
    return out


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """A required or preferred pod (anti-)affinity term, namespaces resolved."""

    namespaces: frozenset[str]
    selector: LabelSelector
    topology_key: str
    # None selects no namespace (upstream: nil selector → labels.Nothing())
    namespace_selector: LabelSelector | None

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """Whether ``pod`` is selected (namespace then labels), as ``AffinityTerm.Matches``."""
        if pod.namespace in self.namespaces or (
            self.namespace_selector is not None
            and ns_labels is not None
            and self.namespace_selector.matches(ns_labels)
        ):
            return self.selector.matches(pod.labels)
        return False


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


@dataclass(frozen=True, slots=True)
class HostPort:
    host_ip: str
    protocol: str
    port: int


class Pod:
    """A pod as the scheduler sees it.  ``raw`` is the object as given."""

    __slots__ = (
        "cache",
        "creation_ts",
        "host_ports",
        "images",
        "key",
        "labels",
        "name",
        "namespace",
        "node_name",
        "node_selector",
        "nominated_node_name",
        "non0_cpu",
        "non0_mem",
        "owner_uid",
        "phase",
        "preemption_policy",
        "preferred_affinity_terms",
        "preferred_anti_affinity_terms",
        "preferred_node_affinity",
        "priority",
        "priority_class_name",
        "pvc_names",
        "raw",
        "requests",
        "required_affinity_terms",
        "required_anti_affinity_terms",
        "required_node_affinity",
        "resource_claims",
        "scheduler_name",
        "scheduling_gates",
        "start_ts",
        "terminating",
        "tolerations",
        "topology_spread_constraints",
        "uid",
    )

    raw: dict[str, Any]
    namespace: str
    name: str
    key: str
    uid: str
    labels: dict[str, str]
    scheduler_name: str
    node_name: str
    nominated_node_name: str
    priority: int
    priority_class_name: str
    preemption_policy: str
    creation_ts: float
    start_ts: float | None
    phase: str
    terminating: bool
    requests: Resource
    non0_cpu: int
    non0_mem: int
    tolerations: tuple[Toleration, ...]
    node_selector: dict[str, str]
    required_node_affinity: NodeSelector | None
    preferred_node_affinity: tuple[tuple[int, NodeSelectorTerm], ...]
    required_affinity_terms: tuple[AffinityTerm, ...]
    required_anti_affinity_terms: tuple[AffinityTerm, ...]
    preferred_affinity_terms: tuple[WeightedAffinityTerm, ...]
    preferred_anti_affinity_terms: tuple[WeightedAffinityTerm, ...]
    topology_spread_constraints: tuple[dict[str, Any], ...]
    scheduling_gates: tuple[str, ...]
    host_ports: tuple[HostPort, ...]
    images: tuple[str, ...]
    pvc_names: tuple[str, ...]
    resource_claims: tuple[dict[str, Any], ...]
    owner_uid: str
    # per-plugin precomputations that depend only on the pod (PreFilter caches)
    cache: dict[str, Any]

    @property
    def spec(self) -> dict[str, Any]:
        return self.raw.get("spec") or {}

    def __repr__(self) -> str:
        return f"Pod({self.key})"


def _containers(spec: Mapping[str, Any], key: str, field: str) -> list[dict[str, Any]]:
    items = spec.get(key) or []
    if not isinstance(items, list):
        raise _FieldError(f"{field}.{key}", "must be a list")
    for i, c in enumerate(items):
        if not isinstance(c, MAPPING):
            raise _FieldError(f"{field}.{key}[{i}]", "must be an object")
    return items


def _effective_requests(resources: Any, field: str) -> dict[str, Fraction]:
    """Requests with limits copied into missing ones, as API defaulting does."""
    if resources is None:
        return {}
    if not isinstance(resources, MAPPING):
        raise _FieldError(field, "must be an object")
    reqs = parse_resource_list(resources.get("requests"), f"{field}.requests")
    limits = parse_resource_list(resources.get("limits"), f"{field}.limits")
    for k, v in limits.items():
        reqs.setdefault(k, v)
    return reqs


def _add(acc: dict[str, Fraction], other: Mapping[str, Fraction]) -> None:
    for k, v in other.items():
        acc[k] = acc.get(k, Fraction(0)) + v


def _max_into(acc: dict[str, Fraction], other: Mapping[str, Fraction]) -> None:
    for k, v in other.items():
        if k not in acc or v > acc[k]:
            acc[k] = v


def _aggregate(
    containers: list[dict[str, Any]],
    init_containers: list[dict[str, Any]],
    non_missing: Mapping[str, Fraction] | None,
) -> dict[str, Fraction]:
    """Upstream ``AggregateContainerRequests`` (sidecar-aware)."""

    def reqs_of(c: Mapping[str, Any], field: str) -> dict[str, Fraction]:
        r = _effective_requests(c.get("resources"), f"{field}.resources")
        if non_missing:
            for k, v in non_missing.items():
                if k not in r:
                    r[k] = v
        return r

    total: dict[str, Fraction] = {}
    for i, c in enumerate(containers):
        _add(total, reqs_of(c, f"spec.containers[{i}]"))
    restartable: dict[str, Fraction] = {}
    init_max: dict[str, Fraction] = {}
    for i, c in enumerate(init_containers):
        r = reqs_of(c, f"spec.initContainers[{i}]")
        if c.get("restartPolicy") == "Always":
            _add(total, r)
            _add(restartable, r)
            use = dict(restartable)
        else:
            use = dict(r)
            _add(use, restartable)
        _max_into(init_max, use)
    _max_into(total, init_max)
    return total


def _pod_requests(
    spec: Mapping[str, Any], non_missing: Mapping[str, Fraction] | None
) -> dict[str, Fraction]:
    """Upstream ``PodRequests`` with PodLevelResources on and overhead added."""
    containers = _containers(spec, "containers", "spec")
    inits = _containers(spec, "initContainers", "spec")
    if (
        len(containers) == 1
        and not inits
        and non_missing is None
        and spec.get("resources") is None
        and spec.get("overhead") is None
    ):
        # Fast path, the common pod (the mirror computes this for every pod):
        # the general path below adds the one container's requests to zeros
        # and merges empty init, pod-level and overhead lists: same result.
        return _effective_requests(containers[0].get("resources"), "spec.containers[0].resources")
    reqs = _aggregate(containers, inits, non_missing)
    pod_level = _effective_requests(spec.get("resources"), "spec.resources")
    for k, v in pod_level.items():
        if k in _SUPPORTED_POD_LEVEL or k.startswith("hugepages-"):
            reqs[k] = v
    _add(reqs, parse_resource_list(spec.get("overhead"), "spec.overhead"))
    return reqs


def pod_requests(spec: Mapping[str, Any]) -> dict[str, Fraction]:
    """Upstream ``PodRequests`` of a pod spec (sidecars, init containers,
    pod-level resources, overhead), limits copied into missing requests.

    Raises :class:`~scheduler_engine.errors.FieldError` naming the
    field of a malformed quantity or container.
    """
    return _pod_requests(spec, None)


def _affinity_term(
    pod_ns: str, pod_labels: Mapping[str, str], raw: Any, field: str
) -> AffinityTerm:
    if not isinstance(raw, MAPPING):
        raise _FieldError(field, "must be an object")
    try:
        selector = parse_label_selector(raw.get("labelSelector"), f"{field}.labelSelector")
        extra: list[Requirement] = []
        for key in raw.get("matchLabelKeys") or []:
            if key in pod_labels:
                extra.append(Requirement(key, "In", frozenset([pod_labels[key]])))
        for key in raw.get("mismatchLabelKeys") or []:
            if key in pod_labels:
                extra.append(Requirement(key, "NotIn", frozenset([pod_labels[key]])))
        if extra and not selector.nothing:
            selector = LabelSelector(selector.requirements + tuple(extra))
        ns_raw = raw.get("namespaceSelector")
        ns_sel = (
            None if ns_raw is None else parse_label_selector(ns_raw, f"{field}.namespaceSelector")
        )
    except SelectorError as exc:
        raise _FieldError(exc.field, exc.message) from None
    names = raw.get("namespaces") or []
    namespaces = (
        frozenset([pod_ns]) if not names and ns_raw is None else frozenset(str(n) for n in names)
    )
    return AffinityTerm(namespaces, selector, str(raw.get("topologyKey") or ""), ns_sel)


def _terms(
    pod_ns: str, labels: Mapping[str, str], block: Any, field: str
) -> tuple[tuple[AffinityTerm, ...], tuple[WeightedAffinityTerm, ...]]:
    if not block:
        return (), ()
    if not isinstance(block, MAPPING):
        raise _FieldError(field, "must be an object")
    req_f = f"{field}.requiredDuringSchedulingIgnoredDuringExecution"
    pref_f = f"{field}.preferredDuringSchedulingIgnoredDuringExecution"
    required = tuple(
        _affinity_term(pod_ns, labels, t, f"{req_f}[{i}]")
        for i, t in enumerate(block.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
    )
    preferred = []
    for i, wt in enumerate(block.get("preferredDuringSchedulingIgnoredDuringExecution") or []):
        if not isinstance(wt, MAPPING):
            raise _FieldError(f"{pref_f}[{i}]", "must be an object")
        term = _affinity_term(
            pod_ns, labels, wt.get("podAffinityTerm") or {}, f"{pref_f}[{i}].podAffinityTerm"
        )
        preferred.append(WeightedAffinityTerm(term, int(wt.get("weight") or 0)))
    return required, tuple(preferred)


def _node_affinity(
    spec: Mapping[str, Any],
) -> tuple[NodeSelector | None, tuple[tuple[int, NodeSelectorTerm], ...]]:
    aff = (
        (spec.get("affinity") or {}).get("nodeAffinity")
        if isinstance(spec.get("affinity"), MAPPING)
        else None
    )
    if not aff:
        return None, ()
    try:
        required, preferred, _ = parse_node_affinity(aff, "spec.affinity.nodeAffinity")
    except SelectorError as exc:
        raise _FieldError(exc.field, exc.message) from None
    return required, preferred


def _host_ports(spec: Mapping[str, Any]) -> tuple[HostPort, ...]:
    ports: list[HostPort] = []
    sources = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    sources += list(spec.get("containers") or [])
    for c in sources:
        for p in c.get("ports") or []:
            hp = int(p.get("hostPort") or 0)
            if hp > 0:
                ports.append(
                    HostPort(str(p.get("hostIP") or ""), str(p.get("protocol") or "TCP"), hp)
                )
    return tuple(ports)


def parse_pod(
    obj: Mapping[str, Any],
    priority_classes: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    source: str | None = None,
) -> Pod:
    """Parse a Pod object; ``priority_classes`` maps name → PriorityClass object."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), MAPPING) else None
    name = (meta or {}).get("name")
    ns = (meta or {}).get("namespace") or "default"
    ref = f"Pod {ns}/{name}" if name else "Pod <unnamed>"
    try:
        if meta is None or not name:
            raise _FieldError("metadata.name", "is required")
        spec = obj.get("spec")
        if not isinstance(spec, MAPPING):
            raise _FieldError("spec", "is required and must be an object")
        return _parse(obj, meta, spec, str(ns), str(name), priority_classes or {})
    except _FieldError as exc:
        raise InputError(exc.message, file=source, obj=ref, field=exc.field) from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"malformed pod: {exc}", file=source, obj=ref) from None


# Everything parse_pod reads of a pod object: the whole spec, and these fields
# of its metadata and status (a test holds parse_pod to this list).
PARSED_METADATA = (
    "name",
    "namespace",
    "uid",
    "labels",
    "deletionTimestamp",
    "creationTimestamp",
    "ownerReferences",
)
PARSED_STATUS = ("phase", "startTime", "nominatedNodeName")
# types outside plain JSON make the comparison fail (a full parse decides)
_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
_STRICT |= orjson.OPT_PASSTHROUGH_DATACLASS


def _parsed_part(obj: Mapping[str, Any]) -> list[Any] | None:
    """What parse_pod reads of ``obj`` (None: not plain enough to compare)."""
    meta, spec, status = obj.get("metadata"), obj.get("spec"), obj.get("status")
    if not isinstance(status, Mapping):
        status = {}  # as parse_pod reads it
    if type(meta) is not dict or type(spec) is not dict or type(status) is not dict:
        return None
    return [spec, [meta.get(k) for k in PARSED_METADATA], [status.get(k) for k in PARSED_STATUS]]


def _same_json(a: Any, b: Any) -> bool:
    """Equal, and of the same JSON types throughout (``==`` alone takes 1 for 1.0 and True)."""
    if a != b:  # NaN is never equal: no reuse
        return False
    try:
        return orjson.dumps(a, option=_STRICT) == orjson.dumps(b, option=_STRICT)
    except TypeError:  # not plain JSON (datetimes, subclasses, huge integers)
        return False


def reparse_pod(old: Pod, obj: Mapping[str, Any]) -> Pod | None:
    """``parse_pod(obj)`` taken from ``old`` when nothing parse_pod reads differs; else None.

    ``old`` must be what parse_pod gave for its ``raw`` with the priority
    classes in force now. The result holds ``obj`` as its ``raw`` and an empty
    ``cache``, as a fresh parse would.
    """
    new = _parsed_part(obj)
    if new is None or not _same_json(new, _parsed_part(old.raw)):
        return None
    p = Pod.__new__(Pod)
    for name in Pod.__slots__:
        setattr(p, name, getattr(old, name))
    p.raw = obj  # type: ignore[assignment]
    p.cache = {}
    return p


def _parse(
    obj: Mapping[str, Any],
    meta: Mapping[str, Any],
    spec: Mapping[str, Any],
    ns: str,
    name: str,
    priority_classes: Mapping[str, Mapping[str, Any]],
) -> Pod:
    status = obj.get("status") if isinstance(obj.get("status"), MAPPING) else {}
    p = Pod.__new__(Pod)
    p.raw = obj  # type: ignore[assignment]
    p.namespace = ns
    p.name = name
    p.key = f"{ns}/{name}"
    p.uid = str(meta.get("uid") or p.key)
    labels = meta.get("labels") or {}
    if not isinstance(labels, MAPPING):
        raise _FieldError("metadata.labels", "must be a map of strings")
    p.labels = {str(k): str(v) for k, v in labels.items()}
    p.scheduler_name = str(spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME)
    p.node_name = str(spec.get("nodeName") or "")
    p.nominated_node_name = str(status.get("nominatedNodeName") or "")
    p.phase = str(status.get("phase") or ("Running" if p.node_name else "Pending"))
    p.terminating = bool(meta.get("deletionTimestamp"))
    try:
        p.creation_ts = parse_time(meta.get("creationTimestamp")) or 0.0
    except ValueError as exc:
        raise _FieldError("metadata.creationTimestamp", str(exc)) from None
    try:
        p.start_ts = parse_time(status.get("startTime"))
    except ValueError as exc:
        raise _FieldError("status.startTime", str(exc)) from None

    _set_priority(p, spec, priority_classes)
    _set_requests(p, spec)

    p.tolerations = parse_tolerations(spec.get("tolerations"), "spec.tolerations")
    node_selector = spec.get("nodeSelector") or {}
    if not isinstance(node_selector, MAPPING):
        raise _FieldError("spec.nodeSelector", "must be a map of strings")
    p.node_selector = {str(k): str(v) for k, v in node_selector.items()}
    p.required_node_affinity, p.preferred_node_affinity = _node_affinity(spec)
    affinity = spec.get("affinity") or {}
    if not isinstance(affinity, MAPPING):
        raise _FieldError("spec.affinity", "must be an object")
    p.required_affinity_terms, p.preferred_affinity_terms = _terms(
        ns, p.labels, affinity.get("podAffinity"), "spec.affinity.podAffinity"
    )
    p.required_anti_affinity_terms, p.preferred_anti_affinity_terms = _terms(
        ns, p.labels, affinity.get("podAntiAffinity"), "spec.affinity.podAntiAffinity"
    )
    tsc = spec.get("topologySpreadConstraints") or []
    if not isinstance(tsc, list) or not all(isinstance(c, MAPPING) for c in tsc):
        raise _FieldError("spec.topologySpreadConstraints", "must be a list of objects")
    p.topology_spread_constraints = tuple(tsc)
    p.scheduling_gates = tuple(str(g.get("name")) for g in spec.get("schedulingGates") or [])
    p.host_ports = _host_ports(spec)
    p.images = tuple(
        str(c.get("image"))
        for c in list(spec.get("initContainers") or []) + list(spec.get("containers") or [])
        if c.get("image")
    )
    p.pvc_names = tuple(
        str(v["persistentVolumeClaim"].get("claimName"))
        for v in spec.get("volumes") or []
        if isinstance(v, MAPPING) and isinstance(v.get("persistentVolumeClaim"), MAPPING)
    )
    p.resource_claims = tuple(spec.get("resourceClaims") or [])
    owners = meta.get("ownerReferences") or []
    controller = next((o for o in owners if o.get("controller")), None)
    p.owner_uid = str((controller or {}).get("uid") or "")
    p.cache = {}
    return p


def _set_priority(
    p: Pod, spec: Mapping[str, Any], priority_classes: Mapping[str, Mapping[str, Any]]
) -> None:
    """Priority: explicit, else the class, else the global default class, else 0."""
    pc_name = str(spec.get("priorityClassName") or "")
    p.priority_class_name = pc_name
    pc = priority_classes.get(pc_name) if pc_name else None
    if pc is None and not pc_name:
        pc = next((c for c in priority_classes.values() if c.get("globalDefault")), None)
    if spec.get("priority") is not None:
        try:
            p.priority = int(spec["priority"])
        except (TypeError, ValueError):
            raise _FieldError("spec.priority", "must be an integer") from None
    else:
        p.priority = int((pc or {}).get("value") or _SYSTEM_PRIORITIES.get(pc_name, 0))
    policy = (
        spec.get("preemptionPolicy") or (pc or {}).get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY
    )
    if policy not in (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER):
        raise _FieldError("spec.preemptionPolicy", f'Unsupported value: "{policy}"')
    p.preemption_policy = str(policy)


# what _set_requests worked out, by the spec parts it reads (pods of one
# template share them: the mirror and the warm state parse thousands alike)
_REQUESTS_SEEN: Memo[tuple[Resource, int, int]] = Memo()


def _requests_key(spec: Mapping[str, Any]) -> bytes | str | None:
    """What the requests depend on; None for a spec that fails (never kept)."""
    parts = [spec.get("resources"), spec.get("overhead")]
    for key in ("containers", "initContainers"):
        items = spec.get(key)
        if items is None:
            parts.append(None)
        elif isinstance(items, list) and all(isinstance(c, MAPPING) for c in items):
            parts.append([(c.get("resources"), c.get("restartPolicy")) for c in items])
        else:
            return None
    return memo_key(parts)


def _set_requests(p: Pod, spec: Mapping[str, Any]) -> None:
    """The pod's requests, and the non-zero CPU and memory scoring counts."""
    key = _requests_key(spec)
    seen = _REQUESTS_SEEN.get(key) if key is not None else None
    if seen is not None:
        p.requests, p.non0_cpu, p.non0_mem = seen[0].clone(), seen[1], seen[2]
        return
    _work_out_requests(p, spec)
    if key is not None:
        _REQUESTS_SEEN.put(key, (p.requests.clone(), p.non0_cpu, p.non0_mem))


def _work_out_requests(p: Pod, spec: Mapping[str, Any]) -> None:
    reqs = _pod_requests(spec, None)
    p.requests = Resource.from_list(reqs)
    pod_level = _effective_requests(spec.get("resources"), "spec.resources")
    # upstream IsPodLevelRequestsSet: any supported pod-level resource, hugepages included
    if any(k in _SUPPORTED_POD_LEVEL or k.startswith("hugepages-") for k in pod_level):
        non_missing = {}
        if CPU not in reqs:
            non_missing[CPU] = Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000)
        if MEMORY not in reqs:
            non_missing[MEMORY] = Fraction(DEFAULT_MEMORY_REQUEST)
    else:
        non_missing = {
            CPU: Fraction(DEFAULT_MILLI_CPU_REQUEST, 1000),
            MEMORY: Fraction(DEFAULT_MEMORY_REQUEST),
        }
    non0 = _pod_requests(spec, non_missing) if non_missing else reqs
    p.non0_cpu = milli_value(non0.get(CPU, Fraction(0)))
    p.non0_mem = value(non0.get(MEMORY, Fraction(0)))


# Built-in classes that exist in every cluster even when a snapshot omits them.
_SYSTEM_PRIORITIES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}
# The built-in classes' values, for readers that resolve priorities as parse_pod does.
SYSTEM_PRIORITIES = dict(_SYSTEM_PRIORITIES)
