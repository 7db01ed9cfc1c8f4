"""Pod groups explained as jobs: the ``gang`` of each member's result and ``summary.gangs``.

One view per group with pending members, for scheduler-plugins' Coscheduling
PodGroups and the native workload API's, read off a finished simulation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .framework.handle import SimulationContext
from .framework.pod_group_state import PodGroupStates
from .framework.runtime import Framework
from .framework.snapshot import Snapshot
from .framework.status import Code
from .gang_diagnosis import GangView, count_reasons, describe_domains
from .objects import Pod
from .objects.podgroup import NATIVE_API_VERSION
from .plugins import coscheduling as cosched
from .results import PodResult, PodStatus
from .scheduler.schedule_one import Attempt, AttemptStatus
from .scheduler.schedule_one_podgroup import GroupOutcome

__all__ = ["coscheduling_gang_views", "native_gang_views"]


def coscheduling_gang_views(
    pending: Sequence[Pod],
    frameworks: Mapping[str, Framework],
    results: Mapping[str, PodResult],
    attempts: Mapping[str, Attempt | None],
    cluster_pods: Iterable[Pod],
    snapshot: Snapshot,
) -> list[dict[str, Any]]:
    """scheduler-plugins' PodGroups (label ``scheduling.x-k8s.io/pod-group``).

    ``pending``: the pods with a result; each member's result gets its view (``gang``).
    """
    out: list[dict[str, Any]] = []
    by_group: dict[str, list[Pod]] = {}
    plugins: dict[str, Any] = {}
    for p in pending:
        fwk = frameworks.get(p.scheduler_name)
        pl = fwk.plugins.get("Coscheduling") if fwk is not None else None
        full = cosched.group_full_name(p) if pl is not None else ""
        if full:
            by_group.setdefault(full, []).append(p)
            plugins[full] = pl
    all_pods: Counter[str] = Counter()
    on_nodes: Counter[str] = Counter()
    if by_group:
        for q in cluster_pods:
            full = cosched.group_full_name(q)
            if full:
                all_pods[full] += 1
                if q.node_name:
                    on_nodes[full] += 1
    for full, pods in by_group.items():
        pl = plugins[full]
        pg = pl.groups().get(full)
        view = GangView(
            full,
            cosched.API_VERSION,
            pg.min_member if pg is not None else None,
            [p.key for p in pods],
        )
        pod_results = [results[p.key] for p in pods]
        view.scheduled = sum(1 for r in pod_results if r.status == PodStatus.SCHEDULED)
        atts = [attempts.get(p.key) for p in pods]
        # how many fit at once: the most members that held a node together (past Permit)
        most = pl.most_held.get(full, {})
        view.placed = max(view.scheduled, len(most))
        running = on_nodes[full] - view.scheduled
        siblings = all_pods[full]
        if pg is None:
            view.status = "PodGroupMissing"
        elif siblings < pg.min_member:
            view.status = "QuorumNotReached"
            view.quorum_missing = pg.min_member - siblings
        elif view.scheduled and view.scheduled + running >= pg.min_member:
            view.status = "Scheduled"
        else:
            view.status = "Unschedulable"
        view.reasons = count_reasons(
            (a.fit_error, a.message)
            for a in atts
            if a is not None and not a.forgotten and a.status == AttemptStatus.UNSCHEDULABLE
        )
        bound = [r.node for r in pod_results if r.node]
        view.domain_key, view.domains = describe_domains(
            bound if view.scheduled >= len(most) else most.values(), snapshot, None
        )
        view.released = count_reasons(
            (a.fit_error, a.message) for a in atts if a is not None and a.forgotten
        )
        d = view.to_dict()
        for p in pods:
            results[p.key].gang = d
        out.append(d)
    return out


def native_gang_views(
    pending: Sequence[Pod],
    results: Mapping[str, PodResult],
    ctx: SimulationContext,
    outcomes: Mapping[str, tuple[GroupOutcome, list[Pod]]],
    snapshot: Snapshot,
) -> list[dict[str, Any]]:
    """The native workload API's PodGroups (``scheduling.k8s.io``), by their cycle's outcome.

    ``pending``: the pods with a result; each member's result gets its view (``gang``).
    """
    by_group: dict[str, list[Pod]] = {}
    for p in pending:
        k = PodGroupStates.key_of(p)
        if k is not None:
            by_group.setdefault(k, []).append(p)
    out: list[dict[str, Any]] = []
    for k, pods in by_group.items():
        pg = ctx.native_pod_groups.get(k)
        view = GangView(
            k,
            NATIVE_API_VERSION,
            pg.min_count if pg is not None else None,
            [p.key for p in pods],
        )
        gs = ctx.pod_groups.get(k)
        found = outcomes.get(k)
        view.scheduled = sum(1 for p in pods if results[p.key].status == PodStatus.SCHEDULED)
        if found is not None:
            outcome, _ = found
            fitting = [m for m in outcome.members if m.assumed]
            view.placed = len(fitting)
            if outcome.success:
                view.status = "Scheduled"
            elif outcome.waiting_on_preemption:
                view.status = "WaitingForPreemption"
            elif outcome.status is not None and outcome.status.code == Code.ERROR:
                view.status = "Error"
            else:
                view.status = "Unschedulable"
            view.message = outcome.status.message() if outcome.status is not None else ""
            view.reasons = count_reasons(
                (m.attempt.fit_error, m.attempt.message)
                for m in outcome.members
                if not m.assumed and m.attempt.status == AttemptStatus.UNSCHEDULABLE
            )
            view.domain_key, view.domains = describe_domains(
                (m.host for m in fitting if m.host),
                snapshot,
                pg.topology_key if pg is not None else None,
            )
            view.placements = outcome.placements
            view.placement = outcome.placement
            for entry in view.placements:
                placed_here = outcome.placement_members.get(str(entry["name"]), [])
                entry["reasons"] = count_reasons(
                    (m.attempt.fit_error, m.attempt.message)
                    for m in placed_here
                    if not m.assumed and m.attempt.status == AttemptStatus.UNSCHEDULABLE
                )
            if view.status == "Unschedulable" and len(view.placements) > 1:
                # no domain holds the gang: explain it by the domain that came closest
                best = max(view.placements, key=lambda e: int(e["placed"]))  # type: ignore[call-overload]
                view.placed = int(best["placed"])  # type: ignore[call-overload]
                view.reasons = dict(best["reasons"])  # type: ignore[call-overload]
                view.domains = {str(best["name"]): view.placed} if view.placed else {}
        elif pg is None:
            view.status = "PodGroupMissing"
        elif pg.min_count is not None and gs is not None and gs.all_pods_count() < pg.min_count:
            view.status = "QuorumNotReached"
            view.quorum_missing = pg.min_count - gs.all_pods_count()
        d = view.to_dict()
        for p in pods:
            results[p.key].gang = d
        out.append(d)
    return out
