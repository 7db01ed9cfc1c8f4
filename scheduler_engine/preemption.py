"""The preemption evaluator (upstream ``pkg/scheduler/framework/preemption``).

A PostFilter plugin that preempts supplies the policy (:class:`PreemptionInterface`:
who may preempt, how victims are chosen on one node, how many nodes to try);
the :class:`Evaluator` runs the procedure every such plugin shares:

1. is the preemptor eligible at all;
2. dry-run victim selection on a copy of every node whose filter status was
   ``Unschedulable`` (never ``UnschedulableAndUnresolvable``), starting at a
   random offset and stopping once enough candidates are found;
3. pick one candidate by upstream's ordered criteria;
4. evict the victims and clear lower-priority nominations on that node.

When no candidate exists the status message is a fit error of its own,
``0/N nodes are available: ...``, built from the dry run's per-node statuses,
nodes never tried counting as ``Preemption is not helpful for scheduling``.

Where upstream depends on Go behaviour that is not part of any contract
(``time.Now()`` for pods without a start time, map iteration order, the
unstable ``sort.Slice``), this module reproduces what that behaviour yields,
drawing randomness from the run's seeded RNG.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .framework.cycle_state import CycleState
from .framework.interfaces import NodeToStatus, NominatingInfo, PostFilterResult
from .framework.node_info import NodeInfo
from .framework.status import Code, Status
from .gosort import go_sort_by_key, go_sort_slice
from .scheduler.messages import fit_error_message

if TYPE_CHECKING:  # pragma: no cover
    from .cluster import PodDisruptionBudget
    from .framework.interfaces import Handle
    from .objects import Pod

__all__ = [
    "MSG_NO_CANDIDATE_NODE",
    "MSG_NO_NODES_AVAILABLE",
    "MSG_PREEMPTION_NOT_HELPFUL",
    "Candidate",
    "CandidateList",
    "Evaluator",
    "PdbBudgets",
    "PodClock",
    "PreemptionInterface",
    "PreemptionShortcuts",
    "Victims",
    "aggregate_error_message",
    "fit_error_message",
    "get_earliest_pod_start_time",
    "get_lower_priority_nominated_pods",
    "go_sort_slice",
    "more_important",
    "more_important_pod",
    "pick_one_node_for_preemption",
    "sort_by_importance",
]

MAX_INT32 = 2**31 - 1
MIN_INT64 = -(2**63)

# Status of nodes the dry run never tried (absent from its statuses).
MSG_PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
MSG_NO_CANDIDATE_NODE = "no candidate node for preemption"
MSG_NO_NODES_AVAILABLE = "no nodes available"


# -- values --------------------------------------------------------------------


@dataclass(slots=True)
class Victims:
    """Pods to evict on one node, most important first (upstream ``extenderv1.Victims``)."""

    pods: list[Pod]
    num_pdb_violations: int = 0


class PdbBudgets:
    """The disruptions each PDB still allows while victims are counted (upstream ``pdbsAllowed``).

    A pod without labels matches no PDB, an empty selector matches nothing,
    and a pod the PDB already lists in ``disruptedPods`` neither spends nor
    breaks it.
    """

    __slots__ = ("_allowed", "_pdbs")

    def __init__(self, pdbs: Sequence[PodDisruptionBudget]) -> None:
        self._pdbs = pdbs
        self._allowed = [pdb.disruptions_allowed for pdb in pdbs]

    def spend(self, pod: Pod, *, stop_at_breach: bool) -> bool:
        """Spend one disruption of each PDB ``pod`` matches; True when one goes below zero.

        ``stop_at_breach``: stop at the first PDB broken, leaving the later ones
        unspent, as upstream's ``filterVictimsWithPDBViolation`` (pod groups)
        does; ``filterPodsWithPDBViolation`` (DefaultPreemption) spends them all.
        """
        if not pod.labels:
            return False
        allowed = self._allowed
        violated = False
        for i, pdb in enumerate(self._pdbs):
            if pdb.namespace != pod.namespace:
                continue
            if pdb.selector.empty or not pdb.selector.matches(pod.labels):
                continue
            if pod.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                if stop_at_breach:
                    return True
                violated = True
        return violated


@dataclass(slots=True)
class Candidate:
    name: str
    victims: Victims = field(default_factory=lambda: Victims([]))


class CandidateList:
    """A fixed-capacity list: candidates beyond the capacity are dropped (as upstream's)."""

    __slots__ = ("_items", "capacity")

    def __init__(self, capacity: int) -> None:
        self.capacity = max(capacity, 0)
        self._items: list[Candidate] = []

    def add(self, c: Candidate) -> None:
        if len(self._items) < self.capacity:
            self._items.append(c)

    def size(self) -> int:
        return len(self._items)

    def get(self) -> list[Candidate]:
        return list(self._items)


class PreemptionInterface(Protocol):
    """What a preempting plugin decides (upstream ``preemption.Interface``)."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]: ...

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]: ...

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status | None]:
        """Victims, number of PDB-violating victims, status (``None`` = success).

        ``state`` and ``node_info`` are copies the method may change.
        """
        ...

    def ordered_score_funcs(
        self, nodes_to_victims: dict[str, Victims]
    ) -> list[Callable[[str], int]] | None:
        """Custom criteria for choosing among candidates; ``None`` for upstream's defaults."""
        ...


@runtime_checkable
class PreemptionShortcuts(Protocol):
    """What a :class:`PreemptionInterface` may add to make the dry run cheaper, same answers.

    Both are optional: the evaluator reads them only through this Protocol,
    and ``fast_dry_run`` only when it is ``True``.
    """

    #: answer node by node with :meth:`no_possible_victims` before copying a node
    fast_dry_run: bool

    def no_possible_victims(self, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """The status every node of ``nodes`` gets when none of them has a victim, else ``None``."""
        ...


# -- Go behaviour reproduced ---------------------------------------------------


class PodClock:
    """Start times as upstream compares them.

    ``util.GetPodStartTime`` answers ``time.Now()`` for a pod without
    ``status.startTime``; successive calls return strictly later instants.
    Times are therefore ``(seconds, sequence)`` pairs: a real start time has
    sequence 0, each "now" a fresh, larger sequence number.
    """

    __slots__ = ("_now", "_seq")

    def __init__(self, now: float) -> None:
        self._now = now
        self._seq = itertools.count(1)

    def start_time(self, pod: Pod) -> tuple[float, int]:
        ts = pod.start_ts
        if ts is not None:
            return (ts, 0)
        return (self._now, next(self._seq))

    def started_before(self, p1: Pod, p2: Pod) -> bool:
        """``start_time(p1) < start_time(p2)``, read in that order, without reading the clock.

        A "now" is later than every real start time up to it and than every
        "now" read before it, so the answer needs no sequence number.
        """
        t1, t2 = p1.start_ts, p2.start_ts
        if t1 is None:
            return t2 is None or self._now < t2
        if t2 is None:
            return t1 <= self._now
        return t1 < t2


def more_important(clock: PodClock) -> Callable[[Pod, Pod], bool]:
    """``util.MoreImportantPod`` with start times as ``clock`` reads them, as a ``less`` for sorting."""
    started_before = clock.started_before

    def less(p1: Pod, p2: Pod) -> bool:
        if p1.priority != p2.priority:
            return p1.priority > p2.priority
        return started_before(p1, p2)

    return less


def more_important_pod(p1: Pod, p2: Pod, clock: PodClock) -> bool:
    """Higher priority first; equal priority: the pod that started earlier (``util.MoreImportantPod``)."""
    return more_important(clock)(p1, p2)


def _importance(pod: Pod) -> tuple[int, float | None]:
    return (-pod.priority, pod.start_ts)


def _priority(pod: Pod) -> int:
    return -pod.priority


def sort_by_importance(pods: list[Pod], clock: PodClock) -> None:
    """``go_sort_slice(pods, more_important(clock))``, by a key when it can be.

    When every pod has a start time, MoreImportantPod is the order of
    (higher priority, earlier start time): a strict weak order, under which
    Go's insertion sort (up to 12 pods) and Python's stable sort keep equal
    pods in the same (given) order, so one key per pod replaces the pairwise
    comparisons (``go_sort_by_key``: longer lists take Go's pdqsort over the
    keys). When none of
    up to 12 pods has one, each compares as a later "now": of two pods of
    equal priority the one asked about first is the more important, so the
    insertion sort moves each pod in front of the equal ones before it (their
    order reversed). Otherwise the pairwise sort.
    """
    known = sum(p.start_ts is not None for p in pods)
    if known < len(pods):
        if known or len(pods) > 12:
            go_sort_slice(pods, more_important(clock))
        else:
            pods.reverse()
            pods.sort(key=_priority)
        return
    go_sort_by_key(pods, _importance)


def get_earliest_pod_start_time(victims: Victims, clock: PodClock) -> tuple[float, int] | None:
    """Earliest start time among the highest-priority victims (``util.GetEarliestPodStartTime``)."""
    if not victims.pods:
        return None
    first = victims.pods[0]
    earliest = clock.start_time(first)
    max_priority = first.priority
    for p in victims.pods:
        if p.priority == max_priority:
            t = clock.start_time(p)
            if t < earliest:
                earliest = t
        elif p.priority > max_priority:
            max_priority = p.priority
            earliest = clock.start_time(p)
    return earliest


def aggregate_error_message(messages: Sequence[str]) -> str:
    """``utilerrors.NewAggregate(errs).Error()``: one message, or ``[a, b]`` deduplicated."""
    if not messages:
        return ""
    if len(messages) == 1:
        return messages[0]
    seen: list[str] = []
    for m in messages:
        if m not in seen:
            seen.append(m)
    if len(seen) == 1:
        return seen[0]
    return "[" + ", ".join(seen) + "]"


# -- the evaluator ---------------------------------------------------------------


def get_lower_priority_nominated_pods(handle: Handle, priority: int, node_name: str) -> list[Pod]:
    """Pods nominated to ``node_name`` whose priority is below ``priority``."""
    nominated = getattr(handle, "nominated_pods_for_node", None)
    if nominated is None:
        return []
    return [p for p in nominated(node_name) or () if p.priority < priority]


class Evaluator:
    """Runs preemption for one plugin (upstream ``preemption.Evaluator``)."""

    def __init__(self, plugin_name: str, handle: Handle, interface: PreemptionInterface) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface

    # -- entry point ---------------------------------------------------------
    def preempt(
        self, state: CycleState, pod: Pod, m: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        """Upstream ``Evaluator.Preempt``.

        * ``(None, Unschedulable)``: not eligible; the nomination stays.
        * ``(result "" , Unschedulable)``: no node can be made to fit; the
          nomination is cleared and the message is the dry run's fit error.
        * ``(result node, None)``: victims chosen (and evicted when the handle
          can evict); the pod is nominated to ``node``.
        * ``(None, Error)``: something failed.
        """
        # 1) eligibility
        nominated_status = m.get(pod.nominated_node_name)
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not ok:
            return None, Status(Code.UNSCHEDULABLE, msg)

        # 2) candidates
        snapshot = self.handle.snapshot()
        all_nodes = snapshot.node_info_list
        candidates, node_statuses, errors = self.find_candidates(state, all_nodes, pod, m)
        if errors and not candidates:
            return None, Status(Code.ERROR, aggregate_error_message(errors))

        details: dict[str, Any] = {
            "candidates": {
                c.name: {
                    "victims": [v.key for v in c.victims.pods],
                    "numPDBViolations": c.victims.num_pdb_violations,
                }
                for c in candidates
            },
            "nodeStatuses": {name: st.message() for name, st in node_statuses.statuses.items()},
        }
        if not candidates:
            node_statuses.absent = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_PREEMPTION_NOT_HELPFUL
            )
            message = fit_error_message(len(all_nodes), node_statuses)
            return (
                PostFilterResult(nominating_info=NominatingInfo(""), details=details),
                Status(Code.UNSCHEDULABLE, message),
            )

        # 3) extenders are not modelled: every candidate stays.
        # 4) the best candidate
        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status(Code.UNSCHEDULABLE, MSG_NO_CANDIDATE_NODE)

        # 5) actuate
        status, cleared = self.actuate(best, pod)
        if status is not None and status.code != Code.SUCCESS:
            return None, status
        details["node"] = best.name
        details["numPDBViolations"] = best.victims.num_pdb_violations
        details["clearedNominations"] = [p.key for p in cleared]
        # tells the caller whether the victims still have to be evicted
        details["evicted"] = hasattr(self.handle, "evict")
        return (
            PostFilterResult(
                nominating_info=NominatingInfo(best.name),
                victims=list(best.victims.pods),
                details=details,
            ),
            None,
        )

    # -- candidates ----------------------------------------------------------
    def find_candidates(
        self,
        state: CycleState,
        all_nodes: Sequence[NodeInfo],
        pod: Pod,
        m: NodeToStatus,
    ) -> tuple[list[Candidate], NodeToStatus, list[str]]:
        if not all_nodes:
            return [], NodeToStatus(), [MSG_NO_NODES_AVAILABLE]
        # only nodes a filter rejected as Unschedulable: eviction may help there
        get = m.get
        potential = [ni for ni in all_nodes if get(ni.node.name).code == Code.UNSCHEDULABLE]
        if not potential:
            return [], NodeToStatus(), []
        pdbs = list(getattr(self.handle.cluster, "pdbs", None) or ())
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num_candidates)

    def dry_run_preemption(
        self,
        state: CycleState,
        pod: Pod,
        potential_nodes: Sequence[NodeInfo],
        pdbs: Sequence[PodDisruptionBudget],
        offset: int,
        num_candidates: int,
    ) -> tuple[list[Candidate], NodeToStatus, list[str]]:
        """Try nodes from ``offset`` round the list until enough candidates are found.

        Upstream checks nodes in parallel and stops once it has at least one
        PDB-respecting candidate and ``num_candidates`` in all; this checks
        them one by one in that order (upstream's result with parallelism 1).
        Candidates that respect PDBs come first.
        """
        non_violating = CandidateList(num_candidates)
        violating = CandidateList(num_candidates)
        statuses = NodeToStatus()
        errors: list[str] = []
        n = len(potential_nodes)
        # nodes where no pod may be evicted give the same answer without the copies
        no_victims = None
        if isinstance(self.interface, PreemptionShortcuts):
            st = self.interface.no_possible_victims(pod, potential_nodes)
            if st is not None:
                for ni in potential_nodes:
                    statuses.set(ni.name, st)
                return [], statuses, errors
            if self.interface.fast_dry_run is True:
                no_victims = self.interface.no_possible_victims
        for i in range(n):
            ni = potential_nodes[(offset + i) % n]
            if no_victims is not None:
                # the same answer node by node (fast dry run)
                status = no_victims(pod, (ni,))
                if status is not None:
                    statuses.set(ni.name, status)
                    continue
            node_copy = ni.clone()
            state_copy = state.clone()
            pods, num_violations, status = self.interface.select_victims_on_node(
                state_copy, pod, node_copy, pdbs
            )
            success = status is None or status.code == Code.SUCCESS
            if success and pods:
                c = Candidate(node_copy.name, Victims(pods, num_violations))
                if num_violations == 0:
                    non_violating.add(c)
                else:
                    violating.add(c)
                nvc, vc = non_violating.size(), violating.size()
                if nvc > 0 and nvc + vc >= num_candidates:
                    break
                continue
            if success:
                status = Status(
                    Code.ERROR, f'expected at least one victim pod on node "{node_copy.name}"'
                )
            assert status is not None
            if status.code == Code.ERROR:
                errors.append(status.message())
            statuses.set(node_copy.name, status)
        return non_violating.get() + violating.get(), statuses, errors

    # -- choosing ------------------------------------------------------------
    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims_map = {c.name: c.victims for c in candidates}
        score_funcs = self.interface.ordered_score_funcs(victims_map)
        # upstream ranges over a Go map: the order of equally good nodes is random
        order = list(victims_map)
        rng = getattr(self.handle, "rng", None)
        if rng is not None:
            rng.shuffle(order)
        name = pick_one_node_for_preemption(
            victims_map, score_funcs, PodClock(self.handle.now()), order
        )
        victims = victims_map.get(name)
        if victims is not None:
            return Candidate(name, victims)
        return candidates[0]

    # -- acting --------------------------------------------------------------
    def actuate(self, candidate: Candidate, preemptor: Pod) -> tuple[Status | None, list[Pod]]:
        """Evict the victims and clear lower-priority nominations on the node.

        Eviction goes through ``handle.evict(victim, preemptor)`` when the
        handle has it; otherwise the caller reads ``result.victims``.  Victims
        already being deleted are not evicted again.  Nominations are cleared
        through ``handle.clear_nominated_node_name(pod)`` when available; the
        pods concerned are returned (and listed in the result's details).

        With asynchronous preemption (beta, on in v1.36) nothing at all is done
        when every victim is already being deleted: no deletion and no
        nomination cleared (upstream ``prepareCandidateAsync`` returns early).
        """
        if all(v.terminating for v in candidate.victims.pods):
            return None, []
        evict = getattr(self.handle, "evict", None)
        if evict is not None:
            for victim in candidate.victims.pods:
                if victim.terminating:
                    continue
                st = evict(victim, preemptor)
                if isinstance(st, Status) and st.code != Code.SUCCESS:
                    return st, []
        nominated = get_lower_priority_nominated_pods(
            self.handle, preemptor.priority, candidate.name
        )
        clear = getattr(self.handle, "clear_nominated_node_name", None)
        if clear is not None:
            for p in nominated:
                clear(p)
        return None, nominated


def pick_one_node_for_preemption(
    nodes_to_victims: dict[str, Victims],
    score_funcs: Sequence[Callable[[str], Any]] | None,
    clock: PodClock | None = None,
    order: Iterable[str] | None = None,
) -> str:
    """Upstream ``pickOneNodeForPreemption``; the first criterion that leaves one node decides.

    1. fewest PDB violations; 2. lowest highest-victim priority; 3. lowest sum
    of victim priorities, each shifted by MaxInt32+1 so negative priorities
    still add up; 4. fewest victims; 5. latest earliest-start-time among the
    highest-priority victims; 6. the first node left, in ``order``.
    """
    if not nodes_to_victims:
        return ""
    all_candidates = list(order) if order is not None else list(nodes_to_victims)
    clock = clock or PodClock(0.0)

    if not score_funcs:

        def min_pdb(node: str) -> Any:
            return -nodes_to_victims[node].num_pdb_violations

        def min_highest_priority(node: str) -> Any:
            return -nodes_to_victims[node].pods[0].priority

        def min_sum_priorities(node: str) -> Any:
            return -sum(p.priority + MAX_INT32 + 1 for p in nodes_to_victims[node].pods)

        def min_num_pods(node: str) -> Any:
            return -len(nodes_to_victims[node].pods)

        def latest_start_time(node: str) -> Any:
            earliest = get_earliest_pod_start_time(nodes_to_victims[node], clock)
            if earliest is None:
                return (float("-inf"), 0)
            return earliest

        score_funcs = [
            min_pdb,
            min_highest_priority,
            min_sum_priorities,
            min_num_pods,
            latest_start_time,
        ]

    for f in score_funcs:
        selected: list[str] = []
        best: Any = None
        for node in all_candidates:
            score = f(node)
            if best is None or score > best:
                best = score
                selected = []
            if score == best:
                selected.append(node)
        if len(selected) == 1:
            return selected[0]
        all_candidates = selected
    return all_candidates[0]
