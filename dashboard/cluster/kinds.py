"""The mirrored kinds: how each maps to a model, an API list call and columns.

This table is the one place that knows the Kubernetes object shapes; the
mirror, snapshot import/export and broadcasts all go through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from django.db.models import QuerySet
from django.utils.dateparse import parse_datetime

from scheduler_engine.errors import FieldError, InputError
from scheduler_engine.objects.noderesourcetopology import parse_node_resource_topology
from scheduler_engine.objects.pod import pod_requests
from scheduler_engine.objects.podgroup import parse_native_pod_group
from scheduler_engine.plugins.coscheduling import CoschedulingPodGroup
from scheduler_engine.quantity import milli_value, value

from . import models
from .quantity import is_gpu_resource, to_int, to_milli

__all__ = [
    "KINDS",
    "KINDS_BY_GROUP_KIND",
    "KINDS_BY_KEY",
    "KINDS_BY_KIND",
    "SHARED_KINDS",
    "KindSpec",
    "MalformedObject",
    "Row",
    "describe",
    "object_key",
    "object_row",
    "spec_of",
    "to_row",
]

Obj = dict[str, Any]


class MalformedObject(ValueError):
    """An object the mirror cannot store; the message names the object and field."""


@dataclass(frozen=True, slots=True)
class KindSpec:
    key: str  # plural, used in group names, URLs and logs ("pods")
    kind: str  # "Pod"
    api_version: str  # "v1", "policy/v1", ...
    namespaced: bool
    model: type[models.KubeObject]
    columns: Callable[[Obj], dict[str, Any]]
    # Extra columns in delta payloads sent to websocket clients.
    delta_fields: tuple[str, ...] = ()
    field_selector: str = ""
    # Stored in the shared ``ExtraObject`` table, told apart by its ``kind`` column.
    shared: bool = False
    # The API's plural resource when ``key`` is qualified to stay unique (two
    # groups serving the same kind: ``podgroups.scheduling.x-k8s.io``).
    resource: str = ""
    # The ``kind`` column of a shared row when the kind name alone is not unique.
    stored_kind: str = ""

    @property
    def resource_name(self) -> str:
        """The plural resource of the API (``podgroups``): list calls and RBAC rules."""
        return self.resource or self.key

    @property
    def row_kind(self) -> str:
        """What a shared row's ``kind`` column holds for this kind."""
        return self.stored_kind or self.kind

    @property
    def group(self) -> str:
        """The API group ("" for the core group)."""
        return self.api_version.rpartition("/")[0]

    @property
    def api_path(self) -> str:
        """The collection across namespaces: ``/api/v1/pods``, ``/apis/policy/v1/...``."""
        prefix = "/api" if self.api_version == "v1" else "/apis"  # core group vs named groups
        return f"{prefix}/{self.api_version}/{self.resource_name}"

    @property
    def unique_fields(self) -> tuple[str, ...]:
        """The stored row's identity (the model's unique constraint)."""
        if self.shared:
            return ("cluster", "kind", "namespace", "name")
        return ("cluster", "namespace", "name")

    def rows(self) -> QuerySet:
        """Every stored row of this kind (all clusters): filter on from here."""
        manager = self.model.objects
        return manager.filter(kind=self.row_kind) if self.shared else manager.all()


def describe(obj: Obj) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    kind = obj.get("kind") or "object"
    ns, name = meta.get("namespace"), meta.get("name") or "<unnamed>"
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"


def _dict(obj: Obj, where: str, value: Any) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MalformedObject(
            f"{describe(obj)}: {where} must be a mapping, got {type(value).__name__}"
        )
    return value


def _list(obj: Obj, where: str, value: Any) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MalformedObject(
            f"{describe(obj)}: {where} must be a list, got {type(value).__name__}"
        )
    return value


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return parse_datetime(value)
    except ValueError:
        return None


def _quantity(obj: Obj, where: str, value: Any, convert: Callable[[Any], int]) -> int:
    try:
        return convert(value)
    except ValueError as exc:
        raise MalformedObject(f"{describe(obj)}: {where}: {exc}") from None


def object_key(spec: KindSpec, obj: Obj) -> tuple[str, str]:
    """(namespace, name), validated; raises MalformedObject."""
    if not isinstance(obj, dict):
        raise MalformedObject(f"{spec.kind}: expected a mapping, got {type(obj).__name__}")
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        raise MalformedObject(f"{describe(obj)}: metadata must be a mapping")
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedObject(f"{describe(obj)}: metadata.name is missing")
    ns = meta.get("namespace") or ""
    if not isinstance(ns, str):
        raise MalformedObject(f"{describe(obj)}: metadata.namespace must be a string")
    if spec.namespaced and not ns:
        raise MalformedObject(f"{describe(obj)}: metadata.namespace is missing")
    return (ns if spec.namespaced else ""), name


def _namespace_columns(obj: Obj) -> dict[str, Any]:
    status = _dict(obj, "status", obj.get("status"))
    return {"phase": str(status.get("phase") or "")}


def _node_columns(obj: Obj) -> dict[str, Any]:
    spec = _dict(obj, "spec", obj.get("spec"))
    status = _dict(obj, "status", obj.get("status"))
    capacity = _dict(obj, "status.capacity", status.get("capacity"))
    allocatable = _dict(obj, "status.allocatable", status.get("allocatable"))
    gpu_names = sorted(n for n in {*capacity, *allocatable} if is_gpu_resource(n))
    ready = False
    for cond in _list(obj, "status.conditions", status.get("conditions")):
        if isinstance(cond, dict) and cond.get("type") == "Ready":
            ready = cond.get("status") == "True"
    return {
        "ready": ready,
        "unschedulable": bool(spec.get("unschedulable")),
        "cpu_allocatable_milli": _quantity(
            obj, "status.allocatable.cpu", allocatable.get("cpu", 0), to_milli
        ),
        "memory_allocatable_bytes": _quantity(
            obj, "status.allocatable.memory", allocatable.get("memory", 0), to_int
        ),
        "gpu_capacity": sum(
            _quantity(obj, f"status.capacity[{n}]", capacity.get(n, 0), to_int) for n in gpu_names
        ),
        "gpu_allocatable": sum(
            _quantity(obj, f"status.allocatable[{n}]", allocatable.get(n, 0), to_int)
            for n in gpu_names
        ),
        "gpu_resources": gpu_names,
    }


def _ceil(q: Fraction | int, scale: int = 1) -> int:
    """``value(q)`` (scale 1) or ``milli_value(q)`` (scale 1000) without Fraction arithmetic."""
    if type(q) is Fraction:  # normalised, denominator > 0: ceil(n*s/d) == -(-n*s // d)
        return -(-q.numerator * scale // q.denominator)
    return milli_value(q) if scale == 1000 else value(q)


def _pod_requests(obj: Obj, spec: dict) -> tuple[int, int, int]:
    """Effective (cpu milli, memory bytes, gpus), computed as the scheduler does."""
    try:
        reqs = pod_requests(spec)
    except FieldError as exc:
        raise MalformedObject(f"{describe(obj)}: {exc.field}: {exc.message}") from None
    except (TypeError, AttributeError, ValueError) as exc:
        raise MalformedObject(f"{describe(obj)}: spec: {exc}") from None
    gpus = sum(_ceil(q) for n, q in reqs.items() if is_gpu_resource(n))
    return _ceil(reqs.get("cpu", 0), 1000), _ceil(reqs.get("memory", 0)), gpus


def _pod_columns(obj: Obj) -> dict[str, Any]:
    meta = obj["metadata"]
    spec = _dict(obj, "spec", obj.get("spec"))
    status = _dict(obj, "status", obj.get("status"))
    phase = str(status.get("phase") or "Pending")
    node = spec.get("nodeName") or ""
    if not isinstance(node, str):
        raise MalformedObject(f"{describe(obj)}: spec.nodeName must be a string")
    priority = spec.get("priority")
    if priority is not None and (not isinstance(priority, int) or isinstance(priority, bool)):
        raise MalformedObject(f"{describe(obj)}: spec.priority must be an integer")
    cpu, mem, gpus = _pod_requests(obj, spec)
    waiting = phase == "Pending" and not node
    return {
        "phase": phase,
        "node_name": node,
        "scheduler_name": str(spec.get("schedulerName") or "default-scheduler"),
        "priority": priority,
        "priority_class_name": str(spec.get("priorityClassName") or ""),
        "pending_since": _time(meta.get("creationTimestamp")) if waiting else None,
        "cpu_requested_milli": cpu,
        "memory_requested_bytes": mem,
        "gpu_requested": gpus,
    }


def _pc_columns(obj: Obj) -> dict[str, Any]:
    value = obj.get("value", 0)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MalformedObject(f"{describe(obj)}: value must be an integer")
    return {
        "value": value,
        "global_default": bool(obj.get("globalDefault")),
        "preemption_policy": str(obj.get("preemptionPolicy") or "PreemptLowerPriority"),
    }


def _pdb_columns(obj: Obj) -> dict[str, Any]:
    spec = _dict(obj, "spec", obj.get("spec"))
    status = _dict(obj, "status", obj.get("status"))
    allowed = status.get("disruptionsAllowed")
    return {
        "min_available": "" if spec.get("minAvailable") is None else str(spec["minAvailable"]),
        "max_unavailable": ""
        if spec.get("maxUnavailable") is None
        else str(spec["maxUnavailable"]),
        "disruptions_allowed": allowed if isinstance(allowed, int) else None,
    }


def _positive_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def _event_columns(obj: Obj) -> dict[str, Any]:
    """How often and when last: a repeated event of ``events.k8s.io/v1`` (kube-scheduler
    v1.36 writes those) has ``count`` and ``lastTimestamp`` null in the core view and
    keeps them in ``series.count`` and ``series.lastObservedTime`` instead."""
    involved = _dict(obj, "involvedObject", obj.get("involvedObject"))
    series = _dict(obj, "series", obj.get("series"))
    count = _positive_int(series.get("count")) or _positive_int(obj.get("count")) or 1
    last = (
        series.get("lastObservedTime")
        or obj.get("lastTimestamp")
        or obj.get("eventTime")
        or obj["metadata"].get("creationTimestamp")
    )
    return {
        "reason": str(obj.get("reason") or ""),
        "message": str(obj.get("message") or ""),
        "involved_kind": str(involved.get("kind") or ""),
        "involved_namespace": str(involved.get("namespace") or ""),
        "involved_name": str(involved.get("name") or ""),
        "count": count,
        "last_seen": _time(last),
    }


def _shared(
    key: str,
    kind: str,
    api_version: str,
    namespaced: bool,
    check: Callable[[Obj], Any] | None = None,
    *,
    qualified: bool = False,
) -> KindSpec:
    """A kind of the shared table; ``check`` parses what the engine indexes up front.

    ``qualified``: another group serves the same kind, so the key and the stored
    kind carry the group (``podgroups.scheduling.x-k8s.io``, ``PodGroup.scheduling.x-k8s.io``).
    """
    group = api_version.rpartition("/")[0]
    stored = f"{kind}.{group}" if qualified else ""

    def columns(obj: Obj) -> dict[str, Any]:
        if check is not None:
            try:
                check(obj)
            except InputError as exc:
                raise MalformedObject(
                    f"{exc.obj or describe(obj)}: {exc.field}: {exc.message}"
                ) from None
        return {"kind": stored or kind}

    return KindSpec(
        f"{key}.{group}" if qualified else key,
        kind,
        api_version,
        namespaced,
        models.ExtraObject,
        columns,
        ("kind",),
        shared=True,
        resource=key if qualified else "",
        stored_kind=stored,
    )


# Read whole by the engine's volume, DRA and NodeResourceTopology plugins and its
# hardware view; pages do not filter on them.
SHARED_KINDS: tuple[KindSpec, ...] = (
    _shared("persistentvolumes", "PersistentVolume", "v1", False),
    _shared("persistentvolumeclaims", "PersistentVolumeClaim", "v1", True),
    _shared("storageclasses", "StorageClass", "storage.k8s.io/v1", False),
    _shared("csinodes", "CSINode", "storage.k8s.io/v1", False),
    _shared("csidrivers", "CSIDriver", "storage.k8s.io/v1", False),
    _shared("deviceclasses", "DeviceClass", "resource.k8s.io/v1", False),
    _shared("resourceslices", "ResourceSlice", "resource.k8s.io/v1", False),
    _shared("resourceclaims", "ResourceClaim", "resource.k8s.io/v1", True),
    _shared("resourceclaimtemplates", "ResourceClaimTemplate", "resource.k8s.io/v1", True),
    # the native workload API (v1.36 alpha, served only where the gates are on): the
    # engine reads PodGroups (gang policy, topology constraints), Workloads are shown
    _shared(
        "podgroups",
        "PodGroup",
        "scheduling.k8s.io/v1alpha2",
        True,
        parse_native_pod_group,
    ),
    _shared("workloads", "Workload", "scheduling.k8s.io/v1alpha2", True),
    # scheduler-plugins' Coscheduling PodGroups (served only where its CRD is installed),
    # beside the native ones: same kind name, told apart by the API group
    _shared(
        "podgroups",
        "PodGroup",
        "scheduling.x-k8s.io/v1alpha1",
        True,
        lambda obj: CoschedulingPodGroup(obj),
        qualified=True,
    ),
    # NUMA zones of a node (the topology exporter's CRD; served only where it is installed)
    _shared(
        "noderesourcetopologies",
        "NodeResourceTopology",
        "topology.node.k8s.io/v1alpha2",
        False,
        parse_node_resource_topology,
    ),
)


KINDS: tuple[KindSpec, ...] = (
    KindSpec(
        "namespaces", "Namespace", "v1", False, models.Namespace, _namespace_columns, ("phase",)
    ),
    KindSpec(
        "nodes",
        "Node",
        "v1",
        False,
        models.Node,
        _node_columns,
        ("ready", "unschedulable", "gpu_capacity", "gpu_allocatable"),
    ),
    KindSpec(
        "pods",
        "Pod",
        "v1",
        True,
        models.Pod,
        _pod_columns,
        ("phase", "node_name", "scheduler_name", "priority", "gpu_requested"),
    ),
    KindSpec(
        "priorityclasses",
        "PriorityClass",
        "scheduling.k8s.io/v1",
        False,
        models.PriorityClass,
        _pc_columns,
        ("value",),
    ),
    KindSpec(
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        "policy/v1",
        True,
        models.PodDisruptionBudget,
        _pdb_columns,
        ("disruptions_allowed",),
    ),
    KindSpec(
        "events",
        "Event",
        "v1",
        True,
        models.Event,
        _event_columns,
        ("reason", "involved_namespace", "involved_name", "message"),
        field_selector="reason=FailedScheduling",
    ),
    *SHARED_KINDS,
)

# kind name → spec; where two groups serve a kind (PodGroup), the first listed
# (the native one): use spec_of() for an object
KINDS_BY_KIND: dict[str, KindSpec] = {}
for _k in KINDS:
    KINDS_BY_KIND.setdefault(_k.kind, _k)
KINDS_BY_KEY: dict[str, KindSpec] = {k.key: k for k in KINDS}
# (API group, kind) → spec
KINDS_BY_GROUP_KIND: dict[tuple[str, str], KindSpec] = {(k.group, k.kind): k for k in KINDS}
assert len(KINDS_BY_KEY) == len(KINDS) == len(KINDS_BY_GROUP_KIND), "kinds must be unique"


def spec_of(obj: Any) -> KindSpec | None:
    """The spec of an object by its API group and kind (None when not mirrored).

    An object without ``apiVersion`` is taken by its kind name alone.
    """
    if not isinstance(obj, dict):
        return None
    kind, api = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(api, str) or not api:
        return KINDS_BY_KIND.get(kind) if isinstance(kind, str) else None
    return KINDS_BY_GROUP_KIND.get((api.rpartition("/")[0], kind))


class Row(SimpleNamespace):
    """An object's column values by model attname (``cluster_id``, ``namespace``,
    ``name``, ``uid``, ``resource_version``, ``obj`` and the kind's columns).

    What the mirror writes: building one costs a fraction of a model instance,
    which matters for 50,000 pods; ``spec.model(**vars(row))`` is the same row.
    """


def object_row(spec: KindSpec, cluster_id: int, obj: Obj) -> Row:
    """The columns of ``obj``; raises MalformedObject naming the object."""
    ns, name = object_key(spec, obj)
    # List items come without kind/apiVersion; store them so exports load as-is.
    obj.setdefault("kind", spec.kind)
    obj.setdefault("apiVersion", spec.api_version)
    meta = obj["metadata"]
    try:
        columns = spec.columns(obj)
    except MalformedObject:
        raise
    except (TypeError, AttributeError, KeyError) as exc:
        raise MalformedObject(f"{describe(obj)}: {type(exc).__name__}: {exc}") from None
    return Row(
        cluster_id=cluster_id,
        namespace=ns,
        name=name,
        uid=str(meta.get("uid") or ""),
        resource_version=str(meta.get("resourceVersion") or ""),
        obj=obj,
        **columns,
    )


def to_row(spec: KindSpec, cluster_id: int, obj: Obj) -> models.KubeObject:
    """An unsaved model row for ``obj``; raises MalformedObject naming the object."""
    return spec.model(**vars(object_row(spec, cluster_id, obj)))
