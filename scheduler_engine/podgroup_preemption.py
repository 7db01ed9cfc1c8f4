"""Workload-aware preemption: a pod group preempts as a whole (``WorkloadAwarePreemption``).

Upstream ``framework/preemption/podgrouppreemption.go`` and ``types.go`` (v1.36,
alpha), run by the pod-group cycle when the group is unschedulable:

* the domain is the whole cluster; each running pod is a victim of its own,
  except the pods of a PodGroup with ``spec.disruptionMode: PodGroup``, which
  are one victim (all of them or none) at the group's priority;
* victims of lower priority than the preemptor group (``spec.priority``, else
  0) are all removed, and the group is tried without PostFilter; if it still
  does not fit, that is the answer;
* else victims are reprieved one at a time, most important first (priority,
  then groups before single pods, then older pods / bigger then older
  groups), PDB-violating ones before the others, keeping each whose return
  still lets the group fit; the rest are evicted and the group waits for
  them to go.

``docs/gangs.md`` lists where this differs from upstream.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

from .framework.snapshot import Snapshot
from .framework.status import Code, Status
from .objects import Pod
from .objects.podgroup import NativePodGroup, pod_group_name
from .preemption import PdbBudgets, PodClock

__all__ = [
    "EVICTED_BY_POD_GROUP",
    "MSG_CONSTRAINTS",
    "MSG_NO_PLUGIN",
    "MSG_NO_VICTIMS",
    "MSG_PREEMPTION_NEVER",
    "GroupPreemption",
    "Victim",
    "pod_group_priority",
    "preempt_for_pod_group",
]

MSG_NO_PLUGIN = "default preemption plugin is not registered, workload aware preemption is disabled"
MSG_CONSTRAINTS = (
    "workload aware preemption is not supported for pod groups with scheduling constraints"
)
MSG_NO_VICTIMS = "No preemption victims found for incoming preemptor"
MSG_PREEMPTION_NEVER = "not eligible due to preemptionPolicy=Never."
# Eviction.reason of the pods a pod group preempted
EVICTED_BY_POD_GROUP = "podgroup"


def pod_group_priority(pg: NativePodGroup) -> int:
    """``spec.priority`` of a PodGroup; 0 when unset (upstream ``PodGroupPriority``)."""
    p = (pg.raw.get("spec") or {}).get("priority")
    return p if isinstance(p, int) and not isinstance(p, bool) else 0


def _disrupted_as_group(pg: NativePodGroup | None) -> bool:
    return pg is not None and (pg.raw.get("spec") or {}).get("disruptionMode") == "PodGroup"


@dataclass
class Victim:
    """One preemption unit: a pod, or every running pod of a PodGroup disrupted as a group."""

    pods: list[tuple[Pod, str]]  # (pod, node)
    priority: int
    group: str | None = None
    earliest: tuple[float, int] = field(default=(float("inf"), 0))

    @property
    def is_pod_group(self) -> bool:
        return pod_group_name(self.pods[0][0].raw) is not None


@dataclass
class GroupPreemption:
    """What workload-aware preemption decided: victims to evict, or why not."""

    status: Status | None
    victims: list[Pod] = field(default_factory=list)


def _more_important(a: Victim, b: Victim) -> int:
    """-1 when ``a`` is more important (upstream ``moreImportantVictim``), 1 when ``b`` is."""
    if a.priority != b.priority:
        return -1 if a.priority > b.priority else 1
    if a.is_pod_group != b.is_pod_group:
        return -1 if a.is_pod_group else 1
    if a.is_pod_group and len(a.pods) != len(b.pods):
        return -1 if len(a.pods) > len(b.pods) else 1
    if a.earliest != b.earliest:
        return -1 if a.earliest < b.earliest else 1
    return 0


def _victims(
    snapshot: Snapshot, groups: Mapping[str, NativePodGroup], clock: PodClock
) -> list[Victim]:
    by_unit: dict[str, Victim] = {}
    for ni in snapshot.node_info_list:
        node = ni.node.name
        for p in ni.pods:
            name = pod_group_name(p.raw)
            pg = groups.get(f"{p.namespace}/{name}") if name else None
            if pg is not None and _disrupted_as_group(pg):
                v = by_unit.get("group:" + pg.key)
                if v is None:
                    v = by_unit["group:" + pg.key] = Victim([], pod_group_priority(pg), pg.key)
            else:
                v = by_unit["pod:" + p.key] = Victim([], p.priority)
            v.pods.append((p, node))
            v.earliest = min(v.earliest, clock.start_time(p))
    return list(by_unit.values())


def _split_by_pdb(
    victims: Sequence[Victim], pdbs: Sequence[Any]
) -> tuple[list[Victim], list[Victim]]:
    """(violating, the rest): a unit violates when any of its pods would break a PDB.

    A unit's pods are counted until the first that breaks one, and that pod
    stops at the first PDB it breaks (upstream ``filterVictimsWithPDBViolation``).
    """
    budgets = PdbBudgets(pdbs)
    violating: list[Victim] = []
    rest: list[Victim] = []
    for v in victims:
        broken = any(budgets.spend(p, stop_at_breach=True) for p, _ in v.pods)
        (violating if broken else rest).append(v)
    return violating, rest


def preempt_for_pod_group(
    pg: NativePodGroup,
    members: Sequence[Pod],
    snapshot: Snapshot,
    groups: Mapping[str, NativePodGroup],
    pdbs: Sequence[Any],
    now: float,
    try_group: Callable[[], Status | None],
) -> GroupPreemption:
    """Choose the victims that let ``members`` of ``pg`` fit.

    ``try_group`` runs the group's cycle without PostFilter on the snapshot as
    it is and returns its status (None: the group fits).

    The snapshot is the same after the call as before it.
    """
    if pg.topology_key is not None:
        return GroupPreemption(Status(Code.UNSCHEDULABLE, MSG_CONSTRAINTS))
    if any((m.raw.get("spec") or {}).get("preemptionPolicy") == "Never" for m in members):
        return GroupPreemption(Status(Code.UNSCHEDULABLE, MSG_PREEMPTION_NEVER))
    priority = pod_group_priority(pg)
    clock = PodClock(now)
    potential = [v for v in _victims(snapshot, groups, clock) if v.priority < priority]
    if not potential:
        return GroupPreemption(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NO_VICTIMS))
    removed: list[Victim] = []

    def remove(v: Victim) -> None:
        for p, node in v.pods:
            snapshot.remove_pod(p, node)
        removed.append(v)

    def add(v: Victim) -> None:
        for p, node in v.pods:
            snapshot.add_pod(p, node)
        removed.remove(v)

    try:
        for v in potential:
            remove(v)
        s = try_group()
        if s is not None:
            return GroupPreemption(s)
        potential.sort(key=cmp_to_key(_more_important))
        violating, rest = _split_by_pdb(potential, pdbs)
        to_preempt: list[Victim] = []
        for v in violating + rest:
            add(v)
            if try_group() is not None:
                remove(v)
                to_preempt.append(v)
        to_preempt.sort(key=cmp_to_key(_more_important))
        return GroupPreemption(None, [p for v in to_preempt for p, _ in v.pods])
    finally:
        for v in list(removed):
            add(v)
