"""Defragmentation: which running pods to move, and where, so that a pending pod (or gang) fits.

:func:`plan_defragmentation` searches small sets of moves, fewest moves first,
then fewest GPUs disturbed; the search and its bounds are described in
``docs/defragmentation.md``.  Every plan it returns has been verified by the
engine: each moved pod was placed by a real scheduling run under the active
profile (the node being freed cordoned, no preemption), and the pending pods
then schedule on the cluster with the moves applied.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cluster import ClusterState
from ..config import SchedulerConfig
from ..framework.cycle_state import CycleState
from ..framework.handle import FrameworkHandle, SimulationContext
from ..framework.node_info import NodeInfo
from ..framework.pod_group_state import PodGroupStates
from ..framework.registry import Registry
from ..framework.runtime import Framework
from ..framework.snapshot import Snapshot
from ..framework.status import Code
from ..objects import Pod
from ..objects.podgroup import index_native_pod_groups
from ..plugins import coscheduling as cosched
from ..results import PodStatus
from .moves import (
    Move,
    Scheduling,
    bound,
    cordoned,
    gpus_of,
    is_movable,
    pdb_violations,
    recreated,
    replaced,
    with_moves,
)

__all__ = [
    "MAX_CANDIDATES",
    "MAX_MOVES",
    "DefragPlan",
    "fewest_pods",
    "gang_of",
    "move_cost",
    "node_demand",
    "plan_defragmentation",
]

# at most this many pods moved off one node
MAX_MOVES = 4
# at most this many candidate move sets are relocated and verified (each costs two runs)
MAX_CANDIDATES = 12
# on a node with more movable pods, the sets are drawn from the ones freeing most
MAX_POOL = 12


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


# -- the probe: the active profile's PreFilter/Filter on nodes with pods taken off ---------


class _Probe:
    """One profile's framework over one cluster state, for fit checks on edited nodes."""

    def __init__(
        self, cluster: ClusterState, config: SchedulerConfig, registry: Registry, seed: int
    ) -> None:
        self.cluster = cluster
        running = [p for p in cluster.pods if p.node_name]
        self.snapshot = Snapshot(cluster.nodes, running, cluster.namespaces)
        ctx = SimulationContext(
            cluster=cluster, snapshot=self.snapshot, rng=random.Random(seed), clock=0.0
        )
        ctx.feature_gates = dict(config.feature_gates)
        if ctx.feature_gates.get("GenericWorkload"):
            ctx.native_pod_groups = index_native_pod_groups(
                cluster.of_kind("PodGroup"), source=cluster.source
            )
            ctx.pod_groups.add_pods(cluster.pods)
        self.frameworks: dict[str, Framework] = {}
        for prof in config.profiles:
            handle = FrameworkHandle(ctx)
            fwk = Framework(prof, registry, handle)
            handle.framework = fwk
            pl = fwk.plugins.get("Coscheduling")
            if pl is not None:
                pl.load_pod_groups(cluster.source)
            # a node no filter passes needs no exact per-node reason here
            fwk.exact_diagnosis = False
            self.frameworks[prof.scheduler_name] = fwk
        # pod shape → up to two nodes it fits on as the cluster stands
        self._homes: dict[str, list[str]] = {}

    def prepare(self, pod: Pod) -> tuple[Framework, CycleState, set[str] | None] | None:
        """PreFilter for ``pod``: its framework, state and node subset; None if hopeless."""
        fwk = self.frameworks.get(pod.scheduler_name)
        if fwk is None:
            return None
        state = CycleState()
        res, s, _ = fwk.run_pre_filter_plugins(state, pod)
        if s is not None and s.code != Code.SUCCESS:
            return None
        names = set(res.node_names) if res is not None and res.node_names is not None else None
        return fwk, state, names

    def fitting_nodes(self, pod: Pod, to_find: int) -> list[str]:
        """Up to ``to_find`` nodes where ``pod`` passes the filters as the cluster stands."""
        prepared = self.prepare(pod)
        if prepared is None:
            return []
        fwk, state, subset = prepared
        nodes = self.snapshot.node_info_list
        if subset is not None:
            nodes = [ni for ni in nodes if ni.name in subset]
        if not nodes:
            return []
        found = fwk.find_nodes_that_pass_filters(state, pod, nodes, 0, to_find)
        return [ni.name for ni in found.feasible[:to_find]]

    def has_home(self, pod: Pod) -> bool:
        """Whether ``pod`` would fit on some node other than its own (pods alike share it)."""
        shape = json.dumps(
            [pod.namespace, pod.labels, {k: v for k, v in pod.spec.items() if k != "nodeName"}],
            sort_keys=True,
            default=str,
        )
        homes = self._homes.get(shape)
        if homes is None:
            probe_pod = recreated(pod, self.cluster)
            homes = self._homes[shape] = self.fitting_nodes(probe_pod, 2)
        return any(h != pod.node_name for h in homes)

    @staticmethod
    def fits_without(
        fwk: Framework, state: CycleState, pod: Pod, ni: NodeInfo, gone: Sequence[Pod]
    ) -> bool:
        """Whether ``pod`` passes every filter on ``ni`` once ``gone`` have left it."""
        node = ni.clone()
        st = state.clone()
        for p in gone:
            node.remove_pod(p)
            s = fwk.run_pre_filter_extension_remove_pod(st, pod, p, node)
            if s is not None and s.code != Code.SUCCESS:
                return False
        s = fwk.run_filter_plugins_with_nominated_pods(st, pod, node)
        return s is None or s.code == Code.SUCCESS


# -- the search on one node ---------------------------------------------------------------


def node_demand(pod: Pod, ni: NodeInfo) -> dict[str, int]:
    """What must be freed on the node, per resource, for the pod's requests to fit."""
    alloc, used, req = ni.allocatable, ni.requested, pod.requests
    out: dict[str, int] = {}
    pairs = [
        ("cpu", req.milli_cpu, alloc.milli_cpu, used.milli_cpu),
        ("memory", req.memory, alloc.memory, used.memory),
        (
            "ephemeral-storage",
            req.ephemeral_storage,
            alloc.ephemeral_storage,
            used.ephemeral_storage,
        ),
    ]
    pairs += [(k, v, alloc.scalar.get(k, 0), used.scalar.get(k, 0)) for k, v in req.scalar.items()]
    for name, want, have, taken in pairs:
        if want and want > have - taken:
            out[name] = want - (have - taken)
    over = len(ni.pods) + 1 - alloc.allowed_pod_number
    if over > 0:
        out["pods"] = over
    return out


def _amount(p: Pod, name: str) -> int:
    return 1 if name == "pods" else p.requests.get(name)


def _covers(pods: Sequence[Pod], demand: Mapping[str, int]) -> bool:
    return all(sum(_amount(p, r) for p in pods) >= need for r, need in demand.items())


def fewest_pods(movable: Sequence[Pod], demand: Mapping[str, int]) -> int | None:
    """Fewest movable pods whose requests cover the demand (None: even all do not)."""
    bound_ = 0
    for r, need in demand.items():
        amounts = sorted((_amount(p, r) for p in movable), reverse=True)
        total, k = 0, 0
        for a in amounts:
            if total >= need:
                break
            total += a
            k += 1
        if total < need:
            return None
        bound_ = max(bound_, k)
    return bound_


@dataclass(slots=True)
class _Candidate:
    node: str
    index: int
    pods: tuple[Pod, ...]

    @property
    def key(self) -> tuple[int, int, int, tuple[str, ...]]:
        return (
            len(self.pods),
            sum(map(gpus_of, self.pods)),
            self.index,
            tuple(p.key for p in self.pods),
        )


def _sets_on_node(
    probe: _Probe,
    prepared: tuple[Framework, CycleState, set[str] | None],
    pod: Pod,
    ni: NodeInfo,
    movable: list[Pod],
    demand: Mapping[str, int],
    low: int,
    max_moves: int,
    per_node: int,
) -> list[_Candidate]:
    """The smallest sets of movable pods whose departure lets the pod pass the filters."""
    fwk, state, _ = prepared
    check_resources = "NodeResourcesFit" in fwk.plugins
    pool = movable
    if len(pool) > MAX_POOL:
        # the pods freeing most of what is missing, relative to the demand
        def share(p: Pod) -> float:
            return sum(min(_amount(p, r), need) / need for r, need in demand.items())

        pool = sorted(pool, key=lambda p: (-share(p), p.key))[:MAX_POOL]
    out: list[_Candidate] = []
    for k in range(max(low, 1), max_moves + 1):
        combos = [
            c for c in itertools.combinations(pool, k) if not check_resources or _covers(c, demand)
        ]
        combos.sort(key=lambda c: (sum(map(gpus_of, c)), tuple(p.key for p in c)))
        for c in combos:
            if probe.fits_without(fwk, state, pod, ni, c):
                out.append(_Candidate(ni.name, ni.index, c))
                if len(out) >= per_node:
                    break
        if out:
            return out
    return out


def _candidates(
    probe: _Probe,
    pod: Pod,
    already: Sequence[Pod],
    max_moves: int,
    want: int,
    stay: frozenset[str] = frozenset(),
    only: Collection[str] | None = None,
) -> list[_Candidate]:
    """Move sets on every node (or those in ``only``), cheapest first, bounded by ``want``.

    Nodes are taken by the fewest pods that could cover what the pending pod
    lacks there.  A node that does not fit the pod even with every
    controller-owned pod gone is dropped; then a pod counts as movable once it
    is known to fit on another node as the cluster stands and its eviction
    alone (with ``already`` moved) breaks no PodDisruptionBudget.
    """
    prepared = probe.prepare(pod)
    if prepared is None:
        return []
    fwk, state, subset = prepared
    check_resources = "NodeResourcesFit" in fwk.plugins
    exclude = {p.key for p in already} | stay
    heap: list[tuple[int, int]] = []
    info: dict[int, tuple[NodeInfo, list[Pod], dict[str, int]]] = {}
    for ni in probe.snapshot.node_info_list:
        if subset is not None and ni.name not in subset:
            continue
        if only is not None and ni.name not in only:
            continue
        movable = sorted(
            (p for p in ni.pods if is_movable(p) and p.key not in exclude), key=lambda p: p.key
        )
        if not movable:
            continue
        demand = node_demand(pod, ni) if check_resources else {}
        low = fewest_pods(movable, demand)
        if low is None or low > max_moves:
            continue
        info[ni.index] = (ni, movable, demand)
        heap.append((low, ni.index))
    heapq.heapify(heap)
    allowed: dict[str, bool] = {}

    def can_move(p: Pod) -> bool:
        ok = allowed.get(p.key)
        if ok is None:
            ok = allowed[p.key] = not pdb_violations(probe.cluster, [*already, p]) and (
                probe.has_home(p)
            )
        return ok

    found: list[_Candidate] = []
    enumerated = 0
    # nodes that fit the pod once every controller-owned pod is gone
    hopeful: set[int] = set()
    while heap and enumerated < 4 * want:
        low, index = heapq.heappop(heap)
        if len(found) >= want and low > max(len(c.pods) for c in found):
            break
        ni, movable, demand = info[index]
        if index not in hopeful:
            if not probe.fits_without(fwk, state, pod, ni, movable):
                continue
            hopeful.add(index)
        pool = [p for p in movable if can_move(p)]
        new_low = fewest_pods(pool, demand) if pool else None
        if new_low is None or new_low > max_moves:
            continue
        if new_low > low:
            heapq.heappush(heap, (new_low, index))
            continue
        # the pods that cannot move stay: check once with only the rest gone
        if len(pool) < len(movable) and not probe.fits_without(fwk, state, pod, ni, pool):
            continue
        enumerated += 1
        found += _sets_on_node(probe, prepared, pod, ni, pool, demand, low, max_moves, 2)
    found.sort(key=lambda c: c.key)
    return found[:want]


# -- relocation and verification by the engine --------------------------------------------


def _relocate(cluster: ClusterState, cand: _Candidate, sched: Scheduling) -> list[Move] | None:
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
    probe = _Probe(work, sched.config, sched.registry, sched.seed)
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
    for cand in _candidates(probe, member, already, max_moves, max_candidates, stay, nodes):
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
