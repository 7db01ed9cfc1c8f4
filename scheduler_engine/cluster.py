"""A cluster as the engine receives it: every object of a snapshot, parsed.

Pods with ``spec.nodeName`` are running; the others wait to be scheduled.
Kinds the engine does not model yet are kept as plain dicts in ``objects``
(by kind) so plugins can read them.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .collector import collector_paused
from .documents import object_ref, read_objects
from .errors import FieldError, InputError
from .objects import LabelSelector, Node, Pod, parse_label_selector, parse_node, parse_pod
from .objects.noderesourcetopology import KIND as NRT_KIND
from .objects.noderesourcetopology import NodeResourceTopology, parse_node_resource_topology
from .objects.selectors import SelectorError
from .objects.validation import node_errors, pod_errors

__all__ = [
    "MAX_REPORTED_ERRORS",
    "ClusterState",
    "PodDisruptionBudget",
    "build_cluster",
    "index_topologies",
    "load_cluster",
    "object_errors",
    "validate_objects",
]


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    selector: LabelSelector
    disruptions_allowed: int
    # pods the disruption controller already counts as being evicted
    disrupted_pods: frozenset[str]
    raw: Mapping[str, Any]

    def matches(self, pod: Pod) -> bool:
        # an empty selector matches nothing for policy/v1 in the scheduler's use
        return (
            pod.namespace == self.namespace
            and not self.selector.empty
            and self.selector.matches(pod.labels)
        )


@dataclass(slots=True)
class ClusterState:
    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    priority_classes: dict[str, Mapping[str, Any]] = field(default_factory=dict)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    # namespace → labels
    namespaces: dict[str, Mapping[str, str]] = field(default_factory=dict)
    # every other object, by kind (PersistentVolume, ResourceSlice, ...)
    objects: dict[str, list[Mapping[str, Any]]] = field(default_factory=dict)
    # node name → its NodeResourceTopology (the raw objects are also in ``objects``)
    node_topologies: dict[str, NodeResourceTopology] = field(default_factory=dict)
    source: str | None = None
    # when known: ``pods[:running_first]`` are all running and the rest all pending
    # (what a caller holding them apart saves each run a pass over every pod)
    running_first: int | None = None

    def __post_init__(self) -> None:
        if not self.node_topologies and self.objects.get(NRT_KIND):
            self.node_topologies = index_topologies(self.objects[NRT_KIND], source=self.source)

    def with_pending_copied(self) -> ClusterState:
        """A working copy for one run: pending pods are copied, since scheduling sets
        their node and nomination; running pods are shared."""
        n = self.running_first
        if n is None:
            return self.replaced(pods=[p if p.node_name else copy.copy(p) for p in self.pods])
        return self.replaced(pods=[*self.pods[:n], *map(copy.copy, self.pods[n:])])

    def replaced(
        self, pods: Iterable[Pod] | None = None, nodes: Iterable[Node] | None = None
    ) -> ClusterState:
        """A shallow copy (lists and dicts copied, objects shared), with other pods
        and/or nodes when given."""
        return ClusterState(
            nodes=list(self.nodes if nodes is None else nodes),
            pods=list(self.pods if pods is None else pods),
            priority_classes=dict(self.priority_classes),
            pdbs=list(self.pdbs),
            namespaces=dict(self.namespaces),
            objects={k: list(v) for k, v in self.objects.items()},
            node_topologies=dict(self.node_topologies),
            source=self.source,
        )

    @property
    def running_pods(self) -> list[Pod]:
        return [p for p in self.pods if p.node_name]

    @property
    def pending_pods(self) -> list[Pod]:
        return [p for p in self.pods if not p.node_name]

    def of_kind(self, kind: str) -> list[Mapping[str, Any]]:
        return self.objects.get(kind, [])


def index_topologies(
    objs: Iterable[Mapping[str, Any]], *, source: str | None = None
) -> dict[str, NodeResourceTopology]:
    """NodeResourceTopology objects by node name; a second one for a node is an error."""
    out: dict[str, NodeResourceTopology] = {}
    for o in objs:
        nrt = parse_node_resource_topology(o, source=source)
        if nrt.name in out:
            raise InputError(
                "duplicate object", file=source, obj=f"{NRT_KIND} {nrt.name}", field="metadata.name"
            )
        out[nrt.name] = nrt
    return out


def _pdb(obj: Mapping[str, Any], source: str | None) -> PodDisruptionBudget:
    meta = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    ref = object_ref(dict(obj))
    try:
        sel_raw = spec.get("selector")
        selector = parse_label_selector(sel_raw if sel_raw is not None else {}, "spec.selector")
    except SelectorError as exc:
        raise InputError(exc.message, file=source, obj=ref, field=exc.field) from None
    try:
        allowed = int(status.get("disruptionsAllowed") or 0)
    except (TypeError, ValueError):
        raise InputError(
            "must be an integer", file=source, obj=ref, field="status.disruptionsAllowed"
        ) from None
    return PodDisruptionBudget(
        namespace=str(meta.get("namespace") or "default"),
        name=str(meta.get("name") or ""),
        selector=selector,
        disruptions_allowed=allowed,
        disrupted_pods=frozenset((status.get("disruptedPods") or {}).keys()),
        raw=obj,
    )


# how many problems a refusal lists (the first names file, object and field)
MAX_REPORTED_ERRORS = 20


def object_errors(
    objects: Iterable[Mapping[str, Any]], limit: int = MAX_REPORTED_ERRORS
) -> tuple[list[tuple[str, FieldError]], int]:
    """The first ``limit`` problems the API server would report, each with its object
    (``Pod ns/name``), and how many there are in all."""
    found: list[tuple[str, FieldError]] = []
    total = 0
    for obj in objects:
        if not isinstance(obj, Mapping):
            continue
        kind = obj.get("kind")
        if kind == "Pod":
            errors = pod_errors(obj)
        elif kind == "Node":
            errors = node_errors(obj)
        else:
            continue
        if not errors:
            continue
        total += len(errors)
        ref = object_ref(dict(obj))
        if kind == "Pod" and "/" not in ref.split(" ", 1)[1]:
            ref = ref.replace("Pod ", "Pod default/", 1)
        found += [(ref, e) for e in errors[: max(0, limit - len(found))]]
    return found, total


def validate_objects(objects: Iterable[Mapping[str, Any]], *, source: str | None = None) -> None:
    """Refuse Pods and Nodes the API server would refuse, in its words.

    Raises :class:`InputError` naming the file, the object and the field of
    the first problem, and how many more there are (``... (and 3 more)``);
    ``errors`` on it lists up to :data:`MAX_REPORTED_ERRORS` of them.
    Snapshot files (:func:`load_cluster`, the CLI) and the dashboard's uploads
    pass through it; :func:`build_cluster` itself takes objects as given, as
    upstream's unit tests build them.
    """
    found, total = object_errors(objects)
    if not found:
        return
    ref, first = found[0]
    more = f" (and {total - 1} more)" if total > 1 else ""
    error = InputError(first.message + more, file=source, obj=ref, field=first.field)
    error.errors = found
    error.total = total
    raise error


def build_cluster(
    objects: Iterable[Mapping[str, Any]], *, source: str | None = None
) -> ClusterState:
    """Parse objects (any order) into a :class:`ClusterState`.

    Raises :class:`InputError` naming the object and field of the first bad one.
    The cyclic collector is paused meanwhile (:mod:`.collector`).
    """
    with collector_paused():
        return _build_cluster(list(objects), source)


def _build_cluster(objs: list[Mapping[str, Any]], source: str | None) -> ClusterState:
    cluster = ClusterState(source=source)
    for o in objs:
        if not isinstance(o, Mapping):
            raise InputError("expected a Kubernetes object (a mapping)", file=source)
        if not o.get("kind"):
            raise InputError("is required", file=source, obj=object_ref(dict(o)), field="kind")
        if o["kind"] == "PriorityClass":
            name = (o.get("metadata") or {}).get("name")
            if not name:
                raise InputError(
                    "is required", file=source, obj="PriorityClass", field="metadata.name"
                )
            if not isinstance(o.get("value"), int):
                raise InputError(
                    "must be an integer", file=source, obj=object_ref(dict(o)), field="value"
                )
            cluster.priority_classes[str(name)] = o
    seen_pods: set[str] = set()
    seen_nodes: set[str] = set()
    for o in objs:
        kind = o["kind"]
        if kind == "Node":
            node = parse_node(o, source=source)
            if node.name in seen_nodes:
                raise InputError(
                    "duplicate object", file=source, obj=f"Node {node.name}", field="metadata.name"
                )
            seen_nodes.add(node.name)
            cluster.nodes.append(node)
        elif kind == "Pod":
            pod = parse_pod(o, cluster.priority_classes, source=source)
            if pod.key in seen_pods:
                raise InputError(
                    "duplicate object", file=source, obj=f"Pod {pod.key}", field="metadata.name"
                )
            seen_pods.add(pod.key)
            # finished pods hold no resources and are never scheduled
            if pod.phase in ("Succeeded", "Failed"):
                continue
            cluster.pods.append(pod)
        elif kind == "PodDisruptionBudget":
            cluster.pdbs.append(_pdb(o, source))
        elif kind == "Namespace":
            meta = o.get("metadata") or {}
            cluster.namespaces[str(meta.get("name"))] = dict(meta.get("labels") or {})
        elif kind != "PriorityClass":
            cluster.objects.setdefault(kind, []).append(o)
    cluster.node_topologies = index_topologies(cluster.of_kind(NRT_KIND), source=source)
    # namespaces that pods use exist implicitly, with the label the API server sets
    for ns in {p.namespace for p in cluster.pods} | set(cluster.namespaces):
        labels = dict(cluster.namespaces.get(ns) or {})
        labels.setdefault("kubernetes.io/metadata.name", ns)
        cluster.namespaces[ns] = labels
    return cluster


def load_cluster(path: str | os.PathLike[str]) -> ClusterState:
    """Read, validate (:func:`validate_objects`) and parse a snapshot file or directory."""
    objects = read_objects(path)
    validate_objects(objects, source=str(path))
    return build_cluster(objects, source=str(path))
