"""Score: the scoring strategies of NodeResourceTopologyMatch.

MostAllocated, LeastAllocated and BalancedAllocation score each NUMA node
against the pod's (pod scope) or each container's (container scope) request
and keep the lowest non-zero NUMA score; LeastNUMANodes prefers nodes where
the fewest NUMA nodes, closest to each other, can hold the request.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

from ...framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE
from ...objects.noderesourcetopology import SCOPE_CONTAINER, SCOPE_POD, TopologyManager
from .numa import (
    NUMANode,
    ResourceList,
    container_requests,
    init_and_app_containers,
    is_resource_set_suitable,
    pod_effective_request,
    quantity_value,
)

__all__ = [
    "BALANCED_ALLOCATION",
    "LEAST_ALLOCATED",
    "LEAST_NUMA_NODES",
    "MOST_ALLOCATED",
    "STRATEGIES",
    "score_node",
]

MOST_ALLOCATED = "MostAllocated"
LEAST_ALLOCATED = "LeastAllocated"
BALANCED_ALLOCATION = "BalancedAllocation"
LEAST_NUMA_NODES = "LeastNUMANodes"
STRATEGIES = (MOST_ALLOCATED, BALANCED_ALLOCATION, LEAST_ALLOCATED, LEAST_NUMA_NODES)
# ACPI SLIT's "unknown distance"
MAX_DISTANCE = 255
_MIN_INT64 = -(2**63)


def _weight(weights: Mapping[str, int], name: str) -> int:
    w = weights.get(name)
    return w if w is not None and w >= 1 else 1


def _most_allocated(requested: ResourceList, numa: ResourceList, weights: Mapping[str, int]) -> int:
    total = weight_sum = 0
    for name, req in requested.items():
        cap = numa.get(name, 0)
        s = 0
        if cap != 0 and req <= cap:
            s = quantity_value(req) * MAX_NODE_SCORE // quantity_value(cap)
        w = _weight(weights, name)
        total += s * w
        weight_sum += w
    return total // weight_sum if weight_sum else 0


def _least_allocated(
    requested: ResourceList, numa: ResourceList, weights: Mapping[str, int]
) -> int:
    total = weight_sum = 0
    for name, req in requested.items():
        cap = numa.get(name, 0)
        s = 0
        if cap != 0 and req <= cap:
            cv = quantity_value(cap)
            s = (cv - quantity_value(req)) * MAX_NODE_SCORE // cv
        w = _weight(weights, name)
        total += s * w
        weight_sum += w
    return total // weight_sum if weight_sum else 0


def _go_int64(x: float) -> int:
    # Go's float → int64 conversion on amd64: NaN and out-of-range give MinInt64
    if math.isnan(x) or not -(2.0**63) <= x < 2.0**63:
        return _MIN_INT64
    return int(x)


def _balanced_allocation(
    requested: ResourceList, numa: ResourceList, weights: Mapping[str, int]
) -> int:
    fractions: list[float] = []
    for name, req in requested.items():
        cap = quantity_value(numa.get(name, 0))
        frac = 1.0 if cap == 0 else quantity_value(req) / cap
        if frac > 1:
            return 0
        fractions.append(frac)
    # gonum's stat.Variance: the unbiased sample variance (n - 1), corrected two-pass
    n = len(fractions)
    if n == 0:
        variance = math.nan
    else:
        mean = sum(fractions) / n
        ss = sum((f - mean) ** 2 for f in fractions)
        comp = sum(f - mean for f in fractions)
        variance = (ss - comp * comp / n) / (n - 1) if n > 1 else math.nan
    return _go_int64((1 - variance) * MAX_NODE_SCORE)


SCORERS = {
    MOST_ALLOCATED: _most_allocated,
    LEAST_ALLOCATED: _least_allocated,
    BALANCED_ALLOCATION: _balanced_allocation,
}


def score_for_each_numa_node(
    requested: ResourceList,
    numa_nodes: list[NUMANode],
    scorer: Any,
    weights: Mapping[str, int],
) -> int:
    """The lowest non-zero NUMA score (0 when none fits)."""
    min_score = 0
    for numa in numa_nodes:
        s = scorer(requested, numa.resources, weights)
        if min_score == 0 or (s != 0 and s < min_score):
            min_score = s
    return min_score


# -- LeastNUMANodes ------------------------------------------------------------------


def _avg_distance(numa_nodes: list[NUMANode], combo: tuple[int, ...]) -> float:
    if not combo:
        return float(MAX_DISTANCE)
    acc = 0
    for i in combo:
        for j in combo:
            acc += numa_nodes[i].costs.get(numa_nodes[j].numa_id, MAX_DISTANCE)
    return _f32(acc / (len(combo) * len(combo)))


def _f32(x: float) -> float:
    # upstream averages distances as float32
    import struct

    return struct.unpack("f", struct.pack("f", x))[0]


def _fits(qos: str, resources: ResourceList, combined: ResourceList) -> bool:
    for name, q in resources.items():
        if q == 0:
            continue
        if not is_resource_set_suitable(qos, name, q, combined.get(name, 0)):
            return False
    return True


def _find_suitable(
    qos: str, numa_nodes: list[NUMANode], resources: ResourceList, combos: list[tuple[int, ...]]
) -> tuple[tuple[int, ...] | None, bool]:
    min_avg = _f32(float(MAX_DISTANCE))
    for combo in combos:
        d = _avg_distance(numa_nodes, combo)
        if d < min_avg:
            min_avg = d
    best: tuple[int, ...] | None = None
    best_distance = 256.0
    for combo in combos:
        if any(name not in numa_nodes[i].resources for i in combo for name in resources):
            continue
        combined: ResourceList = {}
        for i in combo:
            for name, q in numa_nodes[i].resources.items():
                combined[name] = combined.get(name, 0) + q
        if _fits(qos, resources, combined):
            d = _avg_distance(numa_nodes, combo)
            if d == min_avg:
                return combo, True
            if d < best_distance:
                best_distance = d
                best = combo
    return best, False


def numa_nodes_required(
    qos: str, numa_nodes: list[NUMANode], resources: ResourceList
) -> tuple[tuple[int, ...] | None, bool]:
    """Indices of the fewest NUMA nodes that hold ``resources``, and whether closest."""
    for size in range(1, len(numa_nodes) + 1):
        combos = list(itertools.combinations(range(len(numa_nodes)), size))
        found, closest = _find_suitable(qos, numa_nodes, resources, combos)
        if found is not None:
            return found, closest
    return None, False


def _only_non_numa(numa_nodes: list[NUMANode], resources: ResourceList) -> bool:
    return not any(name in n.resources for name in resources for n in numa_nodes)


def _normalize(count: int, closest: bool, max_numa: int) -> int:
    per = MAX_NODE_SCORE // max_numa
    score = MAX_NODE_SCORE - count * per
    return score + per // 2 if closest else score


def _subtract_from_numas(
    resources: ResourceList, numa_nodes: list[NUMANode], idx: tuple[int, ...]
) -> None:
    for name, quantity in resources.items():
        q = quantity
        for i in idx:
            if q == 0:
                break
            avail = numa_nodes[i].resources.get(name)
            if avail is None:
                continue
            if q >= avail:
                q -= avail
                numa_nodes[i].resources[name] = 0
            else:
                numa_nodes[i].resources[name] = avail - q
                q = 0


def _least_numa_container(
    pod_raw: Mapping[str, Any], qos: str, numa_nodes: list[NUMANode], manager: TopologyManager
) -> int:
    inits, apps = init_and_app_containers(pod_raw)
    max_count = 0
    all_closest = True
    for c in [*inits, *apps]:
        reqs = container_requests(c)
        if _only_non_numa(numa_nodes, reqs):
            continue
        idx, closest = numa_nodes_required(qos, numa_nodes, reqs)
        if idx is None:
            return MIN_NODE_SCORE
        if not closest:
            all_closest = False
        max_count = max(max_count, len(idx))
        # bits are NUMA ids; upstream indexes the list with them
        _subtract_from_numas(reqs, numa_nodes, tuple(numa_nodes[i].numa_id for i in idx))
    if max_count == 0:
        return MAX_NODE_SCORE
    return _normalize(max_count, all_closest, manager.max_numa_nodes)


def _least_numa_pod(
    pod_raw: Mapping[str, Any], qos: str, numa_nodes: list[NUMANode], manager: TopologyManager
) -> int:
    resources = pod_effective_request(pod_raw)
    if _only_non_numa(numa_nodes, resources):
        return MAX_NODE_SCORE
    idx, closest = numa_nodes_required(qos, numa_nodes, resources)
    if idx is None:
        return MIN_NODE_SCORE
    return _normalize(len(idx), closest, manager.max_numa_nodes)


def score_node(
    strategy: str,
    weights: Mapping[str, int],
    pod_raw: Mapping[str, Any],
    qos: str,
    manager: TopologyManager,
    numa_nodes: list[NUMANode],
) -> int | None:
    """The node's score, or None when the strategy does not apply to its policy (0)."""
    if strategy == LEAST_NUMA_NODES:
        if manager.scope == SCOPE_POD:
            return _least_numa_pod(pod_raw, qos, numa_nodes, manager)
        return _least_numa_container(pod_raw, qos, numa_nodes, manager)
    if manager.policy != "single-numa-node":
        return None
    scorer = SCORERS[strategy]
    if manager.scope == SCOPE_POD:
        return score_for_each_numa_node(pod_effective_request(pod_raw), numa_nodes, scorer, weights)
    if manager.scope == SCOPE_CONTAINER:
        inits, apps = init_and_app_containers(pod_raw)
        scores = [
            score_for_each_numa_node(container_requests(c), numa_nodes, scorer, weights)
            for c in [*inits, *apps]
        ]
        return int(sum(scores) / len(scores)) if scores else _go_int64(math.nan)
    return None
