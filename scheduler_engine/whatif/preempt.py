"""Freeing named pods of lower priority on one node: what preemption would do if it were
allowed (kind ``preemption``), or if the pod's priority were higher (kind ``priority``).

Victims are chosen as upstream's ``SelectVictimsOnNode`` chooses them: every
pod of lower priority removed, then as many as possible put back, those
whose eviction would break a PodDisruptionBudget first, most important
first (in the order Go's ``sort.Slice`` leaves them).  A node is offered
only if its victims break no budget; among nodes, fewer and less important
victims cost less.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..cluster import PodDisruptionBudget
from ..gosort import go_sort_by_key
from ..objects import Pod
from ..objects.pod import PREEMPT_NEVER
from .fixes import Candidate, Fix, WhatIf, tolerating
from .nearest import AFFINITY, FIT, SPREAD, Gap
from .probe import Prepared

__all__ = ["preemption_candidates", "priority_candidates", "select_victims"]

# filters whose rejection evicting pods from the node can lift
EVICTABLE = (FIT, AFFINITY, SPREAD, "NodePorts", "VolumeRestrictions", "NodeVolumeLimits")
MAX_NODES = 10


def _importance(p: Pod) -> tuple[int, float]:
    # more important first: higher priority, then earlier start
    return (-p.priority, p.start_ts if p.start_ts is not None else float("inf"))


def _violations(victims: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget]) -> list[str]:
    """Budgets the victims' eviction would break (more evicted than the budget allows)."""
    broken = []
    for b in pdbs:
        n = sum(1 for v in victims if b.matches(v) and v.key not in b.disrupted_pods)
        if n and n > b.disruptions_allowed:
            broken.append(f"{b.namespace}/{b.name}")
    return broken


def select_victims(ctx: WhatIf, prep: Prepared, gap: Gap, below: int) -> list[Pod] | None:
    """The fewest pods of priority < ``below`` whose removal makes the pod fit, or None."""
    probe = ctx.probe
    ni = gap.node_info
    lower = [p for p in ni.pods if p.priority < below]
    # Go's unstable sort, as DefaultPreemption's: on more than 12, ties may move
    go_sort_by_key(lower, _importance)
    if not lower:
        return None
    p2, n2 = probe.without(prep, ni, lower)
    if not probe.fits(p2, n2):
        return None
    pdbs = ctx.cluster.pdbs
    protected = [p for p in lower if _violations([p], pdbs)]
    free = [p for p in lower if p not in protected]
    victims = list(lower)
    for p in [*protected, *free]:
        trial = [v for v in victims if v is not p]
        p2, n2 = probe.without(prep, ni, trial)
        if probe.fits(p2, n2):
            victims = trial
    return victims


@dataclass(slots=True)
class _Found:
    gap: Gap
    victims: list[Pod]
    # the pod's patch (with the tolerations the node needs), the words and cost they add
    patch: dict[str, Any] | None
    also: str
    extra: float
    prep: Prepared


def _candidates(ctx: WhatIf, base: dict[str, Any] | None, below: int) -> list[_Found]:
    """Nodes where freeing pods of priority < ``below`` makes the (patched) pod fit."""
    found = []
    for g in ctx.only(*EVICTABLE, limit=MAX_NODES, taints=True):
        if g.lacking:
            continue
        patch, also, extra = tolerating(ctx, g, base)
        prep = ctx.prepared(patch)
        if prep is None:
            continue
        victims = select_victims(ctx, prep, g, below)
        if victims and not _violations(victims, ctx.cluster.pdbs):
            found.append(_Found(g, victims, patch, also, extra, prep))
    # fewest tolerations added; then upstream's order: lowest highest priority, lowest sum,
    # fewest pods
    found.sort(
        key=lambda f: (
            f.extra,
            max(v.priority for v in f.victims),
            sum(v.priority for v in f.victims),
            len(f.victims),
            f.gap.node,
        )
    )
    return found


def _extra(g: Gap, victims: list[Pod]) -> dict[str, Any]:
    return {"evict": [{"pod": v.key, "node": g.node, "priority": v.priority} for v in victims]}


def _verify(ctx: WhatIf, f: _Found) -> bool:
    p2, n2 = ctx.probe.without(f.prep, f.gap.node_info, f.victims)
    return ctx.probe.fits(p2, n2)


def preemption_candidates(ctx: WhatIf) -> Iterable[Candidate]:
    """Evicting pods of lower priority than the pod's on the best node."""
    pod = ctx.pod
    base = (
        {"spec": {"preemptionPolicy": "PreemptLowerPriority"}}
        if pod.preemption_policy == PREEMPT_NEVER
        else None
    )
    found = _candidates(ctx, base, pod.priority)
    if not found:
        return
    f = found[0]
    names = ", ".join(v.key for v in f.victims)
    allow = " (allow it: preemptionPolicy PreemptLowerPriority)" if base else ""
    fix = Fix(
        "preemption",
        f"Free {len(f.victims)} pod(s) of lower priority on {f.gap.node}: {names}{allow}{f.also}.",
        f.patch,
        float(2 + len(f.victims)) + f.extra,
        f.gap.node,
        _extra(f.gap, f.victims),
    )
    yield Candidate(fix, lambda: _verify(ctx, f))


def priority_candidates(ctx: WhatIf) -> Iterable[Candidate]:
    """The lowest existing PriorityClass above the pod's whose preemption would make room."""
    pod = ctx.pod
    classes = sorted(
        (int(c.get("value") or 0), name)
        for name, c in ctx.cluster.priority_classes.items()
        if int(c.get("value") or 0) > pod.priority and not name.startswith("system-")
    )
    for value, name in classes:
        found = _candidates(ctx, {"spec": {"priorityClassName": name, "priority": value}}, value)
        if not found:
            continue
        f = found[0]
        names = ", ".join(v.key for v in f.victims)
        fix = Fix(
            "priority",
            f"With PriorityClass {name} ({value}), preemption would free {len(f.victims)} "
            f"pod(s) on {f.gap.node}: {names}{f.also}.",
            f.patch,
            float(3 + len(f.victims)) + f.extra,
            f.gap.node,
            _extra(f.gap, f.victims),
        )
        yield Candidate(fix, lambda f=f: _verify(ctx, f))
        return
