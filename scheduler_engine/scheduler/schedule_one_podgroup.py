"""The pod-group cycle, top-down as upstream ``schedule_one_podgroup.go`` (v1.36 alpha).

With the ``GenericWorkload`` gate a pod with ``spec.schedulingGroup`` is not
scheduled alone: popping it pops every other unscheduled member of its group
that is in the queue, and the group is tried in one cycle over one snapshot.

* Members go in a fixed order: higher priority first, then earlier first
  attempt.
* Each member is filtered and scored as a single pod would be (PostFilter,
  i.e. preemption, included); a member that fits is assumed and reserved and
  its Permit is asked, so later members see it placed.  A member that needs
  preemption is assumed on its nominated node.
* The group is schedulable as soon as one member's Permit answers Success
  (GangScheduling: ``minCount`` members scheduled); if a member needed
  preemption the group waits for it instead.  Every assumed member is then
  forgotten again: nothing of the cycle stays.
* Accepted: the members that fit are assumed, reserved and permitted again
  and bound; members that did not fit keep their own failure.  Rejected:
  members that fit are unschedulable with ``pod group is unschedulable, ``
  and their Permit message; the others keep their own failure.
* With ``TopologyAwareWorkloadScheduling`` the cycle runs once per placement
  (PlacementGenerate; TopologyPlacementGenerator: one per topology domain),
  each seeing only its nodes (``0/N nodes`` counts them), and PlacementScore
  picks among the placements that fit; when none fits the group's status is
  ``0/P placements are available, first placement status: ...``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..framework.cycle_state import CycleState
from ..framework.placement import Placement, PodGroupAssignments, PodGroupInfo
from ..framework.status import Code, Status
from .schedule_one import Attempt, AttemptStatus, Scheduler

if TYPE_CHECKING:  # pragma: no cover
    from ..framework.runtime import Framework
    from ..objects import Pod

__all__ = [
    "ERR_POD_GROUP_UNSCHEDULABLE",
    "MSG_WAITING_FOR_PREEMPTION",
    "GroupOutcome",
    "MemberResult",
    "PodGroupScheduler",
]

# WorkloadAwarePreemption, given the group's pods and a way to try the group again:
# None when victims were evicted (the group waits for them), else why not
GroupPreempt = Callable[
    ["Framework", PodGroupInfo, "list[Pod]", Callable[[], "Status | None"]], "Status | None"
]

ERR_POD_GROUP_UNSCHEDULABLE = "pod group is unschedulable"
MSG_WAITING_FOR_PREEMPTION = "pod group is waiting for preemption to complete"


@dataclass
class MemberResult:
    """One member's try in a pod-group cycle (upstream ``algorithmResult``)."""

    pod: Pod
    attempt: Attempt
    state: CycleState
    # the host it was assumed on (its nominated node when it needs preemption)
    host: str | None = None
    requires_preemption: bool = False
    # set when the member was assumed (fit, or needs preemption): Permit's answer
    permit: Status | None = None
    assumed: bool = False

    @property
    def fits(self) -> bool:
        return self.assumed and not self.requires_preemption


@dataclass
class GroupOutcome:
    """The pod group's result for one cycle (upstream ``podGroupAlgorithmResult``)."""

    members: list[MemberResult]
    # None: schedulable; else Unschedulable or Error with upstream's message
    status: Status | None
    waiting_on_preemption: bool = False
    # with placements: the one chosen (or None) and what each placement gave
    placement: str | None = None
    placements: list[dict[str, object]] = field(default_factory=list)
    # with placements: each placement's members, by placement name (for the diagnosis)
    placement_members: dict[str, list[MemberResult]] = field(default_factory=dict)

    @property
    def success(self) -> bool:
        return self.status is None

    def compact(self) -> None:
        """Every member's attempt, in every placement tried, made final (``Attempt.compact``)."""
        for mr in self.members:
            mr.attempt.compact()
        for members in self.placement_members.values():
            for mr in members:
                mr.attempt.compact()


def _group_rejected(*reasons: str) -> Status:
    # NewStatus(Unschedulable, reasons...).WithError(errPodGroupUnschedulable):
    # Message() puts the error first
    return Status(Code.UNSCHEDULABLE, ERR_POD_GROUP_UNSCHEDULABLE, *reasons)


class PodGroupScheduler:
    """Runs pod-group cycles with a :class:`Scheduler`'s algorithm and context."""

    def __init__(
        self,
        sched: Scheduler,
        *,
        placements: bool = False,
        preempt_group: GroupPreempt | None = None,
    ) -> None:
        self.sched = sched
        self.ctx = sched.ctx
        # TopologyAwareWorkloadScheduling: the placement algorithm
        self.placements = placements
        # WorkloadAwarePreemption: run when the group is unschedulable
        self.preempt_group = preempt_group

    # -- the cycle ------------------------------------------------------------------------
    def schedule_pod_group(
        self, fwk: Framework, group: PodGroupInfo, pods: list[Pod]
    ) -> tuple[list[Attempt], GroupOutcome]:
        """One cycle for ``pods`` (already in upstream's order); an attempt per pod."""
        # upstream pops every member before the cycle: each pop counts
        self.sched.cycle += len(pods)
        names = {p.scheduler_name for p in pods}
        if len(names) > 1:
            a, b = sorted(names)[:2]
            msg = (
                "all pods in a single pod group should have the same .spec.schedulerName set, "
                f'got: "{b}" and "{a}"'
            )
            out = GroupOutcome([], Status(Code.ERROR, msg))
            return [Attempt(AttemptStatus.ERROR, message=msg, nominated_node="") for _ in pods], out
        outcome = self._algorithm(fwk, group, pods)
        if (
            self.preempt_group is not None
            and outcome.status is not None
            and outcome.status.code == Code.UNSCHEDULABLE
        ):
            s = self.preempt_group(
                fwk, group, pods, lambda: self._try_without_post_filters(fwk, group, pods)
            )
            if s is None:
                outcome.waiting_on_preemption = True
            elif s.code == Code.ERROR:
                outcome.status = s
            else:
                gs = outcome.status
                outcome.status = Status(gs.code, *gs.reasons, s.message(), plugin=gs.plugin)
        return self._submit(fwk, pods, outcome), outcome

    def _algorithm(self, fwk: Framework, group: PodGroupInfo, pods: list[Pod]) -> GroupOutcome:
        if self.placements:
            return self._placement_algorithm(fwk, group, pods)
        return self._default_algorithm(fwk, group, pods)

    def _try_without_post_filters(
        self, fwk: Framework, group: PodGroupInfo, pods: list[Pod]
    ) -> Status | None:
        """The group's cycle on the snapshot as it is, no PostFilter: its status (None: fits)."""
        self.sched.skip_post_filters = True
        try:
            return self._algorithm(fwk, group, pods).status
        finally:
            self.sched.skip_post_filters = False

    def _default_algorithm(
        self, fwk: Framework, group: PodGroupInfo, pods: list[Pod]
    ) -> GroupOutcome:
        """Each member in turn over the current snapshot (upstream ``podGroupSchedulingDefaultAlgorithm``)."""
        outcome = GroupOutcome([], _group_rejected())
        assumed: list[MemberResult] = []
        requires_preemption = False
        try:
            for pod in pods:
                mr = self._member_algorithm(fwk, pod)
                outcome.members.append(mr)
                if not mr.assumed:
                    if mr.attempt.status == AttemptStatus.UNSCHEDULABLE:
                        continue
                    outcome.status = Status(
                        Code.ERROR,
                        f"failed to schedule other pod from a pod group: {mr.attempt.message}",
                    )
                    outcome.waiting_on_preemption = False
                    break
                assumed.append(mr)
                requires_preemption = requires_preemption or mr.requires_preemption
                if mr.permit is None or mr.permit.code == Code.SUCCESS:
                    if requires_preemption:
                        outcome.status = _group_rejected(MSG_WAITING_FOR_PREEMPTION)
                        outcome.waiting_on_preemption = True
                    else:
                        outcome.status = None
        finally:
            # the members were assumed only to try the later ones: forget them all
            for mr in reversed(assumed):
                self._revert(fwk, mr)
        return outcome

    def _member_algorithm(self, fwk: Framework, pod: Pod) -> MemberResult:
        """Filter, score, assume, reserve and ask Permit for one member."""
        sched = self.sched
        ctx = self.ctx
        ctx.current_pod = pod.key
        state = CycleState()
        att = sched._scheduling_algorithm(fwk, state, pod)
        mr = MemberResult(pod, att, state)
        if att.status != AttemptStatus.SCHEDULED:
            if not att.nominated_node:
                return mr
            # needs preemption: assumed on its nominated node so later members see it there
            mr.requires_preemption = True
            host = att.nominated_node
        else:
            assert att.node is not None
            host = att.node
        mr.host = host
        self._assume(pod, host)
        s = fwk.run_reserve_plugins_reserve(state, pod, host)
        if s is not None and s.code != Code.SUCCESS:
            self._forget(fwk, state, pod, host)
            mr.attempt = sched._cycle_failure(s, host, Attempt(AttemptStatus.UNSCHEDULABLE))
            mr.requires_preemption = False
            return mr
        mr.assumed = True
        permit, _ = fwk.run_permit_plugins(state, pod, host)
        mr.permit = permit
        if permit is not None and permit.code not in (Code.SUCCESS, Code.WAIT):
            self._forget(fwk, state, pod, host)
            mr.assumed = False
            mr.requires_preemption = False
            mr.attempt = sched._cycle_failure(permit, host, Attempt(AttemptStatus.UNSCHEDULABLE))
        return mr

    def _assume(self, pod: Pod, host: str) -> None:
        pod.node_name = host
        self.ctx.snapshot.add_pod(pod, host)
        self.ctx.delete_nominated(pod)
        self.ctx.pod_groups.assume(pod)

    def _forget(self, fwk: Framework, state: CycleState, pod: Pod, host: str) -> None:
        fwk.run_reserve_plugins_unreserve(state, pod, host)
        self.ctx.snapshot.remove_pod(pod, host)
        pod.node_name = ""
        self.ctx.pod_groups.forget(pod)
        if pod.nominated_node_name:
            # assume dropped the nomination; the group cycle puts it back
            self.ctx.nominate(pod, pod.nominated_node_name)

    def _revert(self, fwk: Framework, mr: MemberResult) -> None:
        if mr.assumed and mr.host is not None:
            self._forget(fwk, mr.state, mr.pod, mr.host)

    # -- placements ----------------------------------------------------------------------
    def _placement_algorithm(
        self, fwk: Framework, group: PodGroupInfo, pods: list[Pod]
    ) -> GroupOutcome:
        """Upstream ``podGroupSchedulingPlacementAlgorithm``: try each placement, score the ones that fit."""
        all_nodes = self.ctx.snapshot.node_info_list
        state = CycleState()
        placements, s = fwk.run_placement_generate_plugins(state, group, all_nodes)
        if s is not None:
            return GroupOutcome([], s)
        assert placements is not None
        first: GroupOutcome | None = None
        fitting: list[tuple[Placement, GroupOutcome]] = []
        tried: list[dict[str, object]] = []
        members: dict[str, list[MemberResult]] = {}
        for pl in placements:
            whole = len(pl.nodes) == len(all_nodes)
            self.sched.placement_nodes = None if whole else list(pl.nodes)
            try:
                res = self._default_algorithm(fwk, group, pods)
            finally:
                self.sched.placement_nodes = None
            tried.append(
                {
                    "name": pl.name,
                    "nodes": len(pl.nodes),
                    "placed": sum(1 for m in res.members if m.assumed),
                    "status": "Fits"
                    if res.success or res.waiting_on_preemption
                    else "Unschedulable",
                    "message": res.status.message() if res.status is not None else "",
                }
            )
            members[pl.name] = res.members
            if res.status is not None and res.status.code == Code.ERROR:
                res.placements = tried
                res.placement_members = members
                return res
            if first is None:
                first = res
            if res.success or res.waiting_on_preemption:
                fitting.append((pl, res))
        assert first is not None
        if not fitting:
            assert first.status is not None
            first.status = Status(
                Code.UNSCHEDULABLE,
                f"0/{len(placements)} placements are available, first placement status: "
                f"{_as_error(first.status)}",
            )
            first.placements = tried
            first.placement_members = members
            return first
        if len(fitting) == 1:
            best_pl, best = fitting[0]
        else:
            candidates = [
                PodGroupAssignments(
                    pl, [(m.pod, m.host) for m in res.members if m.host is not None]
                )
                for pl, res in fitting
            ]
            scores, s = fwk.run_placement_score_plugins(state, group, candidates)
            if s is not None:
                return GroupOutcome([], s, placements=tried)
            assert scores is not None
            for entry, (total, parts) in zip(tried_for(tried, fitting), scores, strict=True):
                entry["score"] = total
                entry["scores"] = parts
            top = max(t for t, _ in scores)
            ties = [i for i, (t, _) in enumerate(scores) if t == top]
            k = ties[0] if len(ties) == 1 else ties[self.ctx.rng.randrange(len(ties))]
            best_pl, best = fitting[k]
        best.placement = best_pl.name
        best.placements = tried
        best.placement_members = members
        return best

    # -- the results ------------------------------------------------------------------------
    def _submit(self, fwk: Framework, pods: list[Pod], outcome: GroupOutcome) -> list[Attempt]:
        """Each member's attempt (upstream ``submitPodGroupAlgorithmResult``)."""
        out: list[Attempt] = []
        gs = outcome.status
        for i in range(len(pods)):
            mr = outcome.members[i] if i < len(outcome.members) else None
            if mr is None:
                # the group failed before this member was tried: the group's status
                assert gs is not None
                code = AttemptStatus.ERROR if gs.code == Code.ERROR else AttemptStatus.UNSCHEDULABLE
                out.append(Attempt(code, message=gs.message(), nominated_node=""))
                continue
            if gs is not None and gs.code == Code.ERROR:
                if mr.attempt.status == AttemptStatus.ERROR:
                    out.append(mr.attempt)
                else:
                    out.append(
                        Attempt(AttemptStatus.ERROR, message=gs.message(), nominated_node="")
                    )
                continue
            if mr.fits:
                assert mr.host is not None
                if outcome.success:
                    out.append(self._bind_member(fwk, mr))
                elif outcome.waiting_on_preemption:
                    assert gs is not None
                    out.append(
                        Attempt(
                            AttemptStatus.UNSCHEDULABLE,
                            message=gs.message(),
                            nominated_node=mr.host,
                        )
                    )
                else:
                    out.append(self._rejected_member(mr))
                continue
            if mr.requires_preemption and not outcome.waiting_on_preemption:
                out.append(self._rejected_member(mr))
                continue
            out.append(mr.attempt)
        return out

    def _rejected_member(self, mr: MemberResult) -> Attempt:
        permit_msg = mr.permit.message() if mr.permit is not None else ""
        return Attempt(
            AttemptStatus.UNSCHEDULABLE,
            message=_group_rejected(permit_msg).message(),
            nominated_node="",
            diagnosis=mr.attempt.diagnosis,
        )

    def _bind_member(self, fwk: Framework, mr: MemberResult) -> Attempt:
        """Assume, reserve and permit again outside the group cycle, then bind (or wait)."""
        assert mr.host is not None
        att = mr.attempt
        att.node = mr.host
        return self.sched.assume_and_bind(fwk, mr.state, mr.pod, att)


def tried_for(
    tried: list[dict[str, object]], fitting: list[tuple[Placement, GroupOutcome]]
) -> list[dict[str, object]]:
    """The entries of ``tried`` for the fitting placements, in ``fitting``'s order."""
    names = [pl.name for pl, _ in fitting]
    by_name = {str(t["name"]): t for t in tried}
    return [by_name[n] for n in names]


def _as_error(s: Status) -> str:
    # Status.AsError(): the error (errPodGroupUnschedulable) when set, else the message
    if s.reasons and s.reasons[0] == ERR_POD_GROUP_UNSCHEDULABLE:
        return ERR_POD_GROUP_UNSCHEDULABLE
    return s.message()
