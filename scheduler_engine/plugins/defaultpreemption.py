"""DefaultPreemption: PostFilter (and PreEnqueue) — upstream ``plugins/defaultpreemption``.

When no node passes the filters, evict lower-priority pods from one node so
the pod fits there next time, and nominate the pod to that node.  The shared
procedure lives in :mod:`scheduler_engine.preemption`; this module decides
who may preempt, which pods of a node become victims (respecting
PodDisruptionBudgets as far as possible) and how many nodes are tried.

The PostFilter status message is ``"preemption: " + <evaluator message>``,
e.g. ``preemption: 0/3 nodes are available: 3 Preemption is not helpful for
scheduling.`` or ``preemption: not eligible due to preemptionPolicy=Never.``;
the runtime joins it with the other PostFilter plugins' reasons.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..framework.cycle_state import CycleState
from ..framework.interfaces import NodeToStatus, PostFilterResult
from ..framework.node_info import NodeInfo
from ..framework.status import Code, Status
from ..objects import Pod
from ..objects.podgroup import pod_group_name
from ..preemption import (
    Evaluator,
    PdbBudgets,
    PodClock,
    Victims,
    go_sort_slice,
    more_important,
    sort_by_importance,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..cluster import PodDisruptionBudget
    from ..framework.interfaces import Handle

__all__ = [
    "DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE",
    "DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE",
    "ERR_REASON_NOT_ELIGIBLE_POLICY_NEVER",
    "ERR_REASON_NOT_ELIGIBLE_TERMINATING",
    "ERR_REASON_NO_VICTIMS",
    "ERR_REASON_WAITING_FOR_PREEMPTION",
    "NAME",
    "PLUGIN",
    "DefaultPreemption",
    "filter_pods_with_pdb_violation",
    "new",
    "pod_terminating_by_preemption",
]

NAME = "DefaultPreemption"

DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE = 10
DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE = 100

ERR_REASON_NOT_ELIGIBLE_POLICY_NEVER = "not eligible due to preemptionPolicy=Never."
ERR_REASON_NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
ERR_REASON_NO_VICTIMS = "No preemption victims found for incoming pod"
ERR_REASON_WAITING_FOR_PREEMPTION = "waiting for the preemption for this pod to be finished"
MESSAGE_PREFIX = "preemption: "

_PREEMPT_NEVER = "Never"
_DISRUPTION_TARGET = "DisruptionTarget"
_REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"

IsEligiblePodFunc = Callable[[NodeInfo, Pod, Pod], bool]
MoreImportantPodFunc = Callable[[Pod, Pod], bool]


def pod_terminating_by_preemption(pod: Pod) -> bool:
    """Being deleted, with the ``DisruptionTarget`` condition preemption sets."""
    if not pod.terminating:
        return False
    status = pod.raw.get("status") or {}
    for cond in status.get("conditions") or ():
        if cond.get("type") == _DISRUPTION_TARGET:
            return (
                cond.get("status") == "True"
                and cond.get("reason") == _REASON_PREEMPTION_BY_SCHEDULER
            )
    return False


def filter_pods_with_pdb_violation(
    pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[Pod], list[Pod]]:
    """Split ``pods`` (order kept) into those whose eviction would break a PDB and the rest.

    Every PDB a pod matches is spent, pod by pod in the given order
    (:class:`~scheduler_engine.preemption.PdbBudgets`).
    """
    if not pdbs:
        return [], list(pods)
    budgets = PdbBudgets(pdbs)
    violating: list[Pod] = []
    non_violating: list[Pod] = []
    for pod in pods:
        violated = budgets.spend(pod, stop_at_breach=False)
        (violating if violated else non_violating).append(pod)
    return violating, non_violating


MSG_POD_GROUP_NOT_FOUND = "preemption: pod group for pod not found"
MSG_PLACEMENT_LIMITATION = (
    "preemption: not eligible due to placement-based pod group scheduling limitation"
)
MSG_WORKLOAD_AWARE_PREEMPTION = "preemption: not eligible due to workload aware preemption enabled"


class DefaultPreemption:
    NAME = NAME
    # False: every reprieve runs every filter again, as upstream words it (tests compare)
    fast_dry_run = True

    def __init__(self, args: Mapping[str, Any], handle: Handle) -> None:
        pct = args.get("minCandidateNodesPercentage")
        absolute = args.get("minCandidateNodesAbsolute")
        self.min_candidate_nodes_percentage = int(
            DEFAULT_MIN_CANDIDATE_NODES_PERCENTAGE if pct is None else pct
        )
        self.min_candidate_nodes_absolute = int(
            DEFAULT_MIN_CANDIDATE_NODES_ABSOLUTE if absolute is None else absolute
        )
        _validate(self.min_candidate_nodes_percentage, self.min_candidate_nodes_absolute)
        self.handle = handle
        self.evaluator = Evaluator(NAME, handle, self)
        # upstream's customisation hooks, with their defaults
        self.is_eligible_pod: IsEligiblePodFunc = lambda node_info, victim, preemptor: True
        self.more_important_pod: MoreImportantPodFunc | None = None

    # -- PreEnqueue --------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Hold a pod back while its asynchronous preemption is still evicting victims."""
        running = getattr(self.handle, "is_pod_running_preemption", None)
        if running is not None and running(pod.uid):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_WAITING_FOR_PREEMPTION)
        return None

    # -- PostFilter --------------------------------------------------------------
    def post_filter(
        self, state: CycleState, pod: Pod, filtered: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        group = pod_group_name(pod.raw)
        handle = self.handle
        if group is not None and hasattr(handle, "feature_enabled"):
            if handle.feature_enabled("TopologyAwareWorkloadScheduling"):
                pg = handle.native_pod_group(pod.namespace, group)
                if pg is None:
                    return None, Status(Code.UNSCHEDULABLE, MSG_POD_GROUP_NOT_FOUND)
                if pg.has_constraints:
                    # upstream: no pod-level preemption once per topology option
                    return None, Status(Code.UNSCHEDULABLE, MSG_PLACEMENT_LIMITATION)
            if handle.feature_enabled("WorkloadAwarePreemption"):
                return None, Status(Code.UNSCHEDULABLE, MSG_WORKLOAD_AWARE_PREEMPTION)
        result, status = self.evaluator.preempt(state, pod, filtered)
        if status is not None and status.reasons:
            msg = status.message()
            if msg:
                return result, Status(status.code, MESSAGE_PREFIX + msg)
        return result, status

    # -- preemption.Interface ----------------------------------------------------
    def calculate_num_candidates(self, num_nodes: int) -> int:
        n = num_nodes * self.min_candidate_nodes_percentage // 100
        n = max(n, self.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        offset = self.handle.rng.randrange(num_nodes) if num_nodes > 0 else 0
        return offset, self.calculate_num_candidates(num_nodes)

    def pod_eligible_to_preempt_others(
        self, pod: Pod, nominated_node_status: Status | None
    ) -> tuple[bool, str]:
        if pod.preemption_policy == _PREEMPT_NEVER:
            return False, ERR_REASON_NOT_ELIGIBLE_POLICY_NEVER
        nom = pod.nominated_node_name
        if nom:
            # filters say the nominated node can never fit: look for another
            if (
                nominated_node_status is not None
                and nominated_node_status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
            ):
                return True, ""
            node_info = self.handle.snapshot().get(nom)
            if node_info is not None:
                for p in node_info.pods:
                    if self._is_preemption_allowed(
                        node_info, p, pod
                    ) and pod_terminating_by_preemption(p):
                        # victims of an earlier preemption are still leaving
                        return False, ERR_REASON_NOT_ELIGIBLE_TERMINATING
        return True, ""

    def no_possible_victims(self, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """select_victims_on_node's answer on every node when none has a lower-priority pod.

        None when some node has one (then each node is tried).
        """
        prio = pod.priority
        for ni in nodes:
            for p in ni.pods:
                if p.priority < prio:
                    return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NO_VICTIMS)

    def select_victims_on_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pdbs: Sequence[PodDisruptionBudget],
    ) -> tuple[list[Pod], int, Status | None]:
        handle = self.handle
        # First remove every pod that may be preempted and see whether the pod fits.
        potential = [p for p in node_info.pods if self._is_preemption_allowed(node_info, p, pod)]
        # no PreFilter extension: nothing observes the node between two changes
        quiet = self.fast_dry_run and not handle.has_pre_filter_extensions(state)
        if quiet:
            node_info.remove_pods(potential)
        else:
            for p in potential:
                err = _move(handle, state, pod, node_info, p, add=False)
                if err is not None:
                    return [], 0, err
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NO_VICTIMS)

        # Not fitting even without all of them: this node cannot help.  Affinity
        # of the pod to one of the victims is deliberately not considered.
        st = handle.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if st is not None and st.code != Code.SUCCESS:
            return [], 0, st

        self._sort(potential)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        # Reprieve as many as possible, PDB-protected pods first, each group
        # from the most important pod down.
        victims: list[Pod] = []
        err = self._reprieve(state, pod, node_info, violating, victims, quiet)
        if err is not None:
            return [], 0, err
        num_violating = len(victims)
        err = self._reprieve(state, pod, node_info, non_violating, victims, quiet)
        if err is not None:
            return [], 0, err
        if violating and non_violating:
            self._sort(victims)
        return victims, num_violating, None

    def _reprieve(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        pods: Sequence[Pod],
        victims: list[Pod],
        quiet: bool,
    ) -> Status | None:
        """Add each of ``pods`` back in turn; those the pod no longer fits with go again, as victims.

        Only whether the pod fits matters, so with ``fast_dry_run`` the filters
        that ignore the node's pods, which passed on this node, do not run again
        (``refilter_with_nominated_pods``); ``quiet``: no PreFilter extension to run.
        """
        handle = self.handle
        if self.fast_dry_run:
            refilter = handle.refilter_with_nominated_pods
        else:
            refilter = handle.run_filter_plugins_with_nominated_pods
        for p in pods:
            if quiet:  # nothing to tell: the node copy alone changes
                node_info.add_pod(p)
            else:
                err = _move(handle, state, pod, node_info, p, add=True)
                if err is not None:
                    return err
            st = refilter(state, pod, node_info)
            if st is None or st.code == Code.SUCCESS:
                continue
            if quiet:
                node_info.remove_pod(p)
            else:
                err = _move(handle, state, pod, node_info, p, add=False)
                if err is not None:
                    return err
            victims.append(p)
        return None

    def ordered_score_funcs(self, nodes_to_victims: dict[str, Victims]) -> None:
        return None

    # -- helpers -------------------------------------------------------------------
    def _is_preemption_allowed(self, node_info: NodeInfo, victim: Pod, preemptor: Pod) -> bool:
        return victim.priority < preemptor.priority and self.is_eligible_pod(
            node_info, victim, preemptor
        )

    def _sort(self, pods: list[Pod]) -> None:
        """Most important first (upstream's ``sort.Slice`` with MoreImportantPod)."""
        if self.more_important_pod is not None:
            go_sort_slice(pods, self.more_important_pod)
        elif self.fast_dry_run:
            sort_by_importance(pods, PodClock(self.handle.now()))
        else:
            go_sort_slice(pods, more_important(PodClock(self.handle.now())))


def _move(
    handle: Handle,
    state: CycleState,
    pod: Pod,
    node_info: NodeInfo,
    other: Pod,
    *,
    add: bool,
) -> Status | None:
    """Add ``other`` to the node copy (or remove it), then the PreFilter extensions.

    Their failure aborts this node's dry run, as an Error.
    """
    if add:
        node_info.add_pod(other)
        extensions = handle.run_pre_filter_extension_add_pod
    else:
        node_info.remove_pod(other)
        extensions = handle.run_pre_filter_extension_remove_pod
    st = extensions(state, pod, other, node_info)
    if st is None or st.code == Code.SUCCESS:
        return None
    if st.code == Code.ERROR:
        return st
    return Status(Code.ERROR, st.message(), plugin=st.plugin, error=st.error)


def _validate(pct: int, absolute: int) -> None:
    # as ValidateDefaultPreemptionArgs; the config loader reports these with field paths
    if pct < 0 or pct > 100:
        raise ValueError(
            f"minCandidateNodesPercentage: Invalid value: {pct}: not in valid range [0, 100]"
        )
    if absolute < 0:
        raise ValueError(
            f"minCandidateNodesAbsolute: Invalid value: {absolute}: not in valid range [0, inf)"
        )
    if pct == 0 and absolute == 0:
        raise ValueError(
            "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time "
            "as minCandidateNodesAbsolute"
        )


PLUGIN = DefaultPreemption


def new(args: Mapping[str, Any], handle: Handle) -> DefaultPreemption:
    return DefaultPreemption(args or {}, handle)
