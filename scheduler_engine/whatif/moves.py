"""Moving running pods in a :class:`ClusterState`: who may move, and the cluster after moves.

A pod may move only when a controller would recreate it after an eviction:
its controller ``ownerReference`` names a ReplicaSet, ReplicationController,
StatefulSet or Job (``objects.owners.MOVABLE_KINDS``).  Bare pods, DaemonSet pods (recreated on the same node
only), static pods (owned by their Node) and pods owned by other kinds are
never moved.  PodDisruptionBudgets are counted as upstream's preemption
counts them (``filter_pods_with_pdb_violation``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cluster import ClusterState
from ..config import SchedulerConfig, load_config
from ..framework.registry import Registry, default_registry
from ..objects import Node, Pod, parse_node, parse_pod
from ..objects.owners import owner_of
from ..plugins.defaultpreemption import filter_pods_with_pdb_violation
from ..results import SimulationResult

__all__ = [
    "Move",
    "Scheduling",
    "cordoned",
    "gpus_of",
    "is_movable",
    "pdb_violations",
    "recreated",
    "with_moves",
]


@dataclass(frozen=True, slots=True)
class Move:
    """Evict ``pod`` from ``source``; its controller's replacement is bound to ``target``."""

    pod: str
    source: str
    target: str
    gpus: int

    def to_dict(self) -> dict[str, str]:
        return {"pod": self.pod, "from": self.source, "to": self.target}


@dataclass(frozen=True, slots=True)
class Scheduling:
    """How plans are checked: ``run`` is :func:`scheduler_engine.simulate` with its options.

    Passed in rather than imported: the simulation itself asks the what-if
    modules for fixes.
    """

    config: SchedulerConfig
    registry: Registry
    seed: int
    run: Callable[..., SimulationResult]

    @classmethod
    def with_defaults(
        cls,
        run: Callable[..., SimulationResult],
        config: SchedulerConfig | None = None,
        *,
        registry: Registry | None = None,
        seed: int = 0,
        feature_gates: Mapping[str, bool] | None = None,
    ) -> Scheduling:
        """``run`` with ``config`` (default: upstream's profile, as ``simulate`` loads it)."""
        registry = registry or default_registry()
        if config is None:
            config = load_config(None, feature_gates=feature_gates, **registry.config_kwargs())
        return cls(config, registry, seed, run)

    def schedule(self, cluster: ClusterState) -> SimulationResult:
        return self.run(cluster, self.config, seed=self.seed, registry=self.registry)


def is_movable(pod: Pod) -> bool:
    """Running, not being deleted, and owned by a controller that recreates it elsewhere."""
    if not pod.node_name or pod.terminating or pod.phase in ("Succeeded", "Failed"):
        return False
    owner = owner_of(pod)
    return owner is not None and owner.moves


def gpus_of(pod: Pod) -> int:
    """GPUs the pod requests, over every ``*/gpu`` extended resource."""
    return sum(v for k, v in pod.requests.scalar.items() if k.endswith("gpu"))


def pdb_violations(cluster: ClusterState, pods: Sequence[Pod]) -> list[Pod]:
    """The pods among ``pods`` whose eviction (all of them together) breaks a PDB."""
    violating, _ = filter_pods_with_pdb_violation(list(pods), cluster.pdbs)
    return violating


def _with_raw(pod: Pod, raw: dict[str, Any], cluster: ClusterState) -> Pod:
    return parse_pod(raw, cluster.priority_classes, source=cluster.source)


def recreated(pod: Pod, cluster: ClusterState) -> Pod:
    """The pod as its controller recreates it: pending, on no node, not nominated."""
    spec = {k: v for k, v in (pod.raw.get("spec") or {}).items() if k != "nodeName"}
    status = {"phase": "Pending"}
    return _with_raw(pod, {**pod.raw, "spec": spec, "status": status}, cluster)


def bound(pod: Pod, node: str, cluster: ClusterState) -> Pod:
    """The pod running on ``node``."""
    spec = {**(pod.raw.get("spec") or {}), "nodeName": node}
    status = {**(pod.raw.get("status") or {}), "phase": "Running"}
    status.pop("nominatedNodeName", None)
    return _with_raw(pod, {**pod.raw, "spec": spec, "status": status}, cluster)


def cordoned(node: Node) -> Node:
    """The node marked unschedulable (``kubectl cordon``)."""
    spec = {**(node.raw.get("spec") or {}), "unschedulable": True}
    return parse_node({**node.raw, "spec": spec})


def replaced(
    cluster: ClusterState,
    pods: Iterable[Pod] | None = None,
    nodes: Iterable[Node] | None = None,
) -> ClusterState:
    """A shallow copy of ``cluster`` with other pods and/or nodes."""
    return cluster.replaced(pods, nodes)


def with_moves(cluster: ClusterState, moves: Sequence[Move]) -> ClusterState:
    """The cluster after ``moves``: each moved pod running on its target node.

    Raises ``KeyError`` naming a pod that is not running on the move's source.
    """
    by_key = {m.pod: m for m in moves}
    pods: list[Pod] = []
    seen: set[str] = set()
    for p in cluster.pods:
        m = by_key.get(p.key)
        if m is None:
            pods.append(p)
            continue
        if p.node_name != m.source:
            raise KeyError(f"{m.pod} is not running on {m.source}")
        pods.append(bound(p, m.target, cluster))
        seen.add(p.key)
    missing = [k for k in by_key if k not in seen]
    if missing:
        raise KeyError(f"{missing[0]} is not a pod of the cluster")
    return replaced(cluster, pods=pods)
