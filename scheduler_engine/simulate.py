"""Run the scheduler over a cluster: every pending pod, in queue order, with explanations.

``simulate(cluster, config)`` builds one framework per profile over a copy of
the cluster (the caller's objects are not changed), runs the scheduling loop
with the queue semantics of :mod:`scheduler_engine.scheduler.queue`, and
returns a :class:`SimulationResult` whose ``to_dict()`` is the JSON document
of the engine CLI's contract (``results`` in queue order, then ``summary``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from . import podgroup_preemption as wap
from .cascade import CascadeTracker
from .cluster import ClusterState
from .config import SchedulerConfig, extender_warnings, load_config
from .controllers import emulate_controllers
from .framework.handle import WaitingPod
from .framework.interfaces import QueuedPodInfo
from .framework.placement import PodGroupInfo
from .framework.pod_group_state import PodGroupStates
from .framework.recorder import Recorder
from .framework.registry import Registry, default_registry
from .framework.runtime import Framework
from .framework.snapshot import Snapshot
from .framework.status import Code, Status
from .gang_diagnosis import broken_gangs
from .gang_views import coscheduling_gang_views, native_gang_views
from .objects import Pod
from .objects.pod import parse_time
from .objects.podgroup import index_native_pod_groups
from .pod_result import pod_result
from .results import (
    STATUS_UNSCHEDULABLE,
    PodResult,
    PodStatus,
    SimulationResult,
)
from .scheduler import events as ev
from .scheduler.build import new_scheduler
from .scheduler.queue import ActiveQueue
from .scheduler.requeue import POD_ADD, POD_DELETE, worth_requeuing
from .scheduler.schedule_one import Attempt, AttemptStatus, pod_volume_claims
from .scheduler.schedule_one_podgroup import GroupOutcome, PodGroupScheduler
from .whatif.moves import Scheduling
from .whatif.report import what_if

__all__ = ["MAX_ROUNDS", "default_clock", "simulate"]


# retry rounds for pods left unschedulable while the cluster still changes
MAX_ROUNDS = 10

# simulated time one scheduling cycle takes (the clock only needs to be deterministic)
CYCLE_SECONDS = 0.001

VOLUME_PLUGINS = ("VolumeBinding", "VolumeRestrictions", "VolumeZone", "NodeVolumeLimits")
ERR_VOLUMES_UNAVAILABLE = (
    "volume scheduling is unavailable: the pod uses PersistentVolumeClaim(s) {claims} "
    "and the plugin(s) {plugins} of its profile are not available"
)


class _PodState:
    __slots__ = (
        "attempt",
        "attempts",
        "events",
        "fwk",
        "last_event",
        "nominated",
        "preempted",
        "qpi",
        "seq",
        "victims",
    )

    def __init__(self, qpi: QueuedPodInfo, seq: int, fwk: Framework) -> None:
        self.qpi = qpi
        self.seq = seq
        self.fwk = fwk
        self.attempt: Attempt | None = None
        self.attempts = 0
        # how many cluster events had happened at the end of its last attempt
        self.last_event = 0
        self.victims: list[str] = []
        self.nominated: str | None = None
        self.events: list[ev.Event] = []
        # explaining: the last attempt that failed and nominated a node (preempted),
        # when a later attempt followed it; its record is kept aside by the recorder
        self.preempted: Attempt | None = None


def default_clock(pods: Iterable[Pod], pod_groups: Iterable[Mapping[str, Any]]) -> float:
    """Now: no earlier than anything was made that the queue sorts by (pods, PodGroups).

    What ``simulate`` starts its clock at when given no ``now``; the latest of
    two parts is the clock of both together.
    """
    ts: list[float] = []
    for p in pods:
        if p.creation_ts:
            ts.append(p.creation_ts)
        if p.start_ts:
            ts.append(p.start_ts)
    for obj in pod_groups:
        try:
            made = parse_time((obj.get("metadata") or {}).get("creationTimestamp"))
        except (AttributeError, ValueError):
            made = None  # a bad PodGroup is named by whoever parses it
        if made:
            ts.append(made)
    return max(ts) if ts else 0.0


def simulate(
    cluster: ClusterState,
    config: SchedulerConfig | None = None,
    *,
    seed: int = 0,
    explain: bool = False,
    progress: Callable[[int, int], Any] | None = None,
    registry: Registry | None = None,
    now: float | None = None,
    batch: bool = True,
    max_rounds: int = MAX_ROUNDS,
    snapshot: Snapshot | None = None,
    controllers: bool = False,
    feature_gates: Mapping[str, bool] | None = None,
    whatif: bool = False,
    cascade_depth: int = 0,
) -> SimulationResult:
    """Schedule every pending pod of ``cluster``; see the module docstring.

    ``controllers`` first does what kube-controller-manager would for the
    pending pods (claims from templates, Immediate PVCs bound; see
    :mod:`scheduler_engine.controllers`) and reports it as the summary's
    ``controllers``.  ``feature_gates`` (gate → value) are used when
    ``config`` is None; a configuration carries its own
    (``load_config(..., feature_gates=...)``).

    ``whatif`` (with ``explain``) adds to each pod left unschedulable its
    ``nearest`` nodes and verified ``fixes`` (:mod:`scheduler_engine.whatif`),
    worked out on the state the run ends with.

    ``progress(done, total)`` is called after each attempt: of the ``total`` pods
    that entered the queue so far, ``done`` have been tried at least once (a
    retry is no further progress; pods a controller recreates add to ``total``).
    ``now`` is the simulated clock's start (default: the latest pod or PodGroup
    timestamp).  ``batch`` False forces the per-node paths (they must decide identically).
    ``snapshot``, if given, must hold exactly the cluster's nodes and running
    pods; it is used instead of one built from the pods (what a caller keeping
    the running state warm saves) and is changed in place like the cluster's
    own would be: pass ``snapshot.copy()``, or undo the nodes its
    ``change_log`` names (see :mod:`scheduler_engine.warm_cluster`).

    ``cascade_depth`` (at least 1) follows preemption's cascade: the victims
    a controller owns come back as new pending pods and are scheduled in
    turn, up to that depth of evictions (:mod:`scheduler_engine.cascade`);
    the summary's ``cascade`` reports it.  0 (the default) does not.
    """
    t0 = time.perf_counter()
    registry = registry or default_registry()
    if config is None:
        config = load_config(None, feature_gates=feature_gates, **registry.config_kwargs())
    emulated = None
    if controllers:
        cluster, emulated = emulate_controllers(cluster)
    run = _Run(cluster, config, registry, seed, explain, now, batch, snapshot)
    run.admit_pending_pods()
    run.schedule_in_rounds(max_rounds, progress)
    tracker = None
    if cascade_depth > 0:
        tracker = CascadeTracker(cascade_depth, cluster.priority_classes, cluster.pdbs)
        run.follow_cascade(tracker, max_rounds, progress)
    run.time_out_waiting_pods(max_rounds, progress)
    result = run.result(time.perf_counter() - t0)
    if tracker is not None:
        result.summary["cascade"] = tracker.report(
            result.by_pod(), run.running + run.placed(), cluster.objects
        )
    if whatif and explain:
        run.add_what_if(result, registry)
    if emulated is not None:
        result.summary["controllers"] = emulated.to_dict()
    warnings = extender_warnings(config.source)
    if warnings:
        result.summary["warnings"] = warnings
    return result


class _Run:
    """One simulation's state, and its steps in the order :func:`simulate` takes them."""

    def __init__(
        self,
        cluster: ClusterState,
        config: SchedulerConfig,
        registry: Registry,
        seed: int,
        explain: bool,
        now: float | None,
        batch: bool,
        snapshot: Snapshot | None,
    ) -> None:
        self.config = config
        self.seed = seed
        self.explain = explain
        # the events plugins of one's own register (plugin_api's EVENTS)
        self.plugin_events = registry.requeue_events()
        work = cluster.with_pending_copied()
        split = cluster.running_first
        if split is None:
            self.running = [p for p in work.pods if p.node_name]
            self.pending = [p for p in work.pods if not p.node_name]
        else:
            self.running, self.pending = work.pods[:split], work.pods[split:]
        if snapshot is None:
            snapshot = Snapshot(work.nodes, self.running, work.namespaces)
        else:
            snapshot.namespace_labels = dict(work.namespaces)
        self.snapshot = snapshot
        self.recorder = Recorder() if explain else None
        self.sched = new_scheduler(
            work,
            snapshot,
            config,
            registry,
            rng=random.Random(seed),
            clock=default_clock(work.pods, work.of_kind("PodGroup")) if now is None else now,
            recorder=self.recorder,
            batch=batch,
            load_pod_groups=True,
            explain=explain,
        )
        self.ctx = ctx = self.sched.ctx
        self.frameworks = self.sched.frameworks
        first = next(iter(self.frameworks.values()), None)
        self.less = first.queue_sort_less() if first is not None else (lambda a, b: False)
        # results of pods never queued; queued pods' states, by pod key
        self.results: dict[str, PodResult] = {}
        self.states: dict[str, _PodState] = {}
        # every event recorded on a pod in the run, naming its pod
        self.stream: list[dict[str, str]] = []
        # cluster events in the order they happened (POD_ADD / POD_DELETE)
        self.cluster_events: list[str] = []
        ctx.on_evict.append(lambda _ev: self.cluster_events.append(POD_DELETE))
        for fwk in self.frameworks.values():
            cosched = fwk.plugins.get("Coscheduling")
            if cosched is not None:
                ctx.on_evict.append(lambda e, pl=cosched: pl.pod_deleted(e.victim))
        self.waiting: list[tuple[_PodState, Attempt]] = []
        # what _settle_waiting last saw: WaitingPod.settled, and the earliest deadline left
        self._settled_seen = -1
        self._next_deadline = math.inf
        self.rounds = 0
        # progress in pods: those that entered the queue, and of them those tried once or more
        self.entered: set[str] = set()
        self.tried: set[str] = set()
        # the native workload API (GenericWorkload): pod-group cycles
        gates = ctx.feature_gates
        self.group_sched: PodGroupScheduler | None = None
        # pod key → order of its first attempt (pods of a group go by it)
        self.first_attempt: dict[str, int] = {}
        # pod group key → its last cycle's outcome and members
        self.gang_outcomes: dict[str, tuple[GroupOutcome, list[Pod]]] = {}
        if gates["GenericWorkload"]:
            ctx.native_pod_groups = index_native_pod_groups(
                work.of_kind("PodGroup"), source=work.source
            )
            ctx.pod_groups.add_pods(
                p for p in work.pods if p.node_name or p.scheduler_name in self.frameworks
            )
            self.group_sched = PodGroupScheduler(
                self.sched,
                placements=gates["TopologyAwareWorkloadScheduling"],
                preempt_group=self._preempt_group if gates["WorkloadAwarePreemption"] else None,
            )

    # -- step 1: which pending pods enter the queue ------------------------------------
    def admit_pending_pods(self) -> None:
        """Queue the pending pods; those that never enter the queue get their result now."""
        for seq, pod in enumerate(self.pending):
            fwk = self.frameworks.get(pod.scheduler_name)
            result = self._not_queued(pod, fwk)
            if result is not None:
                self.results[pod.key] = result
                continue
            assert fwk is not None
            if pod.nominated_node_name:
                self.ctx.nominate(pod, pod.nominated_node_name)
            self.states[pod.key] = _PodState(QueuedPodInfo(pod, pod.creation_ts), seq, fwk)

    def _not_queued(self, pod: Pod, fwk: Framework | None) -> PodResult | None:
        """The result of a pod that is not scheduled at all, or None to queue it."""
        if fwk is None:
            names = ", ".join(sorted(self.frameworks)) or "none"
            return PodResult(
                pod.key,
                PodStatus.SKIPPED,
                message=f'no scheduler profile named "{pod.scheduler_name}" '
                f"(profiles: {names}); the pod is left to another scheduler",
            )
        if pod.terminating:
            msg = f"skip schedule deleting pod: {pod.namespace}/{pod.name}"
            event = ev.failed_scheduling(msg)
            self.stream.append({"pod": pod.key, **event})
            return PodResult(
                pod.key, PodStatus.SKIPPED, message=msg, profile=fwk.profile_name, events=[event]
            )
        claims = pod_volume_claims(pod)
        missing_vol = [n for n in VOLUME_PLUGINS if n in fwk.missing_plugins]
        if claims and missing_vol:
            return PodResult(
                pod.key,
                PodStatus.ERROR,
                message=ERR_VOLUMES_UNAVAILABLE.format(
                    claims=", ".join(claims), plugins=", ".join(missing_vol)
                ),
                profile=fwk.profile_name,
            )
        s = fwk.run_pre_enqueue_plugins(pod)
        if s is not None:
            # never attempted: no event, only what the API server put on the pod
            rec = self.recorder
            return PodResult(
                pod.key,
                PodStatus.SKIPPED,
                message=ev.pre_enqueue_message(pod),
                pre_enqueue={"plugin": s.plugin, "reason": s.message()},
                profile=fwk.profile_name,
                record=rec.pod_record(pod.key) if rec is not None else None,
            )
        return None

    # -- step 2: rounds of the queue ------------------------------------------------------
    def schedule_in_rounds(
        self,
        max_rounds: int,
        progress: Callable[[int, int], Any] | None,
        first: list[_PodState] | None = None,
    ) -> None:
        """Every queued pod (or those of ``first``) once, then again those a later event may help."""
        to_try = list(self.states.values()) if first is None else first
        rounds = 0
        while to_try and rounds < max_rounds:
            rounds += 1
            self.rounds += 1
            q = ActiveQueue(self.less)
            for st in to_try:
                q.push(st.qpi, st.seq)
                self.entered.add(st.qpi.pod.key)
            popped_with_group: set[str] = set()
            while q:
                qpi, _ = q.pop()
                if qpi.pod.key in popped_with_group:
                    continue
                st = self.states[qpi.pod.key]
                members = self._pod_group_members(st)
                if members is None:
                    self._attempt(st)
                    self.tried.add(qpi.pod.key)
                else:
                    keys = [m.qpi.pod.key for m in members]
                    popped_with_group.update(keys)
                    self._attempt_pod_group(members)
                    self.entered.update(keys)
                    self.tried.update(keys)
                self.ctx.clock += CYCLE_SECONDS
                if progress is not None:
                    progress(len(self.tried), len(self.entered))
            # this round's victims are gone before the next one: upstream deletes them
            # while the rest of the queue is scheduled, which sees them terminating
            self.ctx.finish_deletions()
            to_try = [st for st in self.states.values() if self._worth_another_round(st)]

    # -- step 2b: what controllers recreate, scheduled in turn (cascade_depth) ------------
    def follow_cascade(
        self,
        tracker: CascadeTracker,
        max_rounds: int,
        progress: Callable[[int, int], Any] | None,
    ) -> None:
        """Wave by wave: the victims' replacements enter the queue once the victims are gone."""
        for p in self.pending:
            tracker.level.setdefault(p.key, 0)
        while True:
            replacements = tracker.next_wave(self.ctx.evictions, self.ctx.clock)
            if not replacements:
                return
            states = [st for st in (self._admit(p) for p in replacements) if st is not None]
            if states:
                self.schedule_in_rounds(max_rounds, progress, states)

    def _admit(self, pod: Pod) -> _PodState | None:
        """A pod created during the run (a controller's replacement) joins the pending pods."""
        self.ctx.cluster.pods.append(pod)
        self.pending.append(pod)
        if self.group_sched is not None:
            self.ctx.pod_groups.add_pods([pod])
        fwk = self.frameworks.get(pod.scheduler_name)
        result = self._not_queued(pod, fwk)
        if result is not None:
            self.results[pod.key] = result
            return None
        assert fwk is not None
        st = _PodState(QueuedPodInfo(pod, pod.creation_ts), len(self.pending) - 1, fwk)
        self.states[pod.key] = st
        return st

    def placed(self) -> list[Pod]:
        """The pending pods that this run bound to a node."""
        return [
            st.qpi.pod
            for st in self.states.values()
            if st.attempt is not None and st.attempt.status == AttemptStatus.SCHEDULED
        ]

    def _attempt(self, st: _PodState) -> None:
        """One scheduling attempt of one pod, and what it changes for the others."""
        pod = st.qpi.pod
        self._begin_attempt(st)
        # events during the attempt count for its retry (upstream's in-flight events):
        # a preemptor's own victims re-queue it, in the next round, after the pods
        # still waiting in this one, and in priority order with every other pod
        # their deletion re-queues
        mark = len(self.cluster_events)
        n_evictions = len(self.ctx.evictions)
        att = self.sched.schedule_one(st.fwk, pod)
        self._finished(st, att)
        if att.victims:
            st.victims.extend(att.victims)
        if len(self.ctx.evictions) > n_evictions:
            self._record_preempted(pod, n_evictions)
        if att.status == AttemptStatus.WAITING:
            self._add_waiting(st, att)
        elif att.status != AttemptStatus.SCHEDULED:
            if att.nominated_node is not None:
                self.ctx.nominate(pod, att.nominated_node)
                st.nominated = att.nominated_node or None
            st.last_event = mark
        if self.waiting:
            self._settle_waiting()

    def _begin_attempt(self, st: _PodState) -> None:
        """Counts a new attempt of ``st``, alone or in its pod group. Explained, the attempt
        is recorded afresh; an earlier one that preempted (no node fit and PostFilter
        nominated one) is set aside: it says why no node fit before the victims left. A
        group member that fit and waited on another's preemption is nominated too, but
        preempted nothing."""
        st.attempts += 1
        st.qpi.attempts += 1
        if self.recorder is None:
            return
        prev = st.attempt
        keep = prev is not None and prev.fit_error is not None and bool(prev.nominated_node)
        self.recorder.reset_pod(st.qpi.pod.key, keep)
        if keep:
            st.preempted = prev

    def _pod_group_members(self, st: _PodState) -> list[_PodState] | None:
        """The members a pod-group cycle takes with ``st`` (None: ``st`` is scheduled alone).

        Upstream pops every unscheduled member still in the queue with it
        (``PopSpecificPod`` activates the unschedulable ones) and orders them
        by priority, then by their first attempt.
        """
        if self.group_sched is None:
            return None
        pod = st.qpi.pod
        key = PodGroupStates.key_of(pod)
        if key is None:
            return None
        gs = self.ctx.pod_groups.get(key)
        others: list[_PodState] = []
        for p in gs.unscheduled_pods() if gs is not None else ():
            ost = self.states.get(p.key)
            if ost is None or ost is st:
                continue
            if ost.attempt is not None and ost.attempt.status in (
                AttemptStatus.SCHEDULED,
                AttemptStatus.WAITING,
            ):
                continue
            others.append(ost)
        others.sort(key=lambda o: _QueueKey(o.qpi, o.seq, self.less))
        members = [st, *others]
        for m in members:
            self.first_attempt.setdefault(m.qpi.pod.key, len(self.first_attempt))
        members.sort(key=lambda m: (-m.qpi.pod.priority, self.first_attempt[m.qpi.pod.key]))
        return members

    def _attempt_pod_group(self, members: list[_PodState]) -> None:
        """One pod-group cycle (``scheduler.schedule_one_podgroup``) and its members' results."""
        assert self.group_sched is not None
        pods = [m.qpi.pod for m in members]
        for m in members:
            self._begin_attempt(m)
        mark = len(self.cluster_events)
        n_evictions = len(self.ctx.evictions)
        first = pods[0]
        key = PodGroupStates.key_of(first)
        assert key is not None
        ns, _, name = key.partition("/")
        fwk = members[0].fwk
        atts, outcome = self.group_sched.schedule_pod_group(fwk, PodGroupInfo(ns, name), pods)
        self.gang_outcomes[key] = (outcome, pods)
        if not self.explain:
            outcome.compact()
        for m, att in zip(members, atts, strict=True):
            self._finished(m, att)
            if att.status == AttemptStatus.WAITING:
                self._add_waiting(m, att)
            elif att.status != AttemptStatus.SCHEDULED:
                if att.nominated_node is not None:
                    self.ctx.nominate(m.qpi.pod, att.nominated_node)
                    m.nominated = att.nominated_node or None
                m.last_event = mark
        for e in self.ctx.evictions[n_evictions:]:
            pst = self.states.get(e.by)
            if pst is None:
                continue
            pst.victims.append(e.victim.key)
            if not e.victim.terminating:
                if e.reason == wap.EVICTED_BY_POD_GROUP:
                    pg = self.ctx.native_pod_groups.get(key)
                    event = ev.preempted_by_pod_group(pg.raw if pg is not None else {})
                else:
                    event = ev.preempted(pst.qpi.pod, e.node)
                vst = self.states.get(e.victim.key)
                if vst is not None:
                    vst.events.append(event)
                self.stream.append({"pod": e.victim.key, **event})
        if self.waiting:
            self._settle_waiting()

    def _preempt_group(
        self,
        fwk: Framework,
        group: PodGroupInfo,
        pods: list[Pod],
        try_group: Callable[[], Status | None],
    ) -> Status | None:
        """WorkloadAwarePreemption for an unschedulable group (upstream ``runWorkloadAwarePreemption``)."""
        if "DefaultPreemption" not in fwk.plugins:
            return Status(Code.UNSCHEDULABLE, wap.MSG_NO_PLUGIN)
        pg = self.ctx.native_pod_groups.get(f"{group.namespace}/{group.name}")
        if pg is None:
            return Status(
                Code.ERROR,
                f'failed to get pod group object: podgroup.scheduling.k8s.io "{group.name}" not found',
            )
        res = wap.preempt_for_pod_group(
            pg,
            pods,
            self.ctx.snapshot,
            self.ctx.native_pod_groups,
            self.ctx.cluster.pdbs,
            self.ctx.now(),
            try_group,
        )
        if res.status is not None:
            return res.status
        for victim in res.victims:
            if not victim.terminating:
                self.ctx.evict(victim, pods[0], reason=wap.EVICTED_BY_POD_GROUP)
        return None

    def _worth_another_round(self, st: _PodState) -> bool:
        att = st.attempt
        if att is None or att.status != AttemptStatus.UNSCHEDULABLE:
            return False
        return worth_requeuing(
            _rejectors(att), set(self.cluster_events[st.last_event :]), self.plugin_events
        )

    def _finished(self, st: _PodState, att: Attempt) -> None:
        """An attempt ended (or a waiting pod was decided): its cluster event and pod event."""
        st.attempt = att
        if att.status == AttemptStatus.SCHEDULED:
            self.cluster_events.append(POD_ADD)
        elif att.forgotten:
            self.cluster_events.append(POD_DELETE)
        if att.status == AttemptStatus.WAITING:
            return  # no event while Permit waits
        pod = st.qpi.pod
        if att.status == AttemptStatus.SCHEDULED:
            assert att.node is not None
            event = ev.scheduled(pod, att.node)
        else:
            event = ev.failed_scheduling(att.failure_message)
        st.events.append(event)
        self.stream.append({"pod": pod.key, **event})
        if not self.explain:
            att.compact()  # only an explanation reads the status of every node

    def _record_preempted(self, preemptor: Pod, first: int) -> None:
        for e in self.ctx.evictions[first:]:
            if e.victim.terminating:
                continue  # already being deleted: no delete call, no event
            event = ev.preempted(preemptor, e.node)
            vst = self.states.get(e.victim.key)
            if vst is not None:
                vst.events.append(event)
            self.stream.append({"pod": e.victim.key, **event})

    def _add_waiting(self, st: _PodState, att: Attempt) -> None:
        self.waiting.append((st, att))
        d = att.waiting.next_deadline() if att.waiting is not None else None
        if d is not None and d < self._next_deadline:
            self._next_deadline = d
        if att.waiting is not None and att.waiting.status is not None:
            self._settled_seen = -1  # already decided: look at it

    def _settle_waiting(self) -> None:
        """Pods waiting on Permit that were allowed, rejected or timed out finish binding."""
        if WaitingPod.settled == self._settled_seen and self.ctx.now() < self._next_deadline:
            return  # nobody was allowed or rejected and no deadline passed: nothing to do
        still: list[tuple[_PodState, Attempt]] = []
        for st, att in self.waiting:
            wp = att.waiting
            assert wp is not None
            if wp.status is None:
                wp.expire(self.ctx.now())
            if wp.status is None:
                still.append((st, att))
                continue
            self._finished(st, self.sched.finish_waiting(st.fwk, att))
            st.last_event = len(self.cluster_events)
        self.waiting[:] = still
        self._settled_seen = WaitingPod.settled
        deadlines = [a.waiting.next_deadline() for _, a in still if a.waiting is not None]
        self._next_deadline = min((d for d in deadlines if d is not None), default=math.inf)

    # -- step 3: the end of the run ---------------------------------------------------------
    def time_out_waiting_pods(
        self, max_rounds: int = MAX_ROUNDS, progress: Callable[[int, int], Any] | None = None
    ) -> None:
        """Nobody is left to allow the pods still waiting on Permit: they time out.

        The clock moves to the first deadline and the pods due time out. What
        they held is free again (an assumed pod forgotten: a pod Delete), so the
        pods it may help are tried again, as upstream retries them after the
        timeout; those may wait in turn. After ``max_rounds`` such steps every
        pod still waiting times out.
        """
        for i in range(max_rounds + 1):
            if not self.waiting:
                return
            deadlines = [
                d
                for _, a in self.waiting
                if a.waiting is not None and (d := a.waiting.next_deadline()) is not None
            ]
            last = i == max_rounds or not deadlines
            # the first deadline, or at the end every one
            self.ctx.clock = max(self.ctx.clock, (max if last else min)(deadlines, default=0.0))
            self._settle_waiting()
            self.ctx.finish_deletions()
            if last:
                return
            retry = [st for st in self.states.values() if self._worth_another_round(st)]
            if retry:
                self.schedule_in_rounds(max_rounds, progress, retry)

    def result(self, elapsed: float) -> SimulationResult:
        """Results in the queue's order at the end (a group's last failure counts), then pods never queued."""
        for key, st in self.states.items():
            self.results[key] = pod_result(
                st.qpi.pod,
                st.attempt,
                st.victims,
                st.fwk,
                st.attempts,
                self.recorder,
                self.explain,
                st.preempted,
            )
            self.results[key].events = st.events
        attempted = sorted(
            self.states.values(), key=lambda st: _QueueKey(st.qpi, st.seq, self.less)
        )
        ordered = [self.results[st.qpi.pod.key] for st in attempted]
        ordered += [
            self.results[p.key]
            for p in self.pending
            if p.key in self.results and p.key not in self.states
        ]
        summary = self._summary(ordered, elapsed)
        gangs = self._gang_views()
        if gangs:
            summary["gangs"] = gangs
        broken = broken_gangs(self.ctx.evictions, self.running, self.ctx.cluster.objects)
        if broken:
            summary["brokenGangs"] = broken
            for b in broken:
                for preemptor in b["preemptors"]:
                    r = self.results.get(preemptor)
                    if r is not None:
                        r.broke_gangs.append(b["name"])
        return SimulationResult(ordered, summary, self.explain, self.stream)

    def add_what_if(self, result: SimulationResult, registry: Registry) -> None:
        """Nearest nodes and verified fixes of every pod left unschedulable."""
        for r in result.results:
            st = self.states.get(r.pod)
            if st is None or r.status != STATUS_UNSCHEDULABLE:
                continue
            sched = Scheduling(self.config, registry, self.seed, simulate)
            found = what_if(st.fwk, st.qpi.pod, self.ctx.cluster, registry, sched)
            r.nearest, r.fixes = found["nearest"], found["fixes"]

    def _gang_views(self) -> list[dict[str, Any]]:
        """Each pod group with pending members, explained as a job (``gang``/``gangs``)."""
        pending = [p for p in self.pending if p.key in self.results]
        attempts = {k: st.attempt for k, st in self.states.items()}
        views: list[dict[str, Any]] = []
        if self.group_sched is not None:
            views = native_gang_views(
                pending, self.results, self.ctx, self.gang_outcomes, self.snapshot
            )
        views += coscheduling_gang_views(
            pending, self.frameworks, self.results, attempts, self.ctx.cluster.pods, self.snapshot
        )
        return views

    def _summary(self, ordered: list[PodResult], elapsed: float) -> dict[str, Any]:
        counts = {str(s): 0 for s in PodStatus}
        for r in ordered:
            counts[str(r.status)] = counts.get(str(r.status), 0) + 1
        attempts_total = sum(st.attempts for st in self.states.values())
        summary: dict[str, Any] = {
            "pods": len(ordered),
            "counts": counts,
            "nodes": len(self.snapshot),
            "runningPods": len(self.running),
            "evictions": len(self.ctx.evictions),
            "attempts": attempts_total,
            "rounds": self.rounds,
            "seed": self.seed,
            "profiles": [p.scheduler_name for p in self.config.profiles],
            "seconds": round(elapsed, 6),
            "podsPerSecond": round(attempts_total / elapsed, 1) if elapsed > 0 else None,
        }
        missing = {n: f.missing_plugins for n, f in self.frameworks.items() if f.missing_plugins}
        if missing:
            summary["missingPlugins"] = missing
        return summary


def _rejectors(att: Attempt) -> set[str] | None:
    """The plugins that turned the pod down in its last attempt (upstream rejector plugins)."""
    if att.fit_error is None:
        return None
    d = att.fit_error.diagnosis
    return d.unschedulable_plugins | d.pending_plugins


class _QueueKey:
    """Sort key from a QueueSort ``less`` (then arrival order)."""

    __slots__ = ("less", "qpi", "seq")

    def __init__(self, qpi: QueuedPodInfo, seq: int, less: Callable[..., bool]) -> None:
        self.qpi, self.seq, self.less = qpi, seq, less

    def __lt__(self, other: _QueueKey) -> bool:
        if self.less(self.qpi, other.qpi):
            return True
        if self.less(other.qpi, self.qpi):
            return False
        return self.seq < other.seq
