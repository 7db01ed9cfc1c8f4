"""Two schedulers that learn of each other's bindings late, and what the kubelet refuses.

Each profile of the configuration is run as its own scheduler with its own
cache (snapshot) of the cluster, scheduling only the pods whose
``schedulerName`` it serves. The schedulers take turns, one scheduling cycle
each; a binding made at cycle ``c`` reaches the other schedulers' caches
before cycle ``c + 1 + lag`` (``lag`` 0: before the next cycle, as one shared
cache would). Until then they may place pods on room that is already taken.

The cluster's truth is the bindings in the order they were made. Each node's
kubelet admits a bound pod as ``pkg/kubelet/lifecycle/predicate.go`` does
(``generalFilter``'s resource checks over the pods it has admitted): the
first shortfall names the refusal, ``OutOfcpu``, ``OutOfmemory``,
``OutOfephemeral-storage``, ``OutOfpods`` or ``OutOf<extended resource>``
(``OutOfnvidia.com/gpu``), with the kubelet's message ``Node didn't have
enough resource: cpu, requested: 3000, used: 3000, capacity: 4000``. Extended
resources the node does not report are left out, as the kubelet does. A
refused pod fails; every cache drops it after the same lag.

Each pod is tried once. Preemption's victims leave every other cache after the
lag too.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cluster import ClusterState
from .config import SchedulerConfig, extender_warnings, load_config
from .controllers import emulate_controllers
from .errors import InputError
from .framework.handle import SimulationContext
from .framework.interfaces import QueuedPodInfo
from .framework.node_info import NodeInfo
from .framework.registry import Registry, default_registry
from .framework.runtime import Framework
from .framework.snapshot import Snapshot
from .objects import Pod
from .objects.resources import core_amounts, is_extended_resource_name
from .scheduler.build import new_scheduler
from .scheduler.events import pre_enqueue_message
from .scheduler.queue import ActiveQueue
from .scheduler.schedule_one import AttemptStatus, Scheduler
from .simulate import CYCLE_SECONDS

__all__ = ["KubeletRefusal", "kubelet_admission", "simulate_colliding"]

OUT_OF = "OutOf"


@dataclass(frozen=True, slots=True)
class KubeletRefusal:
    reason: str
    message: str


def _refusal(resource: str, requested: int, used: int, capacity: int) -> KubeletRefusal:
    return KubeletRefusal(
        f"{OUT_OF}{resource}",
        f"Node didn't have enough resource: {resource}, requested: {requested}, "
        f"used: {used}, capacity: {capacity}",
    )


def kubelet_admission(pod: Pod, ni: NodeInfo) -> KubeletRefusal | None:
    """The kubelet's resource admission of ``pod`` onto the node whose admitted pods ``ni`` holds."""
    alloc = ni.node.allocatable
    used = ni.requested
    if len(ni.pods) + 1 > alloc.allowed_pod_number:
        return _refusal("pods", 1, len(ni.pods), alloc.allowed_pod_number)
    req = pod.requests
    for name, q, u, a in core_amounts(req, used, alloc):
        if q > 0 and q > a - u:
            return _refusal(name, q, u, a)
    # Go ranges over a map here: sorted, so that the first shortfall is repeatable
    for name in sorted(req.scalar):
        q = req.scalar[name]
        if q == 0 or (is_extended_resource_name(name) and name not in alloc.scalar):
            continue
        a = alloc.scalar.get(name, 0)
        u = used.scalar.get(name, 0)
        if q > a - u:
            return _refusal(name, q, u, a)
    return None


@dataclass
class _Scheduler:
    name: str
    fwk: Framework
    sched: Scheduler
    ctx: SimulationContext
    queue: list[Pod] = field(default_factory=list)


@dataclass(order=True)
class _Delivery:
    due: int
    seq: int
    target: int = field(compare=False)
    add: bool = field(compare=False)
    pod: Pod = field(compare=False)
    node: str = field(compare=False)


class _Run:
    def __init__(
        self,
        cluster: ClusterState,
        config: SchedulerConfig,
        registry: Registry,
        lag: int,
        seed: int,
        batch: bool,
    ) -> None:
        self.lag = lag
        running = cluster.running_pods
        base = Snapshot(cluster.nodes, running, cluster.namespaces)
        self.truth = base.copy()
        ts = [p.creation_ts for p in cluster.pods if p.creation_ts]
        self.start = max(ts) if ts else 0.0
        self.schedulers: list[_Scheduler] = []
        self.results: dict[str, dict[str, Any]] = {}
        self.order: list[str] = [p.key for p in cluster.pending_pods]
        for prof in config.profiles:
            work = cluster.with_pending_copied()
            sched = new_scheduler(
                work,
                base.copy(),
                config,
                registry,
                rng=random.Random(seed),
                clock=self.start,
                profiles=[prof],
                batch=batch,
                load_pod_groups=True,
            )
            name = prof.scheduler_name
            s = _Scheduler(name, sched.frameworks[name], sched, sched.ctx)
            s.queue = self._queue(s, work)
            self.schedulers.append(s)
        served = {s.name for s in self.schedulers}
        for p in cluster.pending_pods:
            if p.scheduler_name not in served:
                self.results[p.key] = _result(
                    p.key,
                    "Skipped",
                    None,
                    f'no scheduler profile named "{p.scheduler_name}" '
                    f"(profiles: {', '.join(sorted(served))}); the pod is left to another "
                    "scheduler",
                )
        self.deliveries: list[_Delivery] = []
        self.seq = 0
        self.refusals: list[dict[str, Any]] = []

    def _queue(self, s: _Scheduler, work: ClusterState) -> list[Pod]:
        q = ActiveQueue(s.fwk.queue_sort_less())
        for seq, p in enumerate(work.pending_pods):
            if p.scheduler_name != s.name:
                continue
            if p.terminating:
                msg = f"skip schedule deleting pod: {p.namespace}/{p.name}"
                self.results[p.key] = _result(p.key, "Skipped", None, msg, s.name)
                continue
            st = s.fwk.run_pre_enqueue_plugins(p)
            if st is not None:
                self.results[p.key] = _result(
                    p.key, "Skipped", None, pre_enqueue_message(p), s.name
                )
                continue
            q.push(QueuedPodInfo(p, p.creation_ts), seq)
        out = []
        while q:
            out.append(q.pop()[0].pod)
        return out

    def _send(self, cycle: int, targets: list[int], add: bool, pod: Pod, node: str) -> None:
        for t in targets:
            self.seq += 1
            self.deliveries.append(_Delivery(cycle + 1 + self.lag, self.seq, t, add, pod, node))

    def _deliver(self, i: int, cycle: int) -> None:
        s = self.schedulers[i]
        keep = []
        for d in self.deliveries:
            if d.target != i or d.due > cycle:
                keep.append(d)
                continue
            snap = s.ctx.snapshot
            if d.add:
                if snap.get(d.node) is not None:
                    snap.add_pod(d.pod, d.node)
            else:
                snap.remove_pod(d.pod, d.node)
        self.deliveries = keep

    def run(self, progress: Callable[[int, int], Any] | None = None) -> None:
        cycle = 0
        total = sum(len(s.queue) for s in self.schedulers)
        while any(s.queue for s in self.schedulers):
            for i, s in enumerate(self.schedulers):
                if not s.queue:
                    continue
                self._deliver(i, cycle)
                self._cycle(i, s, cycle)
                cycle += 1
                if progress is not None:
                    progress(cycle, total)
        self.cycles = cycle

    def _cycle(self, i: int, s: _Scheduler, cycle: int) -> None:
        pod = s.queue.pop(0)
        s.ctx.clock = self.start + cycle * CYCLE_SECONDS
        others = [j for j in range(len(self.schedulers)) if j != i]
        n_ev = len(s.ctx.evictions)
        att = s.sched.schedule_one(s.fwk, pod)
        for e in s.ctx.evictions[n_ev:]:
            self.truth.remove_pod(e.victim, e.node)
            self._send(cycle, others, False, e.victim, e.node)
        s.ctx.finish_deletions()
        if att.status == AttemptStatus.SCHEDULED and att.node is not None:
            r = _result(
                pod.key,
                "Scheduled",
                att.node,
                f"Successfully assigned {pod.key} to {att.node}",
                s.name,
            )
            ni = self.truth.get(att.node)
            assert ni is not None
            refusal = kubelet_admission(pod, ni)
            bound = copy.copy(pod)
            if refusal is None:
                self.truth.add_pod(bound, att.node)
                self._send(cycle, others, True, bound, att.node)
            else:
                seen = {p.key for p in s.ctx.snapshot.get(att.node).pods}  # type: ignore[union-attr]
                unseen = [p.key for p in ni.pods if p.key not in seen]
                r["kubelet"] = {"reason": refusal.reason, "message": refusal.message}
                self.refusals.append(
                    {
                        "pod": pod.key,
                        "node": att.node,
                        "profile": s.name,
                        "reason": refusal.reason,
                        "message": refusal.message,
                        "unseen": unseen,
                        "cycle": cycle,
                    }
                )
                # the pod fails on the node: its own cache drops it after the lag too
                self._send(cycle, [i], False, pod, att.node)
        else:
            msg = att.failure_message
            status = {
                AttemptStatus.UNSCHEDULABLE: "Unschedulable",
                AttemptStatus.ERROR: "Error",
            }.get(att.status, "Unschedulable")
            r = _result(pod.key, status, None, msg, s.name)
            r["victims"] = list(att.victims)
        r["cycle"] = cycle
        self.results[pod.key] = r

    def document(self) -> dict[str, Any]:
        results = [self.results[k] for k in self.order if k in self.results]
        counts: dict[str, int] = {}
        for r in results:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
        by_reason: dict[str, int] = {}
        nodes: dict[str, list[str]] = {}
        for f in self.refusals:
            by_reason[f["reason"]] = by_reason.get(f["reason"], 0) + 1
            nodes.setdefault(f["node"], []).append(f["pod"])
        return {
            "results": results,
            "summary": {
                "pods": len(results),
                "counts": counts,
                "profiles": [s.name for s in self.schedulers],
                "cycles": self.cycles,
            },
            "collisions": {
                "lagCycles": self.lag,
                "refused": self.refusals,
                "refusedByReason": dict(sorted(by_reason.items())),
                "doubleBookedNodes": [
                    {"node": n, "refused": pods} for n, pods in sorted(nodes.items())
                ],
            },
        }


def _result(
    key: str, status: str, node: str | None, message: str, profile: str | None = None
) -> dict[str, Any]:
    return {
        "pod": key,
        "status": status,
        "node": node,
        "message": message,
        "profile": profile,
        "nominatedNode": None,
        "victims": [],
        "kubelet": None,
    }


def simulate_colliding(
    cluster: ClusterState,
    config: SchedulerConfig | None = None,
    *,
    lag_cycles: int,
    seed: int = 0,
    registry: Registry | None = None,
    feature_gates: Mapping[str, bool] | None = None,
    batch: bool = True,
    controllers: bool = False,
    progress: Callable[[int, int], Any] | None = None,
) -> dict[str, Any]:
    """Every profile as a scheduler of its own whose cache lags ``lag_cycles``; see the module doc.

    Returns ``results`` (in the order of the pending pods; a ``kubelet``
    refusal on the pods the kubelet would not admit), ``summary`` and
    ``collisions``: ``lagCycles``, ``refused`` (each refused pod, its node,
    profile, the kubelet's reason and message, and ``unseen``: the pods on
    the node its scheduler did not know of), ``refusedByReason`` and
    ``doubleBookedNodes``. Fewer than two profiles, or a negative lag, is an
    :class:`InputError`. ``controllers`` and ``progress`` are as for
    :func:`~scheduler_engine.simulate.simulate` (the summary's ``controllers``).
    """
    if isinstance(lag_cycles, bool) or not isinstance(lag_cycles, int) or lag_cycles < 0:
        raise InputError(
            f"must be a whole number of scheduling cycles, 0 or more, got {lag_cycles!r}",
            obj="collisions",
            field="lagCycles",
        )
    registry = registry or default_registry()
    if config is None:
        config = load_config(None, feature_gates=feature_gates, **registry.config_kwargs())
    if len(config.profiles) < 2:
        raise InputError(
            "needs at least two profiles (two schedulerNames) to collide, got "
            f"{len(config.profiles)}",
            obj="KubeSchedulerConfiguration",
            field="profiles",
        )
    emulated = None
    if controllers:
        cluster, emulated = emulate_controllers(cluster)
    run = _Run(cluster, config, registry, lag_cycles, seed, batch)
    run.run(progress)
    doc = run.document()
    if emulated is not None:
        doc["summary"]["controllers"] = emulated.to_dict()
    warnings = extender_warnings(config.source)
    if warnings:
        doc["summary"]["warnings"] = warnings
    return doc
