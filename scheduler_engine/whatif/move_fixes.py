"""The ``move`` fixes: defragmentation plans (:mod:`.defrag`) offered beside the other changes.

The producer is cheap until it is verified: it yields one candidate whose
cost is the least any plan could have (the fewest pods that could make room
on a node, by their requests), and only :func:`~.fixes.gather` reaching it
in cost order runs the search, which fills in the plan it verified.  It is
tried only for pods that request GPUs, and room is made only on the nodes
that reject the pod for resources alone (``NodeResourcesFit``).
"""

from __future__ import annotations

from collections.abc import Iterable

from .defrag import move_cost, plan_defragmentation
from .fixes import Candidate, Fix, WhatIf
from .moves import gpus_of, is_movable
from .room import fewest_pods, node_demand

__all__ = ["move_candidates"]

RESOURCES_ONLY = "NodeResourcesFit"


def _fewest_moves(ctx: WhatIf, nodes: set[str]) -> int | None:
    best: int | None = None
    for ni in ctx.probe.snapshot.node_info_list:
        if ni.name not in nodes:
            continue
        movable = [p for p in ni.pods if is_movable(p)]
        if not movable:
            continue
        low = fewest_pods(movable, node_demand(ctx.pod, ni))
        if low is not None and low > 0 and (best is None or low < best):
            best = low
    return best


def move_candidates(ctx: WhatIf) -> Iterable[Candidate]:
    """One candidate plan of moves, searched and verified only when its turn comes."""
    sched = ctx.scheduling
    pod = ctx.pod
    if sched is None or not gpus_of(pod):
        return
    # the nodes that lack only resources for it: room is made on one of those
    nodes = {g.node for g in ctx.only(RESOURCES_ONLY, limit=len(ctx.gaps))}
    low = _fewest_moves(ctx, nodes) if nodes else None
    if low is None:
        return
    fix = Fix("move", "", None, move_cost(low, 0))

    def verify() -> bool:
        try:
            plan = plan_defragmentation(ctx.cluster, pod.key, sched, nodes=nodes)
        except KeyError:
            return False
        if plan is None:
            return False
        found = plan.to_fix()
        fix.summary, fix.cost = found["summary"], found["cost"]
        fix.node = plan.placements.get(pod.key)
        fix.extra = {k: found[k] for k in ("moves", "gpusDisturbed", "freedNodes", "placements")}
        return True

    yield Candidate(fix, verify)
