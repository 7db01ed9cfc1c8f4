"""Pod groups of the native workload API (``scheduling.k8s.io/v1alpha2``, v1.36 alpha).

A ``PodGroup`` says how its pods are scheduled: ``spec.schedulingPolicy``
(``basic`` or ``gang`` with ``minCount``) and optional
``spec.schedulingConstraints.topology[].key``; pods join it with
``spec.schedulingGroup.podGroupName`` (same namespace).  A ``Workload``
holds ``spec.podGroupTemplates`` that a controller stamps PodGroups from; the
scheduler itself reads only PodGroups, so a Workload is kept for display.

scheduler-plugins' ``PodGroup`` (``scheduling.x-k8s.io``) has the same kind:
the API group tells them apart (:func:`is_native_pod_group`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError

__all__ = [
    "COSCHEDULING_LABEL",
    "NATIVE_API_VERSION",
    "NATIVE_GROUP",
    "NativePodGroup",
    "index_native_pod_groups",
    "is_native_pod_group",
    "parse_native_pod_group",
    "pod_group_name",
]

NATIVE_GROUP = "scheduling.k8s.io"
NATIVE_API_VERSION = "scheduling.k8s.io/v1alpha2"
KIND = "PodGroup"
# how a pod joins a scheduler-plugins PodGroup (the Coscheduling plugin's)
COSCHEDULING_LABEL = "scheduling.x-k8s.io/pod-group"


def is_native_pod_group(obj: Mapping[str, Any]) -> bool:
    """A ``PodGroup`` of the native API (not scheduler-plugins' ``scheduling.x-k8s.io``)."""
    api = str(obj.get("apiVersion") or "")
    return obj.get("kind") == KIND and api.split("/", 1)[0] == NATIVE_GROUP


def pod_group_name(raw_pod: Mapping[str, Any]) -> str | None:
    """``spec.schedulingGroup.podGroupName`` of a pod, or None."""
    spec = raw_pod.get("spec") or {}
    sg = spec.get("schedulingGroup") if isinstance(spec, Mapping) else None
    if not isinstance(sg, Mapping):
        return None
    name = sg.get("podGroupName")
    return str(name) if name else None


@dataclass(frozen=True, slots=True)
class NativePodGroup:
    namespace: str
    name: str
    # None: the basic policy (no gang)
    min_count: int | None
    # the first topology constraint's key (the only one v1.36 reads), or None
    topology_key: str | None
    # whether spec.schedulingConstraints is set at all (DefaultPreemption checks non-nil)
    has_constraints: bool
    raw: Mapping[str, Any]

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def parse_native_pod_group(obj: Mapping[str, Any], *, source: str | None = None) -> NativePodGroup:
    meta = obj.get("metadata") or {}
    ns = str(meta.get("namespace") or "default")
    name = str(meta.get("name") or "")
    ref = f"PodGroup {ns}/{name}"

    def bad(field: str, msg: str) -> InputError:
        return InputError(msg, file=source, obj=ref, field=field)

    def optional_object(
        parent: Mapping[str, Any], key: str, field: str
    ) -> Mapping[str, Any] | None:
        value = parent.get(key)
        if value is not None and not isinstance(value, Mapping):
            raise bad(field, "must be an object")
        return value

    if not name:
        raise bad("metadata.name", "is required")
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        raise bad("spec", "is required")
    policy = spec.get("schedulingPolicy")
    if not isinstance(policy, Mapping):
        raise bad("spec.schedulingPolicy", "is required")
    gang = optional_object(policy, "gang", "spec.schedulingPolicy.gang")
    min_count: int | None = None
    if gang is not None:
        mc = gang.get("minCount")
        if isinstance(mc, bool) or not isinstance(mc, int) or mc < 1:
            raise bad("spec.schedulingPolicy.gang.minCount", "must be an integer of at least 1")
        min_count = mc
        if policy.get("basic") is not None:
            raise bad("spec.schedulingPolicy", "may set only one of basic and gang")
    cons = optional_object(spec, "schedulingConstraints", "spec.schedulingConstraints")
    topo_key: str | None = None
    if cons is not None:
        topo = cons.get("topology") or []
        if not isinstance(topo, list):
            raise bad("spec.schedulingConstraints.topology", "must be a list")
        for i, t in enumerate(topo):
            if not isinstance(t, Mapping) or not t.get("key"):
                raise bad(f"spec.schedulingConstraints.topology[{i}].key", "is required")
        if topo:
            topo_key = str(topo[0]["key"])
    return NativePodGroup(ns, name, min_count, topo_key, cons is not None, obj)


def index_native_pod_groups(
    objects: Iterable[Mapping[str, Any]], *, source: str | None = None
) -> dict[str, NativePodGroup]:
    """Native PodGroups by ``namespace/name`` (other PodGroup kinds are skipped)."""
    out: dict[str, NativePodGroup] = {}
    for o in objects:
        if is_native_pod_group(o):
            pg = parse_native_pod_group(o, source=source)
            out[pg.key] = pg
    return out
