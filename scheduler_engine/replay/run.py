"""Replay a trace through the engine's scheduler, one pod at a time, measuring the GPUs.

``inflate`` mode is the FGD simulator's experiment (:mod:`.workload`): the
pods arrive in the inflated order, each is tried once, nobody leaves.
``time`` mode replays creation and deletion times: pods arrive and leave in
time order (at equal times in trace order, arrivals of a pod before its
departure), a pod that does not fit waits, and the waiting pods are tried
again, in arrival order, after every departure; a waiting pod deleted before
it ran counts as failed.

Both use the engine's own scheduling cycle (``Scheduler.schedule_one``) over
one snapshot, so any profile and plugin runs as it would in ``simulate``.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cluster import ClusterState
from ..config import SchedulerConfig
from ..framework.registry import Registry, default_registry
from ..framework.snapshot import Snapshot
from ..objects import Pod
from ..plugins.gpupolicies.common import pod_shape
from ..plugins.gpupolicies.fragmentation import TypicalPod, typical_pods
from ..plugins.gpushare.resources import gpu_request
from ..scheduler.build import new_scheduler
from ..scheduler.schedule_one import AttemptStatus
from .metrics import GpuMetrics, curve, unallocated_at
from .trace import Trace
from .workload import clone_pod, inflate_workload

__all__ = ["MODES", "TIE_BREAKS", "ReplayOptions", "replay", "trace_typical_pods"]

MODES = ("inflate", "time")
TIE_BREAKS = ("random", "rank", "heap")
_FAILURE_REASONS = 10


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    mode: str = "inflate"
    inflate: float = 1.3
    seed: int = 42
    # "rank": ties go to the node with the lowest seeded rank (the FGD simulator);
    # "random": uniformly at random with the seeded RNG (the studies' rule);
    # "heap": the root of kube-scheduler's heap over the feasible nodes
    tie_break: str = "random"
    policy: str | None = None


def trace_typical_pods(trace: Trace) -> list[TypicalPod]:
    return typical_pods(pod_shape(tp.pod) for tp in trace.pods)


class _Run:
    """One replay's scheduler over the trace's nodes."""

    def __init__(
        self,
        trace: Trace,
        config: SchedulerConfig,
        rng: random.Random,
        typical: list[TypicalPod],
        registry: Registry,
        exact_messages: bool = False,
    ) -> None:
        cluster = ClusterState(nodes=list(trace.nodes), source=trace.source)
        self.snapshot = Snapshot(cluster.nodes, ())
        self.sched = new_scheduler(cluster, self.snapshot, config, registry, rng=rng)
        self.ctx = self.sched.ctx
        self.frameworks = self.sched.frameworks
        for fwk in self.frameworks.values():
            fwk.exact_diagnosis = exact_messages
        self.metrics = GpuMetrics(self.snapshot, typical)
        self.failures: Counter[str] = Counter()
        self.errors = 0

    def try_pod(self, pod: Pod) -> bool:
        fwk = self.frameworks.get(pod.scheduler_name)
        if fwk is None:
            self.failures[f'no scheduler profile named "{pod.scheduler_name}"'] += 1
            return False
        self.ctx.cluster.pods.append(pod)
        att = self.sched.schedule_one(fwk, pod)
        if att.status == AttemptStatus.SCHEDULED:
            return True
        self.ctx.cluster.pods.pop()
        if att.status == AttemptStatus.ERROR:
            self.errors += 1
        msg = att.failure_message
        self.failures[msg] += 1
        return False

    def remove(self, pod: Pod) -> None:
        if pod.node_name:
            self.snapshot.remove_pod(pod, pod.node_name)
            pod.node_name = ""
        self.ctx.cluster.pods = [p for p in self.ctx.cluster.pods if p is not pod]


def _row(base: dict[str, Any], m: dict[str, float]) -> dict[str, Any]:
    base.update({k: round(v, 4) for k, v in m.items() if k != "idleGpus"})
    return base


def replay(
    trace: Trace,
    config: SchedulerConfig,
    options: ReplayOptions,
    *,
    registry: Registry | None = None,
    typical: list[TypicalPod] | None = None,
    progress: Callable[[int, int], Any] | None = None,
    exact_messages: bool = False,
) -> dict[str, Any]:
    """Run the trace; the JSON document of ``python -m scheduler_engine replay``.

    ``exact_messages`` words each failure as kube-scheduler does (every filter
    run again per node when no node fits); by default the vectorised filters'
    verdicts name the rejecting plugins, which decides the same, faster.
    """
    if options.mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    if options.tie_break not in TIE_BREAKS:
        raise ValueError(f"tie-break must be one of {TIE_BREAKS}")
    t0 = time.perf_counter()
    rng = random.Random(options.seed)
    typical = trace_typical_pods(trace) if typical is None else typical
    capacity = trace.gpu_capacity_milli
    if options.mode == "inflate":
        pods = inflate_workload([tp.pod for tp in trace.pods], capacity, options.inflate, rng)
    else:
        pods = []
    # the simulator prefixes node names with a seeded permutation, drawn after the workload
    rank = None
    if options.tie_break == "rank":
        perm = list(range(len(trace.nodes)))
        rng.shuffle(perm)
        by_name = sorted(range(len(trace.nodes)), key=lambda i: trace.nodes[i].name)
        rank_of = {trace.nodes[i].name: perm[k] for k, i in enumerate(by_name)}
    run = _Run(trace, config, rng, typical, registry or default_registry(), exact_messages)
    if options.tie_break == "rank":
        rank = np.array([rank_of[ni.name] for ni in run.snapshot.node_info_list], dtype=np.int64)
        run.sched.node_rank = rank
    run.sched.random_ties = options.tie_break == "random"
    if options.mode == "inflate":
        doc = _inflate(run, pods, capacity, progress)
    else:
        doc = _time(run, trace, capacity, progress)
    elapsed = time.perf_counter() - t0
    s = doc["summary"]
    s.update(
        {
            "mode": options.mode,
            "seed": options.seed,
            "tieBreak": options.tie_break,
            "policy": options.policy,
            "nodes": len(trace.nodes),
            "gpus": capacity // 1000,
            "typicalPods": len(typical),
            "errors": run.errors,
            "failureReasons": dict(run.failures.most_common(_FAILURE_REASONS)),
            "wallSeconds": round(elapsed, 3),
            "podsPerSecond": round(s["pods"] / elapsed, 1) if elapsed > 0 else None,
        }
    )
    if options.mode == "inflate":
        s["inflate"] = options.inflate
    return doc


def _inflate(
    run: _Run, pods: list[Pod], capacity: int, progress: Callable[[int, int], Any] | None
) -> dict[str, Any]:
    arrived = 0
    placed = failed = 0
    timeline: list[dict[str, Any]] = []
    cap = capacity or 1
    for i, pod in enumerate(pods):
        arrived += gpu_request(pod).total
        if run.try_pod(pod):
            placed += 1
        else:
            failed += 1
        timeline.append(
            _row(
                {
                    "step": i + 1,
                    "arrivedGpuPercent": round(100.0 * arrived / cap, 4),
                    "pending": 0,
                    "failed": failed,
                },
                run.metrics.measure(),
            )
        )
        if progress is not None:
            progress(i + 1, len(pods))
    summary = {
        "pods": len(pods),
        "placed": placed,
        "failed": failed,
        "unallocatedGpuPercentAt100": unallocated_at(timeline, 100),
        "arrivedGpuPercent": round(100.0 * arrived / cap, 4),
    }
    return {"summary": summary, "curve": curve(timeline), "timeline": timeline}


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p90": None, "p99": None, "max": None}
    a = np.array(values, dtype=np.float64)
    return {
        "p50": round(float(np.percentile(a, 50)), 3),
        "p90": round(float(np.percentile(a, 90)), 3),
        "p99": round(float(np.percentile(a, 99)), 3),
        "max": round(float(a.max()), 3),
    }


def _time(
    run: _Run, trace: Trace, capacity: int, progress: Callable[[int, int], Any] | None
) -> dict[str, Any]:
    events: list[tuple[float, int, int, Pod]] = []
    for i, tp in enumerate(trace.pods):
        pod = clone_pod(tp.pod)
        events.append((tp.created, 2 * i, 0, pod))
        if tp.deleted is not None:
            events.append((tp.deleted, 2 * i + 1, 1, pod))
    events.sort(key=lambda e: (e[0], e[1]))
    created: dict[str, float] = {}
    waiting: list[Pod] = []
    present = 0  # GPU share asked by pods present (running or waiting)
    placed = failed = 0
    delays: list[float] = []
    timeline: list[dict[str, Any]] = []
    cap = capacity or 1
    for n, (t, _, kind, pod) in enumerate(events):
        if kind == 0:
            created[pod.key] = t
            present += gpu_request(pod).total
            if run.try_pod(pod):
                placed += 1
                delays.append(0.0)
            else:
                waiting.append(pod)
        else:
            present -= gpu_request(pod).total
            if pod.node_name:
                run.remove(pod)
                still: list[Pod] = []
                for w in waiting:
                    if run.try_pod(w):
                        placed += 1
                        delays.append(t - created[w.key])
                    else:
                        still.append(w)
                waiting = still
            elif pod in waiting:
                waiting.remove(pod)
                failed += 1
        timeline.append(
            _row(
                {
                    "time": t,
                    "arrivedGpuPercent": round(100.0 * present / cap, 4),
                    "pending": len(waiting),
                    "failed": failed,
                },
                run.metrics.measure(),
            )
        )
        if progress is not None:
            progress(n + 1, len(events))
    summary = {
        "pods": len(trace.pods),
        "placed": placed,
        "failed": failed,
        "pendingAtEnd": len(waiting),
        "queueingDelaySeconds": _percentiles(delays),
        "unallocatedGpuPercentAt100": unallocated_at(timeline, 100),
    }
    return {"summary": summary, "curve": curve(timeline), "timeline": timeline}
