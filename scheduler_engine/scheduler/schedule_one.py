"""One pod's scheduling attempt, top-down as upstream ``schedule_one.go``.

Scheduling cycle: PreFilter → (nominated node first) → Filter over the nodes
in rotated order until enough feasible nodes are found → on failure PostFilter
and a :class:`~.messages.FitError` → with one feasible node no scoring →
PreScore/Score → select the host (ties as upstream's heap leaves them) → assume →
Reserve → Permit.  Binding cycle: PreBind → Bind → PostBind.  Every failure
after assume unreserves and forgets the pod.

The framework runtime runs the filters over the nodes
(:meth:`~scheduler_engine.framework.runtime.Framework.find_nodes_that_pass_filters`)
and decides between plugins' per-node and vectorised methods; this module
keeps upstream's bookkeeping around it (the nominated node first, the
rotating start index, the diagnosis).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

from ..config.defaults import FEATURE_GATES
from ..framework.cycle_state import CycleState
from ..framework.handle import SimulationContext, WaitingPod
from ..framework.node_info import NodeInfo
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ..gocompat import go_list
from ..goheap import GoHeap, heap_top_of_ties
from .batching import GATE, Hints, OpportunisticBatch
from .messages import Diagnosis, FitError

if TYPE_CHECKING:  # pragma: no cover
    from ..framework.interfaces import PostFilterResult
    from ..objects import Pod

__all__ = [
    "ERR_NO_NODES_AVAILABLE",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "Attempt",
    "AttemptStatus",
    "Scheduler",
    "num_feasible_nodes_to_find",
]

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"


def num_feasible_nodes_to_find(
    percentage_of_nodes_to_score: int | None, global_percentage: int | None, num_all_nodes: int
) -> int:
    """How many feasible nodes end the search (upstream ``numFeasibleNodesToFind``).

    The profile's percentage overrides the global one; 0 means adaptive:
    ``50 - numAllNodes/125`` percent, at least 5 percent, at least 100 nodes.
    """
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    pct = (
        percentage_of_nodes_to_score
        if percentage_of_nodes_to_score is not None
        else (global_percentage or 0)
    )
    if pct == 0:
        pct = 50 - num_all_nodes // 125
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    n = num_all_nodes * pct // 100
    return max(n, MIN_FEASIBLE_NODES_TO_FIND)


class AttemptStatus(StrEnum):
    """How one scheduling attempt ended."""

    SCHEDULED = "Scheduled"
    UNSCHEDULABLE = "Unschedulable"
    ERROR = "Error"
    # Permit asked to wait: the binding cycle continues when the pod is allowed
    WAITING = "Waiting"


@dataclass
class Attempt:
    """The outcome of one scheduling attempt of one pod."""

    status: AttemptStatus
    node: str | None = None
    message: str = ""
    fit_error: FitError | None = None
    # the PostFilter nomination: None = unchanged, "" = cleared, else the node
    nominated_node: str | None = None
    victims: list[str] = field(default_factory=list)
    diagnosis: Diagnosis | None = None
    # explain: node → total score (scored nodes only)
    scores: dict[str, int] | None = None
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    waiting: WaitingPod | None = None
    state: CycleState | None = None
    # assumed, then forgotten in the binding cycle (a waiting pod rejected, PreBind or Bind
    # failed): upstream's handleBindingCycleError treats this as an assigned pod's delete
    forgotten: bool = False

    @property
    def failure_message(self) -> str:
        """A failed attempt's ``FailedScheduling`` message (upstream ``FitError.Error()``)."""
        return self.fit_error.error() if self.fit_error is not None else self.message

    def compact(self) -> None:
        """Once the attempt is final, drop what only an explanation reads: the status
        of every node (the FitError keeps its message and histograms) and the cycle
        state. A waiting attempt still needs both."""
        if self.status == AttemptStatus.WAITING:
            return
        if self.fit_error is not None:
            self.fit_error.compact()
            self.diagnosis = self.fit_error.diagnosis
        else:
            self.diagnosis = None
        self.state = None


class Scheduler:
    """The scheduling algorithm over one shared context (upstream ``Scheduler``)."""

    def __init__(
        self,
        ctx: SimulationContext,
        frameworks: dict[str, Framework],
        *,
        percentage_of_nodes_to_score: int | None = None,
        explain: bool = False,
        node_rank: np.ndarray | None = None,
        random_ties: bool = False,
    ) -> None:
        self.ctx = ctx
        # ties among top-scored nodes go to the lowest rank (by NodeInfo.index) when
        # given, as the FGD simulator's scheduler does; with random_ties uniformly at
        # random (trace replay's "random"); otherwise to the root of upstream's heap
        self.node_rank = node_rank
        self.random_ties = random_ties
        self.frameworks = frameworks
        self.percentage_of_nodes_to_score = percentage_of_nodes_to_score
        self.explain = explain
        self.next_start_node_index = 0
        # a pod-group cycle's placement: the only nodes the algorithm sees (None: all)
        self.placement_nodes: list[NodeInfo] | None = None
        # workload-aware preemption tries a pod group without PostFilter
        self.skip_post_filters = False
        # the queue's count of popped pods (upstream SchedulingCycle), and each
        # profile's OpportunisticBatching results
        self.cycle = 0
        self.batches: dict[str, OpportunisticBatch] = {}

    # -- the scheduling cycle -----------------------------------------------------
    def schedule_one(self, fwk: Framework, pod: Pod) -> Attempt:
        """Scheduling cycle, then (unless Permit waits) the binding cycle."""
        self.ctx.current_pod = pod.key
        self.cycle += 1
        state = CycleState()
        att = self._scheduling_algorithm(fwk, state, pod)
        if att.status != AttemptStatus.SCHEDULED:
            return att
        return self.assume_and_bind(fwk, state, pod, att)

    def assume_and_bind(self, fwk: Framework, state: CycleState, pod: Pod, att: Attempt) -> Attempt:
        """Assume the pod on ``att.node``, Reserve, Permit, then bind (or wait for Permit)."""
        host = att.node
        assert host is not None
        # assume: the pod occupies the node in the snapshot from now on
        pod.node_name = host
        self.ctx.snapshot.add_pod(pod, host)
        self.ctx.delete_nominated(pod)
        if self.ctx.pod_groups:
            self.ctx.pod_groups.assume(pod)

        s = fwk.run_reserve_plugins_reserve(state, pod, host)
        if s is not None and s.code != Code.SUCCESS:
            self._unreserve_and_forget(fwk, state, pod, host)
            return self._cycle_failure(s, host, att)

        s, waits = fwk.run_permit_plugins(state, pod, host)
        if s is not None and s.code == Code.WAIT:
            wp = WaitingPod(pod, waits, self.ctx.now())
            self.ctx.waiting[pod.uid] = wp
            att.status = AttemptStatus.WAITING
            att.waiting = wp
            att.state = state
            return att
        if s is not None and s.code != Code.SUCCESS:
            self._unreserve_and_forget(fwk, state, pod, host)
            return self._cycle_failure(s, host, att)
        return self.binding_cycle(fwk, state, pod, att)

    def binding_cycle(self, fwk: Framework, state: CycleState, pod: Pod, att: Attempt) -> Attempt:
        host = att.node
        assert host is not None
        s = fwk.run_pre_bind_plugins(state, pod, host)
        if s is None or s.code in (Code.SUCCESS, Code.SKIP):
            s = fwk.run_bind_plugins(state, pod, host)
            if s is not None and s.code == Code.SKIP:
                s = Status(Code.ERROR, "no Bind plugin bound the pod", plugin="")
        if s is not None and s.code != Code.SUCCESS:
            self._unreserve_and_forget(fwk, state, pod, host)
            att.forgotten = True
            att.status = AttemptStatus.UNSCHEDULABLE if s.is_rejected() else AttemptStatus.ERROR
            att.node = None
            att.message = s.message()
            return att
        fwk.run_post_bind_plugins(state, pod, host)
        att.status = AttemptStatus.SCHEDULED
        return att

    def finish_waiting(self, fwk: Framework, att: Attempt) -> Attempt:
        """A waiting pod was allowed by every plugin, or rejected (by a plugin or a timeout)."""
        wp = att.waiting
        assert wp is not None and att.state is not None and att.node is not None
        self.ctx.waiting.pop(wp.pod.uid, None)
        pod = wp.pod
        s = wp.status
        if s is not None and s.code == Code.SUCCESS:
            return self.binding_cycle(fwk, att.state, pod, att)
        host = att.node
        self._unreserve_and_forget(fwk, att.state, pod, host)
        att.forgotten = True
        assert s is not None
        if s.is_rejected():
            d = Diagnosis()
            d.node_to_status.set(host, s)
            d.unschedulable_plugins.add(s.plugin)
            fe = FitError(pod.key, 1, d)
            att.fit_error = fe
            att.message = fe.error()
            att.status = AttemptStatus.UNSCHEDULABLE
        else:
            att.status = AttemptStatus.ERROR
            att.message = f"waiting on permit for pod: {s.message()}"
        att.node = None
        return att

    def _cycle_failure(self, s: Status, host: str, att: Attempt) -> Attempt:
        """Reserve or Permit said no: a rejection is a FitError over the one chosen node."""
        att.node = None
        if s.is_rejected():
            d = Diagnosis()
            d.node_to_status.set(host, s)
            d.add_plugin_status(s)
            fe = FitError("", 1, d)
            att.fit_error = fe
            att.message = fe.error()
            att.status = AttemptStatus.UNSCHEDULABLE
        else:
            att.status = AttemptStatus.ERROR
            att.message = s.message()
        att.nominated_node = ""
        return att

    def _unreserve_and_forget(self, fwk: Framework, state: CycleState, pod: Pod, host: str) -> None:
        fwk.run_reserve_plugins_unreserve(state, pod, host)
        self.ctx.snapshot.remove_pod(pod, host)
        pod.node_name = ""
        if self.ctx.pod_groups:
            self.ctx.pod_groups.forget(pod)

    # -- the algorithm ----------------------------------------------------------------
    def _scheduling_algorithm(self, fwk: Framework, state: CycleState, pod: Pod) -> Attempt:
        snapshot = self.ctx.snapshot
        num_nodes = len(snapshot) if self.placement_nodes is None else len(self.placement_nodes)
        if num_nodes == 0:
            return Attempt(
                AttemptStatus.UNSCHEDULABLE, message=ERR_NO_NODES_AVAILABLE, nominated_node=""
            )
        batch, sig = self._batch_of(fwk, pod)
        feasible, diagnosis, err, hint = self._find_nodes_that_fit_pod(fwk, state, pod, batch, sig)
        if err is not None:
            return Attempt(
                AttemptStatus.ERROR, message=err.message(), nominated_node="", diagnosis=diagnosis
            )
        if not feasible:
            fe = FitError(pod.key, num_nodes, diagnosis)
            att = Attempt(AttemptStatus.UNSCHEDULABLE, fit_error=fe, diagnosis=diagnosis)
            if self.skip_post_filters or not fwk.has_post_filter_plugins():
                att.nominated_node = ""
                att.message = fe.error()
                return att
            n_ev = len(self.ctx.evictions)
            result, s = fwk.run_post_filter_plugins(state, pod, diagnosis.node_to_status)
            diagnosis.post_filter_msg = s.message()
            att.message = fe.error()
            self._apply_post_filter(pod, result, att, n_ev)
            return att
        evaluated = len(feasible) + len(diagnosis.node_to_status)
        if len(feasible) == 1:
            if batch is not None:
                batch.store(sig, hint, feasible[0].name, None, self.cycle, self.ctx.now())
            return Attempt(
                AttemptStatus.SCHEDULED,
                node=feasible[0].name,
                diagnosis=diagnosis,
                evaluated_nodes=evaluated,
                feasible_nodes=1,
            )
        k, totals, err = self._prioritize_and_select(fwk, state, pod, feasible)
        if err is not None:
            return Attempt(
                AttemptStatus.ERROR, message=err.message(), nominated_node="", diagnosis=diagnosis
            )
        host = feasible[k].name
        scores = None
        if self.explain:
            scores = {ni.name: int(t) for ni, t in zip(feasible, totals.tolist(), strict=True)}
        if batch is not None:
            others = self._others(feasible, totals, k) if sig is not None else None
            batch.store(sig, hint, host, others, self.cycle, self.ctx.now())
        return Attempt(
            AttemptStatus.SCHEDULED,
            node=host,
            diagnosis=diagnosis,
            scores=scores,
            evaluated_nodes=evaluated,
            feasible_nodes=len(feasible),
        )

    def _apply_post_filter(
        self, pod: Pod, result: PostFilterResult | None, att: Attempt, n_ev: int
    ) -> None:
        ctx = self.ctx
        # victims the plugin chose but did not evict through the handle
        if result is not None:
            for v in result.victims:
                if v.node_name and ctx.snapshot.get(v.node_name) is not None:
                    ni = ctx.snapshot.get(v.node_name)
                    if ni is not None and any(p.key == v.key for p in ni.pods):
                        ctx.evict(v)
        att.victims = [e.victim.key for e in ctx.evictions[n_ev:]]
        info = result.nominating_info if result is not None else None
        if info is not None and info.mode == "Override":
            att.nominated_node = info.nominated_node_name

    # -- filtering ----------------------------------------------------------------------
    def _find_nodes_that_fit_pod(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        batch: OpportunisticBatch | None = None,
        sig: str | None = None,
    ) -> tuple[list[NodeInfo], Diagnosis, Status | None, str]:
        """(feasible nodes, diagnosis, error, the batch's hint or "")."""
        diagnosis = Diagnosis()
        all_nodes = self.placement_nodes
        if all_nodes is None:
            all_nodes = self.ctx.snapshot.node_info_list
        pre_res, s, unsched = fwk.run_pre_filter_plugins(state, pod)
        diagnosis.unschedulable_plugins = set(unsched)
        if s is not None and s.code != Code.SUCCESS:
            if not s.is_rejected():
                return [], diagnosis, s, ""
            diagnosis.node_to_status.absent = s
            diagnosis.pre_filter_msg = s.message()
            diagnosis.add_plugin_status(s)
            return [], diagnosis, None, ""

        hint = ""
        if batch is not None:
            hint = batch.node_hint(
                sig, self.cycle, self.ctx.now(), lambda n: self._rejects(fwk, state, pod, n)
            )
        # the nominated node first, else the batch's hint (the hint is used up either way)
        nominated_failed: str | None = None
        first = pod.nominated_node_name or hint
        if first:
            ni = self.ctx.snapshot.get(first)
            if ni is not None:
                feasible, _, err = self._find_nodes_that_pass_filters(
                    fwk, state, pod, diagnosis, [ni]
                )
                # upstream logs a failed evaluation of the nominated node and goes on
                # with every node (schedule_one.go findNodesThatFitPod)
                if err is None and feasible:
                    return feasible, diagnosis, None, hint
                if ni.name in diagnosis.node_to_status.statuses:
                    nominated_failed = ni.name

        nodes = all_nodes
        if pre_res is not None and pre_res.node_names is not None:
            names = pre_res.node_names
            nodes = [ni for ni in all_nodes if ni.name in names]
            diagnosis.node_to_status.absent = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f"node(s) didn't satisfy plugin(s) {go_list(sorted(unsched))}",
            )
        start = self.next_start_node_index
        feasible, examined, err = self._find_nodes_that_pass_filters(
            fwk, state, pod, diagnosis, nodes
        )
        # upstream: len(feasible) + len(NodeToStatus); the nominated node's failed
        # status counts once more when the full pass did not reach that node again
        processed = examined
        if nominated_failed is not None and nodes:
            pos = next((i for i, ni in enumerate(nodes) if ni.name == nominated_failed), None)
            if pos is None or (pos - start) % len(nodes) >= examined:
                processed += 1
        if all_nodes:
            self.next_start_node_index = (self.next_start_node_index + processed) % len(all_nodes)
        if err is not None:
            return [], diagnosis, err, hint
        return feasible, diagnosis, None, hint

    def _find_nodes_that_pass_filters(
        self,
        fwk: Framework,
        state: CycleState,
        pod: Pod,
        diagnosis: Diagnosis,
        nodes: list[NodeInfo],
    ) -> tuple[list[NodeInfo], int, Status | None]:
        """(feasible nodes, nodes examined, error) — upstream ``findNodesThatPassFilters``."""
        n = len(nodes)
        if n == 0:
            return [], 0, None
        to_find = num_feasible_nodes_to_find(
            fwk.percentage_of_nodes_to_score, self.percentage_of_nodes_to_score, n
        )
        if not fwk.has_score_plugins():
            to_find = 1
        start = self.next_start_node_index % n
        if not fwk.has_filter_plugins():
            k = min(to_find, n)
            return [nodes[(start + i) % n] for i in range(k)], k, None
        found = fwk.find_nodes_that_pass_filters(state, pod, nodes, start, to_find)
        diagnosis.node_to_status.statuses.update(found.rejected)
        # nodes a filter rejects alike share a status: each one counts once
        for s in {id(s): s for _, s in found.rejected}.values():
            diagnosis.add_plugin_status(s)
        if found.error is not None:
            return [], found.examined, found.error
        return found.feasible, found.examined, None

    # -- scoring --------------------------------------------------------------------------
    def _prioritize_and_select(
        self, fwk: Framework, state: CycleState, pod: Pod, feasible: list[NodeInfo]
    ) -> tuple[int, np.ndarray, Status | None]:
        """(the chosen node's position in ``feasible``, every node's total, error)."""
        if not fwk.has_score_plugins():
            totals = np.ones(len(feasible), dtype=np.int64)
        else:
            s = fwk.run_pre_score_plugins(state, pod, feasible)
            if s is not None and s.code != Code.SUCCESS:
                return 0, np.zeros(0, dtype=np.int64), s
            res, s = fwk.run_score_plugins(state, pod, feasible)
            if s is not None:
                return 0, np.zeros(0, dtype=np.int64), s
            assert res is not None
            totals = res.totals
        best = int(totals.max())
        ties = np.flatnonzero(totals == best)
        if len(ties) == 1:
            k = int(ties[0])
        elif self.node_rank is not None:
            ranks = self.node_rank[[feasible[t].index for t in ties.tolist()]]
            k = int(ties[int(np.argmin(ranks))])
        elif self.random_ties:
            k = int(ties[self.ctx.rng.randrange(len(ties))])
        else:
            k = heap_top_of_ties(ties)
        return k, totals, None

    # -- OpportunisticBatching ------------------------------------------------------------
    def _batch_of(self, fwk: Framework, pod: Pod) -> tuple[OpportunisticBatch | None, str | None]:
        """The profile's batch and the pod's signature; no batch when the gate is off or
        the profile signs no pod (it could never give a hint)."""
        if fwk.signers is None or not self.ctx.feature_gates.get(GATE, FEATURE_GATES[GATE]):
            return None, None
        batch = self.batches.get(fwk.profile_name)
        if batch is None:
            batch = self.batches[fwk.profile_name] = OpportunisticBatch()
        return batch, fwk.sign_pod(pod)

    def _rejects(self, fwk: Framework, state: CycleState, pod: Pod, name: str) -> bool | None:
        """Whether the Filter plugins reject ``pod`` on node ``name`` (None: no such node)."""
        ni = self.ctx.snapshot.get(name)
        if ni is None:
            return None
        s = fwk.run_filter_plugins_unrecorded(state, pod, ni)
        return s is not None and s.is_rejected()

    def _others(self, feasible: list[NodeInfo], totals: np.ndarray, chosen: int) -> Hints:
        """The scored nodes but the chosen one, the next best popped first: upstream's
        heap after its Pop, or, with another tie-break, a list worst first."""
        if self.node_rank is None and not self.random_ties:
            names = [ni.name for ni in feasible]
            total = dict(zip(names, totals.tolist(), strict=True))
            heap = GoHeap(names, lambda a, b: total[a] > total[b])
            heap.pop()
            return heap
        if self.node_rank is not None:
            tie = -self.node_rank[[ni.index for ni in feasible]]
        else:
            tie = np.random.default_rng(self.ctx.rng.getrandbits(32)).permutation(len(feasible))
        order = np.lexsort((tie, totals))
        return [feasible[i].name for i in order.tolist() if i != chosen]


def pod_volume_claims(pod: Pod) -> list[str]:
    """PVCs a pod uses, including the ones generic ephemeral volumes create."""
    out = list(pod.pvc_names)
    for v in pod.spec.get("volumes") or []:
        if isinstance(v, dict) and v.get("ephemeral") is not None:
            out.append(f"{pod.name}-{v.get('name')}")
    return out
