"""Run the scheduler over a cluster: every pending pod, in queue order, with explanations.

``simulate(cluster, config)`` builds one framework per profile over a copy of
the cluster (the caller's objects are not changed), runs the scheduling loop
with the queue semantics of :mod:`scheduler_engine.scheduler.queue`, and
returns a :class:`SimulationResult` whose ``to_dict()`` is the JSON document
of the engine CLI's contract (``results`` in queue order, then ``summary``).
"""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cluster import ClusterState
from .config import DEFAULT_CAPABILITIES, SchedulerConfig, load_config
from .framework.handle import FrameworkHandle, SimulationContext
from .framework.interfaces import QueuedPodInfo
from .framework.recorder import Recorder
from .framework.registry import Registry, default_registry
from .framework.runtime import Framework
from .framework.snapshot import Snapshot
from .objects import Pod
from .scheduler.messages import truncate_message
from .scheduler.queue import ActiveQueue
from .scheduler.schedule_one import Attempt, Scheduler, pod_volume_claims

__all__ = [
    "MAX_ROUNDS",
    "STATUS_ERROR",
    "STATUS_SCHEDULED",
    "STATUS_SKIPPED",
    "STATUS_UNSCHEDULABLE",
    "PodResult",
    "SimulationResult",
    "simulate",
]

STATUS_SCHEDULED = "Scheduled"
STATUS_UNSCHEDULABLE = "Unschedulable"
STATUS_SKIPPED = "Skipped"
STATUS_ERROR = "Error"
STATUSES = (STATUS_SCHEDULED, STATUS_UNSCHEDULABLE, STATUS_SKIPPED, STATUS_ERROR)

# retry rounds for pods left unschedulable while the cluster still changes
MAX_ROUNDS = 10

# The cluster events of a one-shot simulation: an assigned pod added (a bind) or
# deleted (a preemption victim, or an assumed pod forgotten in the binding cycle).
POD_ADD = "add"
POD_DELETE = "delete"
_ANY_POD_EVENT = frozenset((POD_ADD, POD_DELETE))
# Which of those events each in-tree plugin registers (upstream EventsToRegister), so
# that a pod it rejected is tried again (isPodWorthRequeuing).  Plugins whose hints
# look closer at the pod (InterPodAffinity, PodTopologySpread, NodePorts, ...) are
# taken as always saying Queue; plugins not listed (out-of-tree, test plugins)
# are re-queued by any event.
REQUEUE_EVENTS: dict[str, frozenset[str]] = {
    "NodeResourcesFit": frozenset((POD_DELETE,)),
    "NodePorts": frozenset((POD_DELETE,)),
    "VolumeRestrictions": frozenset((POD_DELETE,)),
    "NodeVolumeLimits": frozenset((POD_DELETE,)),
    "InterPodAffinity": _ANY_POD_EVENT,
    "PodTopologySpread": _ANY_POD_EVENT,
    # PVC/PV and ResourceClaim updates follow other pods' binds and deletes
    "VolumeBinding": _ANY_POD_EVENT,
    "DynamicResources": _ANY_POD_EVENT,
    # node events (or the pod's own updates) only
    "NodeUnschedulable": frozenset(),
    "NodeName": frozenset(),
    "NodeAffinity": frozenset(),
    "TaintToleration": frozenset(),
    "NodeDeclaredFeatures": frozenset(),
    "VolumeZone": frozenset(),
    "SchedulingGates": frozenset(),
    "DefaultPreemption": frozenset(),
}


def worth_requeuing(rejectors: set[str] | None, events: set[str]) -> bool:
    """Whether any of ``events`` re-queues a pod its ``rejectors`` turned down.

    ``None`` or no rejector (an error, no FitError) re-queues on any event, as
    upstream puts such pods in backoffQ.
    """
    if not events:
        return False
    if not rejectors:
        return True
    return any(events & REQUEUE_EVENTS.get(p, _ANY_POD_EVENT) for p in rejectors)


# simulated time one scheduling cycle takes (the clock only needs to be deterministic)
CYCLE_SECONDS = 0.001

VOLUME_PLUGINS = ("VolumeBinding", "VolumeRestrictions", "VolumeZone", "NodeVolumeLimits")
ERR_VOLUMES_NOT_SUPPORTED = (
    "volume scheduling is not supported yet: the pod uses PersistentVolumeClaim(s) {claims} "
    "and the plugin(s) {plugins} of its profile are not available"
)


@dataclass
class PodResult:
    pod: str
    status: str
    node: str | None = None
    message: str = ""
    nominated_node: str | None = None
    victims: list[str] = field(default_factory=list)
    profile: str = ""
    attempts: int = 0
    # with explain
    scores: dict[str, int] | None = None
    filter_failures: dict[str, dict[str, str]] | None = None
    all_filter_failures: dict[str, list[dict[str, str]]] | None = None
    plugin_scores: dict[str, dict[str, dict[str, int]]] | None = None
    record: dict[str, Any] | None = None
    # DRA: claims allocated for the pod (claim, allocatedNow, allocation)
    allocations: list[dict[str, Any]] = field(default_factory=list)
    # plugin name → what the plugin reports of the pod (OpenGpuShare: the GPUs it got)
    plugin_results: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "pod": self.pod,
            "status": self.status,
            "node": self.node,
            "message": self.message,
            "nominatedNode": self.nominated_node,
            "victims": list(self.victims),
        }
        if self.allocations:
            d["allocations"] = list(self.allocations)
        if self.plugin_results:
            d["pluginResults"] = dict(self.plugin_results)
        if explain:
            d["scores"] = dict(self.scores or {})
            d["filterFailures"] = dict(self.filter_failures or {})
            d["allFilterFailures"] = dict(self.all_filter_failures or {})
            d["pluginScores"] = dict(self.plugin_scores or {})
            d["record"] = self.record or {}
        return d


@dataclass
class SimulationResult:
    results: list[PodResult]
    summary: dict[str, Any]
    explain: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "results": [r.to_dict(self.explain) for r in self.results],
            "summary": dict(self.summary),
        }

    def by_pod(self) -> dict[str, PodResult]:
        return {r.pod: r for r in self.results}


class _PodState:
    __slots__ = ("attempt", "attempts", "fwk", "last_event", "nominated", "qpi", "seq", "victims")

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


def _working_copy(cluster: ClusterState) -> ClusterState:
    """The cluster with pending pods copied: scheduling sets their node and nomination."""
    pods = [p if p.node_name else copy.copy(p) for p in cluster.pods]
    return ClusterState(
        nodes=list(cluster.nodes),
        pods=pods,
        priority_classes=dict(cluster.priority_classes),
        pdbs=list(cluster.pdbs),
        namespaces=dict(cluster.namespaces),
        objects={k: list(v) for k, v in cluster.objects.items()},
        source=cluster.source,
    )


def _default_clock(cluster: ClusterState) -> float:
    ts = [p.creation_ts for p in cluster.pods if p.creation_ts]
    ts += [p.start_ts for p in cluster.pods if p.start_ts]
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
) -> SimulationResult:
    """Schedule every pending pod of ``cluster``; see the module docstring.

    ``progress(done, total)`` is called after each attempt.  ``now`` is the
    simulated clock's start (default: the latest pod timestamp).  ``batch``
    False forces the per-node paths (they must decide identically).
    ``snapshot``, if given, must hold exactly the cluster's nodes and running
    pods; it is used instead of one built from the pods (what a caller keeping
    the running state warm saves) and is changed in place like the cluster's
    own would be: pass ``snapshot.copy()``, or undo the nodes its
    ``change_log`` names (see :mod:`scheduler_engine.warm_cluster`).
    """
    t0 = time.perf_counter()
    registry = registry or default_registry()
    if config is None:
        caps = {**DEFAULT_CAPABILITIES, **registry.capabilities()}
        config = load_config(None, capabilities=caps)
    work = _working_copy(cluster)
    running = [p for p in work.pods if p.node_name]
    if snapshot is None:
        snapshot = Snapshot(work.nodes, running, work.namespaces)
    else:
        snapshot.namespace_labels = dict(work.namespaces)
    ctx = SimulationContext(
        cluster=work,
        snapshot=snapshot,
        rng=random.Random(seed),
        clock=_default_clock(work) if now is None else now,
        parallelism=config.parallelism,
    )
    recorder = Recorder() if explain else None
    frameworks: dict[str, Framework] = {}
    for prof in config.profiles:
        handle = FrameworkHandle(ctx)
        fwk = Framework(prof, registry, handle, recorder=recorder)
        handle.framework = fwk
        frameworks[prof.scheduler_name] = fwk
    sched = Scheduler(
        ctx,
        frameworks,
        percentage_of_nodes_to_score=config.percentage_of_nodes_to_score,
        explain=explain,
        batch=batch,
    )
    first = next(iter(frameworks.values()), None)
    less = first.queue_sort_less() if first is not None else (lambda a, b: False)

    results: dict[str, PodResult] = {}
    order: list[str] = []  # pod keys in the order results are reported
    states: dict[str, _PodState] = {}
    pending = [p for p in work.pods if not p.node_name]
    for seq, pod in enumerate(pending):
        fwk = frameworks.get(pod.scheduler_name)
        if fwk is None:
            names = ", ".join(sorted(frameworks)) or "none"
            results[pod.key] = PodResult(
                pod.key,
                STATUS_SKIPPED,
                message=f'no scheduler profile named "{pod.scheduler_name}" '
                f"(profiles: {names}); the pod is left to another scheduler",
            )
            continue
        if pod.terminating:
            results[pod.key] = PodResult(
                pod.key,
                STATUS_SKIPPED,
                message=f"skip schedule deleting pod: {pod.namespace}/{pod.name}",
                profile=fwk.profile_name,
            )
            continue
        claims = pod_volume_claims(pod)
        missing_vol = [n for n in VOLUME_PLUGINS if n in fwk.missing_plugins]
        if claims and missing_vol:
            results[pod.key] = PodResult(
                pod.key,
                STATUS_ERROR,
                message=ERR_VOLUMES_NOT_SUPPORTED.format(
                    claims=", ".join(claims), plugins=", ".join(missing_vol)
                ),
                profile=fwk.profile_name,
            )
            continue
        s = fwk.run_pre_enqueue_plugins(pod)
        if s is not None:
            results[pod.key] = PodResult(
                pod.key,
                STATUS_UNSCHEDULABLE,
                message=s.message(),
                profile=fwk.profile_name,
                record=recorder.data.get(pod.key) if recorder is not None else None,
            )
            continue
        if pod.nominated_node_name:
            ctx.nominate(pod, pod.nominated_node_name)
        states[pod.key] = _PodState(QueuedPodInfo(pod, pod.creation_ts), seq, fwk)

    total = len(states)
    done = 0
    # cluster events in the order they happened (POD_ADD / POD_DELETE)
    events: list[str] = []
    ctx.on_evict.append(lambda _ev: events.append(POD_DELETE))
    waiting: list[tuple[_PodState, Attempt]] = []

    def after_attempt(att: Attempt) -> None:
        if att.status == STATUS_SCHEDULED:
            events.append(POD_ADD)
        elif att.forgotten:
            events.append(POD_DELETE)

    def settle_waiting() -> None:
        still: list[tuple[_PodState, Attempt]] = []
        for st, att in waiting:
            wp = att.waiting
            assert wp is not None
            if wp.status is None:
                wp.expire(ctx.now())
            if wp.status is None:
                still.append((st, att))
                continue
            att = sched.finish_waiting(st.fwk, att)
            st.attempt = att
            after_attempt(att)
            st.last_event = len(events)
        waiting[:] = still

    to_try = list(states.values())
    rounds = 0
    while to_try and rounds < max_rounds:
        rounds += 1
        q = ActiveQueue(less)
        for st in to_try:
            q.push(st.qpi, st.seq)
        while q:
            qpi, _ = q.pop()
            pod = qpi.pod
            st = states[pod.key]
            st.attempts += 1
            qpi.attempts += 1
            if recorder is not None:
                recorder.reset_pod(pod.key)
            # events during the attempt count for its retry (upstream's in-flight events):
            # a preemptor's own victims re-queue it, in the next round, after the pods
            # still waiting in this one, and in priority order with every other pod
            # their deletion re-queues
            mark = len(events)
            att = sched.schedule_one(st.fwk, pod)
            st.attempt = att
            if att.victims:
                st.victims.extend(att.victims)
            after_attempt(att)
            if att.status == "Waiting":
                waiting.append((st, att))
            elif att.status != STATUS_SCHEDULED:
                if att.nominated_node is not None:
                    ctx.nominate(pod, att.nominated_node)
                    st.nominated = att.nominated_node or None
                st.last_event = mark
            if waiting:
                settle_waiting()
            ctx.clock += CYCLE_SECONDS
            done += 1
            if progress is not None:
                progress(done, total)
        to_try = [
            st
            for st in states.values()
            if st.attempt is not None
            and st.attempt.status == STATUS_UNSCHEDULABLE
            and worth_requeuing(_rejectors(st.attempt), set(events[st.last_event :]))
        ]
    # nobody is left to allow the pods still waiting on Permit: they time out
    if waiting:
        deadlines = [a.waiting.next_deadline() for _, a in waiting if a.waiting is not None]
        ctx.clock = max([ctx.clock, *(d for d in deadlines if d is not None)])
        settle_waiting()

    for key, st in states.items():
        results[key] = _pod_result(st, recorder, explain)
    for pod in pending:
        if pod.key in results:
            order.append(pod.key)
    # report in queue order: the order of first attempts (then pods never queued)
    attempted = sorted(
        (st for st in states.values()),
        key=lambda st: _QueueKey(st.qpi, st.seq, less),
    )
    ordered = [results[st.qpi.pod.key] for st in attempted]
    ordered += [results[k] for k in order if k not in states]

    elapsed = time.perf_counter() - t0
    counts = dict.fromkeys(STATUSES, 0)
    for r in ordered:
        counts[r.status] = counts.get(r.status, 0) + 1
    attempts_total = sum(st.attempts for st in states.values())
    summary: dict[str, Any] = {
        "pods": len(ordered),
        "counts": counts,
        "nodes": len(snapshot),
        "runningPods": len(running),
        "evictions": len(ctx.evictions),
        "attempts": attempts_total,
        "rounds": rounds,
        "seed": seed,
        "profiles": [p.scheduler_name for p in config.profiles],
        "seconds": round(elapsed, 6),
        "podsPerSecond": round(attempts_total / elapsed, 1) if elapsed > 0 else None,
    }
    missing = {n: f.missing_plugins for n, f in frameworks.items() if f.missing_plugins}
    if missing:
        summary["missingPlugins"] = missing
    return SimulationResult(ordered, summary, explain)


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


def _pod_result(st: _PodState, recorder: Recorder | None, explain: bool) -> PodResult:
    pod: Pod = st.qpi.pod
    att = st.attempt
    assert att is not None
    status = att.status if att.status in STATUSES else STATUS_UNSCHEDULABLE
    if status == STATUS_SCHEDULED:
        message = f"Successfully assigned {pod.namespace}/{pod.name} to {att.node}"
    elif att.fit_error is not None:
        message = att.fit_error.error()
    else:
        message = att.message
    # a pending pod reports the nomination it ends with (its status.nominatedNodeName):
    # one from the input snapshot stays when PostFilter leaves it alone, and another
    # pod's preemption may have cleared it.  A bound pod reports none: v1.36 clears
    # the field at binding (ClearingNominatedNodeNameAfterBinding, beta, on); its
    # victims still say that it preempted.
    nominated = None if status == STATUS_SCHEDULED else (pod.nominated_node_name or None)
    r = PodResult(
        pod.key,
        status,
        node=att.node if status == STATUS_SCHEDULED else None,
        message=truncate_message(message),
        nominated_node=nominated,
        victims=list(dict.fromkeys(st.victims)),
        profile=st.fwk.profile_name,
        attempts=st.attempts,
    )
    if status == STATUS_SCHEDULED and pod.resource_claims:
        dra = st.fwk.plugins.get("DynamicResources")
        if dra is not None and hasattr(dra, "allocations"):
            r.allocations = dra.allocations(pod.key)
    if status == STATUS_SCHEDULED:
        for name, pl in st.fwk.plugins.items():
            result_for = getattr(pl, "result_for", None)
            found = result_for(pod.key) if result_for is not None else None
            if found:
                r.plugin_results[name] = found
    if explain and recorder is not None:
        rec = recorder.data.get(pod.key, {})
        r.record = rec
        r.scores = dict(att.scores or {})
        ff, allff = _filter_failures(rec.get("filter", {}))
        d = att.diagnosis
        if d is not None and d.node_to_status.absent.reasons and status != STATUS_SCHEDULED:
            absent = d.node_to_status.absent
            plugin = absent.plugin or ", ".join(sorted(d.unschedulable_plugins))
            entry = {"plugin": plugin, "reason": absent.message()}
            for node in (n.name for n in st.fwk.handle.snapshot().node_info_list):
                if node not in ff and node not in d.node_to_status.statuses:
                    ff[node] = entry
                    allff[node] = [entry]
        r.filter_failures = ff
        r.all_filter_failures = allff
        r.plugin_scores = {
            node: {pl: dict(v) for pl, v in per.items()}
            for node, per in rec.get("score", {}).items()
        }
    return r


def _filter_failures(
    per_node: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[str, dict[str, str]], dict[str, list[dict[str, str]]]]:
    first: dict[str, dict[str, str]] = {}
    every: dict[str, list[dict[str, str]]] = {}
    for node, per_plugin in per_node.items():
        fails = [
            {"plugin": pl, "reason": ", ".join(v.get("reasons", []))}
            for pl, v in per_plugin.items()
            if v.get("code") != "Success"
        ]
        if fails:
            first[node] = fails[0]
            every[node] = fails
    return first, every
