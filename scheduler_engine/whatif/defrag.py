"""Defragmentation: which running pods to move, and where, so that a pending pod (or gang) fits.

:func:`plan_defragmentation` searches small sets of moves, fewest moves first,
then fewest GPUs disturbed; the search and its bounds are described in
``docs/defragmentation.md``.  Every plan it returns has been verified by the
engine: each moved pod was placed by a real scheduling run under the active
profile (the node being freed cordoned, no preemption), and the pending pods
then schedule on the cluster with the moves applied.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cluster import ClusterState
from ..framework.pod_group_state import PodGroupStates
from ..objects import Pod
from ..plugins import coscheduling as cosched
from ..results import PodStatus
from .moves import (
    Move,
    Scheduling,
    bound,
    cordoned,
    gpus_of,
    pdb_violations,
    recreated,
    replaced,
    with_moves,
)
from .room import MoveSet, RoomProbe, move_sets

__all__ = [
    "MAX_CANDIDATES",
    "MAX_MOVES",
    "DefragPlan",
    "gang_of",
    "move_cost",
    "plan_defragmentation",
]

# at most this many pods moved off one node
MAX_MOVES = 4
# at most this many candidate move sets are relocated and verified (each costs two runs)
MAX_CANDIDATES = 12


def move_cost(moves: int, gpus: int) -> float:
    """A plan's cost among fixes (docs/defragmentation.md): per pod moved, a little per GPU."""
    return round(1.5 + moves + gpus / 100, 3)


@dataclass(frozen=True, slots=True)
class DefragPlan:
    """Verified moves after which ``pods`` schedule, and the nodes the moves free."""

    pods: tuple[str, ...]
    moves: tuple[Move, ...]
    freed: tuple[str, ...]
    placements: Mapping[str, str]

    @property
    def gpus_disturbed(self) -> int:
        return sum(m.gpus for m in self.moves)

    @property
    def cost(self) -> float:
        return move_cost(len(self.moves), self.gpus_disturbed)

    def summary(self) -> str:
        n = len(self.moves)
        what = f"{n} pod{'s' if n != 1 else ''}"
        if self.gpus_disturbed:
            what += f" ({self.gpus_disturbed} GPU{'s' if self.gpus_disturbed != 1 else ''})"
        steps = "; ".join(f"{m.pod} {m.source} -> {m.target}" for m in self.moves)
        return f"move {what} to make room on {', '.join(self.freed)}: {steps}"

    def to_fix(self) -> dict[str, Any]:
        """The plan as a ``fixes`` entry of kind ``move``."""
        return {
            "kind": "move",
            "summary": self.summary(),
            "moves": [m.to_dict() for m in self.moves],
            "patch": None,
            "verified": True,
            "cost": self.cost,
            "gpusDisturbed": self.gpus_disturbed,
            "freedNodes": list(self.freed),
            "placements": dict(self.placements),
        }


def _group_keys(pod: Pod) -> set[str]:
    """The pod groups (scheduler-plugins' label, the native API's) the pod belongs to."""
    return {k for k in (cosched.group_full_name(pod), PodGroupStates.key_of(pod)) if k}


def gang_of(cluster: ClusterState, pod: Pod) -> list[Pod]:
    """The pending pods that schedule together with ``pod`` (itself alone if none)."""
    keys = _group_keys(pod)
    if not keys:
        return [pod]
    return [p for p in cluster.pending_pods if p.key == pod.key or keys & _group_keys(p)]


# -- relocation and verification by the engine --------------------------------------------


def _relocate(cluster: ClusterState, cand: MoveSet, sched: Scheduling) -> list[Move] | None:
    """Where the scheduler puts the moved pods, the freed node cordoned; None if not all fit."""
    gone = {p.key for p in cand.pods}
    # only the moved pods are pending: the pod they make room for is not there yet
    pods = [p for p in cluster.pods if p.node_name and p.key not in gone]
    pods += [recreated(p, cluster) for p in cand.pods]
    nodes = [cordoned(n) if n.name == cand.node else n for n in cluster.nodes]
    result = sched.schedule(replaced(cluster, pods=pods, nodes=nodes))
    if result.summary.get("evictions"):
        return None
    by_key = {p.key: p for p in cand.pods}
    moves: list[Move] = []
    for r in result.results:
        if r.status != PodStatus.SCHEDULED or r.victims or not r.node or r.node == cand.node:
            return None
        p = by_key[r.pod]
        moves.append(Move(p.key, cand.node, r.node, gpus_of(p)))
    return moves


def _schedules(
    cluster: ClusterState, pods: Sequence[Pod], sched: Scheduling
) -> dict[str, str] | None:
    """Where ``pods`` go when scheduled on ``cluster`` (no other pending pod), or None."""
    keys = {p.key for p in pods}
    run = [p for p in cluster.pods if p.node_name and p.key not in keys] + list(pods)
    result = sched.schedule(replaced(cluster, pods=run))
    if result.summary.get("evictions"):
        return None
    out: dict[str, str] = {}
    for r in result.results:
        if r.status != PodStatus.SCHEDULED or not r.node:
            return None
        out[r.pod] = r.node
    return out if len(out) == len(pods) else None


def plan_defragmentation(
    cluster: ClusterState,
    pod_key: str,
    sched: Scheduling,
    *,
    max_moves: int = MAX_MOVES,
    max_candidates: int = MAX_CANDIDATES,
    nodes: Collection[str] | None = None,
) -> DefragPlan | None:
    """The cheapest verified plan of moves after which the pending pod ``pod_key`` fits.

    ``sched`` runs the scheduler (``Scheduling(config, registry, seed,
    simulate)``).  A pod of a gang brings its pending siblings: the plan makes
    room for all of them.  ``nodes``, if given, are the only nodes room is
    made on (moved pods may go anywhere).  None when the pod (or gang) schedules already, or
    no plan within the bounds was found.  Raises ``KeyError`` for a pod that
    is not pending in the cluster.
    """
    pod = next((p for p in cluster.pending_pods if p.key == pod_key), None)
    if pod is None:
        raise KeyError(pod_key)
    gang = gang_of(cluster, pod)
    gang_keys = {p.key for p in gang}
    # other pending pods take no part: the question is about this pod (or gang)
    work = replaced(cluster, pods=[p for p in cluster.pods if p.node_name or p.key in gang_keys])
    if _schedules(work, gang, sched) is not None:
        return None
    start = work
    moves: list[Move] = []
    freed: list[str] = []
    for member in gang:
        work, step = _place_member(work, member, moves, sched, max_moves, max_candidates, nodes)
        if step is None:
            return None
        if step:
            moves += step
            freed.append(step[0].source)
    if not moves:
        return None
    placements = _schedules(with_moves(start, moves), gang, sched)
    if placements is None:
        return None
    return DefragPlan(tuple(p.key for p in gang), tuple(moves), tuple(freed), placements)


def _place_member(
    work: ClusterState,
    member: Pod,
    earlier: Sequence[Move],
    sched: Scheduling,
    max_moves: int,
    max_candidates: int,
    nodes: Collection[str] | None,
) -> tuple[ClusterState, list[Move] | None]:
    """The cluster with ``member`` bound and the moves that made room ([] if none were needed)."""
    probe = RoomProbe(work, sched.config, sched.registry, sched.seed)
    if probe.prepare(member) is None:
        return work, None
    fits = probe.fitting_nodes(member, 1)
    if fits:
        return _bind(work, member, fits[0]), []
    moved = {m.pod for m in earlier}
    already = [p for p in work.pods if p.key in moved]
    # the gang's running members stay where they are
    groups = _group_keys(member)
    stay = frozenset(p.key for p in work.pods if p.node_name and groups & _group_keys(p))
    for cand in move_sets(probe, member, already, max_moves, max_candidates, stay, nodes):
        if pdb_violations(work, [*already, *cand.pods]):
            continue
        step = _relocate(work, cand, sched)
        if step is None:
            continue
        return _bind(with_moves(work, step), member, cand.node), step
    return work, None


def _bind(cluster: ClusterState, pod: Pod, node: str) -> ClusterState:
    pods = [bound(p, node, cluster) if p.key == pod.key else p for p in cluster.pods]
    return replaced(cluster, pods=pods)
