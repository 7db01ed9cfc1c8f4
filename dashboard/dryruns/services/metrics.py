"""Fleet metrics of a cluster before and after a dry-run's placements.

Pure functions of the engine's :class:`ClusterState` and the run's per-pod
results; nothing here touches the database.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scheduler_engine import ClusterState

__all__ = [
    "LOWER_IS_BETTER",
    "METRICS",
    "Metric",
    "fleet_metrics",
    "gpu_resource",
    "metric_info",
    "verdicts",
]

ZONE_LABEL = "topology.kubernetes.io/zone"


def gpu_resource(name: str) -> bool:
    return "gpu" in name.lower()


def _gpus(scalar: Mapping[str, int]) -> int:
    return sum(v for k, v in scalar.items() if gpu_resource(k))


def _usage(cluster: ClusterState, placement: Mapping[str, str]) -> tuple[dict[str, list[int]], int]:
    """Per node [cpu, memory, gpus] requested by the pods placed there; pods placed."""
    used = {n.name: [0, 0, 0] for n in cluster.nodes}
    pods = {p.key: p for p in cluster.pods}
    placed = 0
    for key, node in placement.items():
        row = used.get(node)
        pod = pods.get(key)
        if row is None or pod is None:
            continue
        r = pod.requests
        row[0] += r.milli_cpu
        row[1] += r.memory
        row[2] += _gpus(r.scalar)
        placed += 1
    return used, placed


def _snapshot_metrics(
    cluster: ClusterState, placement: Mapping[str, str], pending: int, gpu_size: int
) -> dict[str, Any]:
    used, placed = _usage(cluster, placement)
    cap = [0, 0, 0]
    req = [0, 0, 0]
    free_gpus = stranded = largest_free = 0
    for node in cluster.nodes:
        alloc = node.allocatable
        gpus = _gpus(alloc.scalar)
        u = used[node.name]
        cap[0] += alloc.milli_cpu
        cap[1] += alloc.memory
        cap[2] += gpus
        for i in range(3):
            req[i] += u[i]
        if gpus and not node.unschedulable:
            free = max(gpus - u[2], 0)
            free_gpus += free
            largest_free = max(largest_free, free)
            if free < gpu_size:
                stranded += free

    def ratio(i: int) -> float | None:
        return round(req[i] / cap[i], 4) if cap[i] else None

    return {
        "podsPending": pending,
        "podsRunning": placed,
        "cpuAllocation": ratio(0),
        "memoryAllocation": ratio(1),
        "gpuAllocation": ratio(2),
        "gpuCapacity": cap[2],
        "gpuFree": free_gpus,
        "gpuStranded": stranded,
        "gpuStrandingSize": gpu_size,
        "gpuLargestFreeOnNode": largest_free,
    }


def _pdb_violations(cluster: ClusterState, victims: Iterable[str]) -> int:
    pods = {p.key: p for p in cluster.pods}
    hits: Counter[int] = Counter()
    for key in victims:
        pod = pods.get(key)
        if pod is None:
            continue
        for i, pdb in enumerate(cluster.pdbs):
            if pdb.matches(pod):
                hits[i] += 1
    return sum(max(0, n - cluster.pdbs[i].disruptions_allowed) for i, n in hits.items())


def fleet_metrics(
    cluster: ClusterState, results: list[dict[str, Any]], gpu_size: int | None = None
) -> dict[str, Any]:
    """``{"before": {...}, "after": {...}}`` for the run's cluster and its results."""
    before_place = {p.key: p.node_name for p in cluster.pods if p.node_name}
    pending_before = sum(1 for p in cluster.pods if not p.node_name)
    if gpu_size is None:
        sizes = [_gpus(p.requests.scalar) for p in cluster.pods if not p.node_name]
        sizes = [s for s in sizes if s > 0]
        gpu_size = min(sizes) if sizes else 1

    victims = list(dict.fromkeys(v for r in results for v in r.get("victims") or ()))
    after_place = dict(before_place)
    for v in victims:
        after_place.pop(v, None)
    zones = {n.name: n.labels.get(ZONE_LABEL, "") for n in cluster.nodes}
    spread: Counter[str] = Counter()
    scheduled = 0
    for r in results:
        if r.get("status") == "Scheduled" and r.get("node"):
            after_place[r["pod"]] = r["node"]
            spread[zones.get(r["node"], "")] += 1
            scheduled += 1
    pending_after = pending_before - scheduled + len(victims)

    before = _snapshot_metrics(cluster, before_place, pending_before, gpu_size)
    after = _snapshot_metrics(cluster, after_place, pending_after, gpu_size)
    counts = sorted(spread.values())
    after["spreadPerZone"] = dict(sorted(spread.items()))
    after["zoneSkew"] = (counts[-1] - counts[0]) if len(counts) > 1 else 0
    after["preemptions"] = len(victims)
    after["pdbViolations"] = _pdb_violations(cluster, victims)
    before.update(spreadPerZone={}, zoneSkew=0, preemptions=0, pdbViolations=0)
    return {"before": before, "after": after}


@dataclass(frozen=True, slots=True)
class Metric:
    """How a person reads a metric: a name, a unit, a one-line definition.

    ``lower_is_better`` is None for metrics that get no verdict: timings (they
    move with the machine's load, not with the profile) and inputs.
    """

    key: str
    label: str
    unit: str
    definition: str
    lower_is_better: bool | None = None
    percent: bool = False


METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric(
            "podsPending",
            "Pods pending",
            "pods",
            "Pods without a node at the end: the pods the run left pending plus the pods "
            "preemption evicted, which wait to be scheduled again.",
            True,
        ),
        Metric("podsRunning", "Pods placed", "pods", "Pods holding a node at the end.", False),
        Metric(
            "cpuAllocation",
            "CPU requested",
            "% of allocatable",
            "CPU requested by the pods on nodes, as a share of all nodes' allocatable CPU.",
            False,
            percent=True,
        ),
        Metric(
            "memoryAllocation",
            "Memory requested",
            "% of allocatable",
            "Memory requested by the pods on nodes, as a share of all nodes' allocatable memory.",
            False,
            percent=True,
        ),
        Metric(
            "gpuAllocation",
            "GPUs requested",
            "% of allocatable",
            "GPUs requested by the pods on nodes, as a share of all nodes' allocatable GPUs.",
            False,
            percent=True,
        ),
        Metric("gpuCapacity", "GPUs in the cluster", "GPUs", "Allocatable GPUs of all nodes."),
        Metric(
            "gpuFree",
            "Free GPUs",
            "GPUs",
            "Allocatable GPUs no pod requests, on nodes that accept pods.",
        ),
        Metric(
            "gpuStranded",
            "Stranded GPUs",
            "GPUs",
            "Free GPUs on nodes with fewer free than the smallest pending GPU request: "
            "no pending pod can use them.",
            True,
        ),
        Metric(
            "gpuStrandingSize",
            "Smallest pending GPU request",
            "GPUs per pod",
            "The request stranding is measured against: the smallest GPU request among the "
            "pods pending before the run (1 when none asks for GPUs).",
        ),
        Metric(
            "gpuLargestFreeOnNode",
            "Largest free GPU block",
            "GPUs on one node",
            "The most free GPUs any one node has: the largest pod that can still fit.",
            False,
        ),
        Metric(
            "zoneSkew",
            "Zone skew",
            "pods",
            "Pods this run placed in its fullest zone minus in its emptiest zone "
            "(0 with one zone).",
            True,
        ),
        Metric("preemptions", "Pods evicted", "pods", "Victims preemption evicted.", True),
        Metric(
            "pdbViolations",
            "PDB violations",
            "evictions",
            "Evictions beyond what the PodDisruptionBudgets allow.",
            True,
        ),
        Metric(
            "podsPerSecond",
            "Engine speed",
            "pods/s",
            "Pods the engine decided per second of engine time: a timing that moves with the "
            "machine's load, so it gets no verdict.",
        ),
    )
}

# direction of "better" for each compared placement metric (timings get no verdict)
LOWER_IS_BETTER = {
    k: m.lower_is_better for k, m in METRICS.items() if m.lower_is_better is not None
}


def metric_info(key: str) -> Metric:
    """The metric's reading; an unknown key reads as itself with no unit and no verdict."""
    return METRICS.get(key) or Metric(key, key, "", "")


def verdicts(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per metric: a's value, b's value, the delta and a one-line verdict for b vs a.

    Only placement metrics get "better"/"worse"/"same"; timings get ``None``.
    """
    lines = []
    for name, m in METRICS.items():
        va, vb = a.get(name), b.get(name)
        if not isinstance(va, int | float) or not isinstance(vb, int | float):
            continue
        if name not in LOWER_IS_BETTER and name != "podsPerSecond":
            continue
        delta = round(vb - va, 4)
        lower = m.lower_is_better
        word = (
            None
            if lower is None
            else "same"
            if delta == 0
            else "better"
            if (delta < 0) == lower
            else "worse"
        )
        lines.append(
            {
                "metric": name,
                "label": m.label,
                "unit": m.unit,
                "definition": m.definition,
                "a": va,
                "b": vb,
                "delta": delta,
                "verdict": word,
                "line": f"{m.label} ({m.unit}): {va} → {vb} ({delta:+g})"
                + (f": {word}" if word else " (timing: no verdict)"),
            }
        )
    return lines
