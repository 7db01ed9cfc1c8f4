"""A cluster's running state parsed once and kept warm, updated object by object.

``simulate`` builds its :class:`Snapshot` from every running pod each time it
is called; over 50,000 pods that is most of the cost of scheduling one pod.
A :class:`WarmCluster` parses the running state once and follows changes by
deltas (``apply``); ``schedule`` and ``explain_pod`` then run the engine for
the pending pods given, on the warm snapshot itself, and put back what the
run changed.  How the deltas and the undo work is in ``docs/explanations.md``.

Pending pods are not part of the warm state: the caller passes those it asks
about, so an answer is "what would the scheduler do with these pods, given
what is running now?".

Thread-safe: one lock guards changes and runs.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from .cluster import ClusterState, PodDisruptionBudget, _pdb
from .config import SchedulerConfig
from .documents import object_ref
from .errors import InputError
from .framework.node_info import NodeInfo
from .framework.registry import Registry
from .framework.snapshot import STEADY_EXTENSIONS, Snapshot, node_tree_order
from .objects import Node, Pod, parse_node, parse_pod
from .objects.noderesourcetopology import KIND as NRT_KIND
from .objects.noderesourcetopology import NodeResourceTopology, parse_node_resource_topology
from .objects.pod import reparse_pod
from .simulate import default_clock, simulate

__all__ = ["WarmCluster", "object_key"]

Key = tuple[str, str, str]  # kind, namespace, name

_FINISHED = ("Succeeded", "Failed")


def object_key(obj: Mapping[str, Any]) -> Key:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    return (str(obj.get("kind") or ""), str(meta.get("namespace") or ""), str(meta.get("name")))


def _pod_key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _latest(pod: Pod) -> float:
    """The pod's part of the default clock: its latest timestamp (0.0: none)."""
    return default_clock((pod,), ())


def _images(node: Node) -> Any:
    return (node.raw.get("status") or {}).get("images")


# past this many logged changes the kept views are rebuilt rather than followed
_LOG_LIMIT = 100_000


def _forget_views(snap: Snapshot) -> None:
    snap.extensions = {}
    snap.listeners = []
    snap.change_log = []


class WarmCluster:
    """Running state of one cluster, parsed once and updated by deltas."""

    def __init__(self, objects: Iterable[Mapping[str, Any]] = (), *, source: str | None = None):
        self.source = source
        self._lock = threading.RLock()
        self._nodes: dict[str, Node] = {}  # insertion order = the cache's node order
        self._infos: dict[str, NodeInfo] = {}
        self._snap: Snapshot | None = None  # node order + image states; None = rebuild
        self._pods: dict[str, Pod] = {}  # running pods by namespace/name
        self._by_node: dict[str, dict[str, Pod]] = {}
        self._ns_of_pods: Counter[str] = Counter()
        self._priority_classes: dict[str, Mapping[str, Any]] = {}
        self._pdbs: dict[Key, PodDisruptionBudget] = {}
        self._namespaces: dict[str, Mapping[str, str]] = {}
        self._objects: dict[str, dict[Key, Mapping[str, Any]]] = {}
        # NodeResourceTopologies parsed once, on arrival (state() hands them over as they are)
        self._topologies: dict[str, NodeResourceTopology] = {}
        # objects the engine cannot parse: skipped, with the one-line reason
        self.rejected: dict[Key, str] = {}
        # the default clock of the running pods and PodGroups, followed by the changes
        # that cannot lower it; None: work it out again
        self._clock: float | None = None
        # node infos changed during an ``apply``, announced once at its end (None: not in one)
        self._dirty: dict[int, NodeInfo] | None = None
        self.apply(objects)

    # -- changes -------------------------------------------------------------
    def apply(
        self,
        upserts: Iterable[Mapping[str, Any]] = (),
        deletes: Iterable[Key] = (),
    ) -> None:
        """Add or replace ``upserts`` (full objects) and remove ``deletes`` (kind, ns, name).

        An object the engine cannot parse is skipped (its previous version, if
        any, is removed) and recorded in ``rejected``.
        """
        ups = list(upserts)
        with self._lock:
            self._dirty = {}
            try:
                self._apply(ups, deletes)
            finally:
                dirty, self._dirty = self._dirty, None
                for ni in dirty.values():
                    self._touched(ni)

    def _apply(self, ups: list[Mapping[str, Any]], deletes: Iterable[Key]) -> None:
        # priority classes first: pods resolve their priority through them
        pcs = [o for o in ups if o.get("kind") == "PriorityClass"]
        pc_deletes = [k for k in deletes if k[0] == "PriorityClass"]
        deletes = [k for k in deletes if k[0] != "PriorityClass"]
        if pcs or pc_deletes:
            for o in pcs:
                self._priority_classes[object_key(o)[2]] = o
            for k in pc_deletes:
                self._priority_classes.pop(k[2], None)
            self._reparse_pods()
        for key in deletes:
            self._delete(key)
        for o in ups:
            if o.get("kind") != "PriorityClass":
                self._upsert(o)

    def _reject(self, key: Key, exc: InputError) -> None:
        self.rejected[key] = exc.one_line()
        self._delete(key)

    def _upsert(self, obj: Mapping[str, Any]) -> None:
        key = object_key(obj)
        kind = key[0]
        self.rejected.pop(key, None)
        try:
            if kind == "Node":
                self._put_node(parse_node(obj, source=self.source))
            elif kind == "Pod":
                old = self._pods.get(f"{key[1] or 'default'}/{key[2]}")
                same = reparse_pod(old, obj) if old is not None else None
                if same is not None:
                    self._swap_pod(old, same)
                else:
                    self._put_pod(parse_pod(obj, self._priority_classes, source=self.source))
            elif kind == "PodDisruptionBudget":
                self._pdbs[key] = _pdb(obj, self.source)
            elif kind == "Namespace":
                meta = obj.get("metadata") or {}
                self._namespaces[key[2]] = dict(meta.get("labels") or {})
            elif kind:
                if kind == "PodGroup":
                    self._clock = None  # its creation counts (default_clock)
                if kind == NRT_KIND:
                    self._topologies[key[2]] = parse_node_resource_topology(obj, source=self.source)
                self._objects.setdefault(kind, {})[key] = obj
        except InputError as exc:
            self._reject(key, exc)

    def _delete(self, key: Key) -> None:
        kind, ns, name = key
        if kind == "Node":
            if self._nodes.pop(name, None) is not None:
                self._infos.pop(name, None)
                self._snap = None
        elif kind == "Pod":
            self._drop_pod(f"{ns}/{name}")
        elif kind == "PodDisruptionBudget":
            self._pdbs.pop(key, None)
        elif kind == "Namespace":
            self._namespaces.pop(name, None)
        elif kind == "PriorityClass":
            if self._priority_classes.pop(name, None) is not None:
                self._reparse_pods()
        else:
            if kind == "PodGroup":
                self._clock = None
            self._objects.get(kind, {}).pop(key, None)
            if kind == NRT_KIND:
                self._topologies.pop(name, None)

    def _new_info(self, node: Node, index: int) -> NodeInfo:
        ni = NodeInfo(node, index)
        for pod in self._by_node.get(node.name, {}).values():
            ni.add_pod(pod)
        return ni

    def _put_node(self, node: Node) -> None:
        old = self._nodes.get(node.name)
        self._nodes[node.name] = node
        prev = self._infos.get(node.name)
        ni = self._new_info(node, prev.index if prev is not None else -1)
        self._infos[node.name] = ni
        snap = self._snap
        if (
            snap is None
            or old is None
            or prev is None
            or old.zone_key != node.zone_key
            or _images(old) != _images(node)
        ):
            self._snap = None  # order or image states change
            return
        ni.image_states = prev.image_states
        snap.node_info_list[ni.index] = ni
        snap._by_name[node.name] = ni
        self._touched(ni)
        _forget_views(snap)  # they read the node infos they were built from

    def _put_pod(self, pod: Pod) -> None:
        self._drop_pod(pod.key)
        if not pod.node_name or pod.phase in _FINISHED:
            return  # pending or finished: not part of the running state
        self._pods[pod.key] = pod
        if self._clock is not None:  # the latest timestamp only grows by an addition
            t = _latest(pod)
            self._clock = max(self._clock, t) if t > 0 and self._clock > 0 else None
        self._by_node.setdefault(pod.node_name, {})[pod.key] = pod
        self._ns_of_pods[pod.namespace] += 1
        ni = self._infos.get(pod.node_name)
        if ni is not None:
            ni.add_pod(pod)
            self._touched(ni)

    def _swap_pod(self, old: Pod, new: Pod) -> None:
        """Put ``new`` in the place of ``old``: parsed alike, so same node, same sums."""
        self._pods[new.key] = new
        self._by_node[new.node_name][new.key] = new
        ni = self._infos.get(new.node_name)
        if ni is not None:
            ni.replace_pod(old, new)
            self._touched(ni)

    def _drop_pod(self, key: str) -> None:
        pod = self._pods.pop(key, None)
        if pod is None:
            return
        if self._clock is not None and _latest(pod) >= self._clock:
            self._clock = None  # it may have been the latest: work it out again
        per = self._by_node.get(pod.node_name)
        if per is not None:
            per.pop(key, None)
            if not per:
                del self._by_node[pod.node_name]
        self._ns_of_pods[pod.namespace] -= 1
        if self._ns_of_pods[pod.namespace] <= 0:
            del self._ns_of_pods[pod.namespace]
        ni = self._infos.get(pod.node_name)
        if ni is not None:
            ni.remove_pod(pod)
            self._touched(ni)

    def _touched(self, ni: NodeInfo) -> None:
        if self._dirty is not None:  # in an apply: once, at its end
            self._dirty[id(ni)] = ni
            return
        snap = self._snap
        if snap is not None and snap.get(ni.name) is ni:
            # the kept views (node tables, affinity counts) follow it
            snap.node_changed(ni)

    def _reparse_pods(self) -> None:
        pods = list(self._pods.values())
        for pod in pods:
            self._drop_pod(pod.key)
        for pod in pods:
            try:
                self._put_pod(parse_pod(pod.raw, self._priority_classes, source=self.source))
            except InputError as exc:
                self.rejected[object_key({**pod.raw, "kind": "Pod"})] = exc.one_line()

    def _snapshot(self) -> Snapshot:
        if self._snap is None:
            order = node_tree_order(self._nodes.values())
            infos = []
            for i, node in enumerate(order):
                ni = self._infos[node.name]
                ni.index = i
                infos.append(ni)
            snap = Snapshot.from_node_infos(infos)
            snap._compute_image_states(list(self._nodes.values()))
            self._snap = snap
        return self._snap

    def _undo(self, snap: Snapshot, mark: int) -> None:
        """Put back the node infos a simulation changed (cheaper than copying 5,000).

        In place, announced to the snapshot: the views that follow its changes
        (``STEADY_EXTENSIONS``) stay warm for the next run; the others go.
        """
        for index in sorted(set(snap.change_log[mark:])):
            ni = snap.node_info_list[index]
            ni.reset_pods(self._by_node.get(ni.name, {}).values())
            snap.node_changed(ni)
        kept = {k: v for k, v in snap.extensions.items() if k in STEADY_EXTENSIONS}
        if len(snap.change_log) > _LOG_LIMIT or len(kept) < len(snap.extensions):
            owners = [id(v) for v in kept.values()]
            snap.listeners = [
                cb for cb in snap.listeners if id(getattr(cb, "__self__", None)) in owners
            ]
            snap.extensions = kept
        if len(snap.change_log) > _LOG_LIMIT:
            _forget_views(snap)
        snap.namespace_labels = {}
        snap._with_affinity = None
        snap._with_required_anti_affinity = None

    # -- reads ---------------------------------------------------------------
    @property
    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                "nodes": len(self._nodes),
                "runningPods": len(self._pods),
                "priorityClasses": len(self._priority_classes),
                "podDisruptionBudgets": len(self._pdbs),
                "namespaces": len(self._namespaces),
                "otherObjects": sum(map(len, self._objects.values())),
                "rejected": len(self.rejected),
            }

    def _namespace_labels(self, *extra: str) -> dict[str, Mapping[str, str]]:
        out: dict[str, Mapping[str, str]] = {}
        for ns in {*self._namespaces, *self._ns_of_pods, *extra}:
            labels = dict(self._namespaces.get(ns) or {})
            labels.setdefault("kubernetes.io/metadata.name", ns)
            out[ns] = labels
        return out

    def state(self, *pending: Pod, extra_namespace: str = "") -> ClusterState:
        """The warm state as a :class:`ClusterState` (running pods, then ``pending``).

        The namespaces of ``pending`` (and ``extra_namespace``) exist implicitly,
        as :func:`build_cluster` makes those of every pod exist.
        """
        with self._lock:
            return ClusterState(
                nodes=list(self._nodes.values()),
                pods=[*self._pods.values(), *pending],
                priority_classes=dict(self._priority_classes),
                pdbs=list(self._pdbs.values()),
                namespaces=self._namespace_labels(
                    *(p.namespace for p in pending), *filter(None, [extra_namespace])
                ),
                objects={k: list(v.values()) for k, v in self._objects.items()},
                node_topologies=dict(self._topologies),
                source=self.source,
                # every warm pod is bound, and ``pending`` none (``_pending``)
                running_first=len(self._pods),
            )

    def _pending(self, pod_obj: Mapping[str, Any]) -> Pod:
        obj = {**pod_obj, "kind": "Pod"}
        pod = parse_pod(obj, self._priority_classes, source=self.source or "pod")
        if pod.node_name:
            raise InputError(
                "is set: the pod is bound, there is nothing to explain",
                file=self.source,
                obj=object_ref(obj),
                field="spec.nodeName",
            )
        return pod

    def schedule(
        self,
        pod_objs: Iterable[Mapping[str, Any]],
        config: SchedulerConfig | None = None,
        *,
        seed: int = 0,
        explain: bool = False,
        registry: Registry | None = None,
        whatif: bool = False,
    ) -> dict[str, Any]:
        """Schedule pending pods on the running state, in queue order, one after another.

        What a fresh ``simulate`` of the running state plus these pods returns
        (the CLI contract's document); the warm state is left as it was.
        Raises :class:`InputError` for a pod that does not parse or is bound.
        """
        with self._lock:
            pods = [self._pending(o) for o in pod_objs]
            state = self.state(*pods)
            snap = self._snapshot()
            mark = len(snap.change_log)
            if self._clock is None:  # a pass over every running pod, once per change
                self._clock = default_clock(self._pods.values(), state.of_kind("PodGroup"))
            try:
                return simulate(
                    state,
                    config,
                    seed=seed,
                    explain=explain,
                    snapshot=snap,
                    registry=registry,
                    whatif=whatif,
                    now=max(self._clock, default_clock(pods, ())),
                ).to_dict()
            finally:
                self._undo(snap, mark)

    def explain_pod(
        self,
        pod_obj: Mapping[str, Any],
        config: SchedulerConfig | None = None,
        *,
        seed: int = 0,
        registry: Registry | None = None,
        whatif: bool = True,
    ) -> dict[str, Any]:
        """Schedule one pending pod on the running state, with explanations.

        Returns the pod's result as in the CLI contract (``--explain``, so with
        ``nearest`` and ``fixes`` when it does not fit, unless ``whatif`` is
        False) with the run's ``summary``.  Raises :class:`InputError` for a
        pod that does not parse or is already bound.
        """
        result = self.schedule(
            [pod_obj], config, seed=seed, explain=True, registry=registry, whatif=whatif
        )
        pod = result["results"][0] if result["results"] else {"pod": _pod_key(pod_obj)}
        pod["summary"] = result["summary"]
        return pod
