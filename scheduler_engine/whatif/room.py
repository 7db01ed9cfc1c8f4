"""Where room could be made for a pod: nodes, and the sets of running pods to take off them.

The search half of defragmentation (:mod:`.defrag` relocates and verifies):
a :class:`RoomProbe` runs the active profile's PreFilter and Filter plugins
for the pending pod on copies of nodes with pods taken off, and
:func:`move_sets` lists the cheapest sets of controller-owned pods whose
departure lets the pod pass the filters, bounded as ``docs/defragmentation.md``
describes.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ..cluster import ClusterState
from ..config import SchedulerConfig
from ..framework.node_info import NodeInfo
from ..framework.registry import Registry
from ..framework.snapshot import Snapshot
from ..objects import Pod
from ..objects.podgroup import index_native_pod_groups
from ..objects.resources import core_amounts
from ..scheduler.build import new_scheduler
from .moves import gpus_of, is_movable, pdb_violations, recreated
from .probe import Prepared, Probe

__all__ = ["MAX_POOL", "MoveSet", "RoomProbe", "fewest_pods", "move_sets", "node_demand"]

# on a node with more movable pods, the sets are drawn from the ones freeing most
MAX_POOL = 12

# -- the probe: the active profile's PreFilter/Filter on nodes with pods taken off ---------


class RoomProbe:
    """One profile's framework over one cluster state, for fit checks on edited nodes."""

    def __init__(
        self, cluster: ClusterState, config: SchedulerConfig, registry: Registry, seed: int
    ) -> None:
        self.cluster = cluster
        running = [p for p in cluster.pods if p.node_name]
        self.snapshot = Snapshot(cluster.nodes, running, cluster.namespaces)
        sched = new_scheduler(
            cluster, self.snapshot, config, registry, rng=random.Random(seed), load_pod_groups=True
        )
        ctx = sched.ctx
        if ctx.feature_gates["GenericWorkload"]:
            ctx.native_pod_groups = index_native_pod_groups(
                cluster.of_kind("PodGroup"), source=cluster.source
            )
            ctx.pod_groups.add_pods(cluster.pods)
        self.probes: dict[str, Probe] = {}
        for name, fwk in sched.frameworks.items():
            # a node no filter passes needs no exact per-node reason here
            fwk.exact_diagnosis = False
            self.probes[name] = Probe(fwk)
        # pod shape → up to two nodes it fits on as the cluster stands
        self._homes: dict[str, list[str]] = {}

    def prepare(self, pod: Pod) -> tuple[Probe, Prepared] | None:
        """PreFilter for ``pod``: its profile's probe and the outcome; None if hopeless."""
        filters = self.probes.get(pod.scheduler_name)
        if filters is None:
            return None
        prep = filters.prepare(pod)
        return None if prep.rejection is not None else (filters, prep)

    def fitting_nodes(self, pod: Pod, to_find: int) -> list[str]:
        """Up to ``to_find`` nodes where ``pod`` passes the filters as the cluster stands."""
        prepared = self.prepare(pod)
        if prepared is None:
            return []
        filters, prep = prepared
        nodes = self.snapshot.node_info_list
        if prep.allowed is not None:
            nodes = [ni for ni in nodes if ni.name in prep.allowed]
        if not nodes:
            return []
        found = filters.fwk.find_nodes_that_pass_filters(prep.state, pod, nodes, 0, to_find)
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
    def fits_without(filters: Probe, prep: Prepared, ni: NodeInfo, gone: Sequence[Pod]) -> bool:
        """Whether the pod passes every filter on ``ni`` once ``gone`` have left it."""
        return filters.fits(*filters.without(prep, ni, gone))


# -- the search on one node ---------------------------------------------------------------


def node_demand(pod: Pod, ni: NodeInfo) -> dict[str, int]:
    """What must be freed on the node, per resource, for the pod's requests to fit."""
    alloc, used, req = ni.allocatable, ni.requested, pod.requests
    out: dict[str, int] = {}
    amounts = core_amounts(req, used, alloc)
    amounts += [
        (k, v, used.scalar.get(k, 0), alloc.scalar.get(k, 0)) for k, v in req.scalar.items()
    ]
    for name, want, taken, have in amounts:
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
class MoveSet:
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
    probe: RoomProbe,
    prepared: tuple[Probe, Prepared],
    pod: Pod,
    ni: NodeInfo,
    movable: list[Pod],
    demand: Mapping[str, int],
    low: int,
    max_moves: int,
    per_node: int,
) -> list[MoveSet]:
    """The smallest sets of movable pods whose departure lets the pod pass the filters."""
    filters, prep = prepared
    check_resources = "NodeResourcesFit" in filters.fwk.plugins
    pool = movable
    if len(pool) > MAX_POOL:
        # the pods freeing most of what is missing, relative to the demand
        def share(p: Pod) -> float:
            return sum(min(_amount(p, r), need) / need for r, need in demand.items())

        pool = sorted(pool, key=lambda p: (-share(p), p.key))[:MAX_POOL]
    out: list[MoveSet] = []
    for k in range(max(low, 1), max_moves + 1):
        combos = [
            c for c in itertools.combinations(pool, k) if not check_resources or _covers(c, demand)
        ]
        combos.sort(key=lambda c: (sum(map(gpus_of, c)), tuple(p.key for p in c)))
        for c in combos:
            if probe.fits_without(filters, prep, ni, c):
                out.append(MoveSet(ni.name, ni.index, c))
                if len(out) >= per_node:
                    break
        if out:
            return out
    return out


def move_sets(
    probe: RoomProbe,
    pod: Pod,
    already: Sequence[Pod],
    max_moves: int,
    want: int,
    stay: frozenset[str] = frozenset(),
    only: Collection[str] | None = None,
) -> list[MoveSet]:
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
    filters, prep = prepared
    subset = prep.allowed
    check_resources = "NodeResourcesFit" in filters.fwk.plugins
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

    found: list[MoveSet] = []
    enumerated = 0
    # nodes that fit the pod once every controller-owned pod is gone
    hopeful: set[int] = set()
    while heap and enumerated < 4 * want:
        low, index = heapq.heappop(heap)
        if len(found) >= want and low > max(len(c.pods) for c in found):
            break
        ni, movable, demand = info[index]
        if index not in hopeful:
            if not probe.fits_without(filters, prep, ni, movable):
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
        if len(pool) < len(movable) and not probe.fits_without(filters, prep, ni, pool):
            continue
        enumerated += 1
        found += _sets_on_node(probe, prepared, pod, ni, pool, demand, low, max_moves, 2)
    found.sort(key=lambda c: c.key)
    return found[:want]
