"""Scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation.

Upstream counterpart: ``pkg/scheduler/framework/plugins/noderesources``
(``resource_allocation.go``, ``least_allocated.go``, ``most_allocated.go``,
``requested_to_capacity_ratio.go``, ``helper/shape_score.go``).

For each configured resource the scorer takes the node's allocatable and what
is already allocated on it, adds the pod's request, and hands the three vectors
to a strategy.  Fit counts *non-zero* requests for cpu and memory (a container
without requests counts as 100m / 200Mi, for the pod being scored even when it
has pod-level resources); BalancedAllocation (``use_requested``) counts the
actual requests.  A scalar resource the pod does not request is left out,
and so is any resource the node has none of.

Integer arithmetic follows Go: ``int64`` division truncates toward zero
(:func:`go_div`), ``math.Round`` rounds half away from zero (:func:`go_round`).
Each strategy has a per-node form (the reference, used for explanations) and a
numpy form over a :class:`~scheduler_engine.framework.node_table.NodeTable`
that performs the same float64 operations in the same order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.cycle_state import StateData
from ...framework.interfaces import MAX_NODE_SCORE
from ...framework.node_info import NodeInfo
from ...framework.node_table import NodeTable
from ...gocompat import go_div, go_div_array, go_round, go_round_array
from ...objects import Pod, is_scalar_resource_name
from ...objects.pod import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, pod_requests
from ...objects.resources import CPU, EPHEMERAL_STORAGE, MEMORY
from ...quantity import milli_value, value

__all__ = [
    "LEAST_ALLOCATED",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MAX_UTILIZATION",
    "MOST_ALLOCATED",
    "REQUESTED_TO_CAPACITY_RATIO",
    "PodRequestsState",
    "ResourceSpec",
    "balanced_resource_scorer",
    "broken_linear_function",
    "least_resource_scorer",
    "most_resource_scorer",
    "node_allocatable_request",
    "parse_resources",
    "pod_request_list",
    "requested_to_capacity_ratio_scorer",
    "scorer_non_zero",
    "table_allocatable_request",
]

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
# shape scores are given on 0..10 and scaled to 0..MAX_NODE_SCORE
MAX_CUSTOM_PRIORITY_SCORE = 10
MAX_UTILIZATION = 100

DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = ((CPU, 1), (MEMORY, 1))


class PodRequestsState(StateData):
    """PreScore's state of Fit and BalancedAllocation: the pod's requests per scored resource."""

    __slots__ = ("pod_requests",)

    def __init__(self, pod_requests: list[int]) -> None:
        self.pod_requests = pod_requests


class ResourceSpec:
    __slots__ = ("name", "scalar", "weight")

    def __init__(self, name: str, weight: int) -> None:
        self.name = name
        self.weight = weight
        # upstream skips a scalar resource the pod does not request
        self.scalar = is_scalar_resource_name(name)

    def __repr__(self) -> str:
        return f"ResourceSpec({self.name}, {self.weight})"


def parse_resources(raw: Sequence[Mapping[str, Any]] | None) -> tuple[ResourceSpec, ...]:
    """``resources`` args (defaults when absent; a 0 or missing weight means 1, as upstream defaults)."""
    if not raw:
        return tuple(ResourceSpec(n, w) for n, w in DEFAULT_RESOURCES)
    return tuple(ResourceSpec(str(r["name"]), int(r.get("weight") or 1)) for r in raw)


# -- the pod's side -----------------------------------------------------------------

_SCORER_NON0_KEY = "noderesources.scorer_non0"
_DEFAULT_REQUESTS = {
    CPU: f"{DEFAULT_MILLI_CPU_REQUEST}m",
    MEMORY: str(DEFAULT_MEMORY_REQUEST),
}


def _with_default_requests(containers: Any) -> list[Any]:
    out = []
    for c in containers or []:
        if not isinstance(c, Mapping):
            out.append(c)
            continue
        res = c.get("resources") or {}
        # limits stand in for missing requests first, as API defaulting does
        reqs = {**(res.get("limits") or {}), **(res.get("requests") or {})}
        for name, q in _DEFAULT_REQUESTS.items():
            reqs.setdefault(name, q)
        out.append({**c, "resources": {"requests": reqs}})
    return out


def scorer_non_zero(pod: Pod) -> tuple[int, int]:
    """The pod's cpu and memory as the Fit scorer counts them (``calculatePodResourceRequest``).

    Upstream fills every container's missing cpu/memory request with
    100m/200Mi and only then lets pod-level requests override, whereas the
    node's non-zero totals (``pod.non0_*``) leave out the defaults for a
    resource some container or the pod level already requests.  The two agree
    unless the pod has pod-level resources.
    """
    spec = pod.spec
    if not spec.get("resources"):
        return pod.non0_cpu, pod.non0_mem
    cached = pod.cache.get(_SCORER_NON0_KEY)
    if cached is None:
        patched = dict(spec)
        patched["containers"] = _with_default_requests(spec.get("containers"))
        if spec.get("initContainers"):
            patched["initContainers"] = _with_default_requests(spec.get("initContainers"))
        reqs = pod_requests(patched)
        cached = (milli_value(reqs.get(CPU, 0)), value(reqs.get(MEMORY, 0)))
        pod.cache[_SCORER_NON0_KEY] = cached
    return cached


def pod_request_list(pod: Pod, resources: Sequence[ResourceSpec], use_requested: bool) -> list[int]:
    """The pod's request of each configured resource (``calculatePodResourceRequestList``)."""
    out: list[int] = []
    req = pod.requests
    non0_cpu, non0_mem = (0, 0) if use_requested else scorer_non_zero(pod)
    for r in resources:
        name = r.name
        if name == CPU:
            out.append(req.milli_cpu if use_requested else non0_cpu)
        elif name == MEMORY:
            out.append(req.memory if use_requested else non0_mem)
        else:
            out.append(req.get(name))
    return out


# -- the node's side, per node ----------------------------------------------------


def node_allocatable_request(
    ni: NodeInfo,
    resources: Sequence[ResourceSpec],
    pod_requests: Sequence[int],
    use_requested: bool,
) -> tuple[list[int], list[int], list[int]]:
    """(requested incl. the pod, allocated, allocatable) per resource (``calculateNodeAllocatableRequest``)."""
    n = len(resources)
    requested = [0] * n
    allocated = [0] * n
    allocatable = [0] * n
    alloc = ni.node.allocatable
    used = ni.requested if use_requested else ni.non_zero_requested
    for i, r in enumerate(resources):
        pr = pod_requests[i]
        if pr == 0 and r.scalar:
            continue
        name = r.name
        if name == CPU:
            a, u = alloc.milli_cpu, used.milli_cpu
        elif name == MEMORY:
            a, u = alloc.memory, used.memory
        elif name == EPHEMERAL_STORAGE:
            # always the actual request: non-zero defaults exist only for cpu/memory
            a, u = alloc.ephemeral_storage, ni.requested.ephemeral_storage
        else:
            a = alloc.scalar.get(name, 0)
            u = ni.requested.scalar.get(name, 0) if a else 0
        if a == 0:
            continue
        allocatable[i] = a
        allocated[i] = u
        requested[i] = u + pr
    return requested, allocated, allocatable


# -- the node's side, vectorised ---------------------------------------------------


def table_allocatable_request(
    table: NodeTable,
    rows: np.ndarray | slice,
    resources: Sequence[ResourceSpec],
    pod_requests: Sequence[int],
    use_requested: bool,
) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray] | None]:
    """Per resource: (index, requested, allocated, allocatable) over ``rows``, or None when skipped.

    Entries where allocatable is 0 hold zeros in all three arrays, as the
    per-node form does.
    """
    out: list[tuple[int, np.ndarray, np.ndarray, np.ndarray] | None] = []
    for i, r in enumerate(resources):
        pr = pod_requests[i]
        if pr == 0 and r.scalar:
            out.append(None)
            continue
        name = r.name
        c = table.columns.get(name)
        if name == CPU:
            a = table.allocatable[rows, 0]
            u = table.requested[rows, 0] if use_requested else table.non_zero_cpu[rows]
        elif name == MEMORY:
            a = table.allocatable[rows, 1]
            u = table.requested[rows, 1] if use_requested else table.non_zero_memory[rows]
        elif c is None:
            # never seen on any node: allocatable 0 everywhere
            out.append(None)
            continue
        else:
            # ephemeral-storage and scalars: always the actual requests
            a = table.allocatable[rows, c]
            u = table.requested[rows, c]
        has = a != 0
        if not has.any():
            out.append(None)
            continue
        u = np.where(has, u, 0)
        out.append((i, np.where(has, u + pr, 0), u, a))
    return out


# -- strategies: per node ------------------------------------------------------------


def _least_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return ((capacity - requested) * MAX_NODE_SCORE) // capacity


def _most_requested_score(requested: int, capacity: int) -> int:
    if capacity == 0:
        return 0
    if requested > capacity:
        requested = capacity
    return (requested * MAX_NODE_SCORE) // capacity


def _weighted_mean(
    per_resource: Callable[[int, int], int],
    weights: Sequence[int],
    requested: Sequence[int],
    allocatable: Sequence[int],
) -> int:
    # resources the node has none of are left out, weight and all
    node_score = weight_sum = 0
    for i, a in enumerate(allocatable):
        if a == 0:
            continue
        w = weights[i]
        node_score += per_resource(requested[i], a) * w
        weight_sum += w
    if weight_sum == 0:
        return 0
    return go_div(node_score, weight_sum)


def least_resource_scorer(
    weights: Sequence[int], requested: Sequence[int], allocatable: Sequence[int]
) -> int:
    return _weighted_mean(_least_requested_score, weights, requested, allocatable)


def most_resource_scorer(
    weights: Sequence[int], requested: Sequence[int], allocatable: Sequence[int]
) -> int:
    return _weighted_mean(_most_requested_score, weights, requested, allocatable)


def broken_linear_function(shape: Sequence[tuple[int, int]], p: int) -> int:
    """``helper.BuildBrokenLinearFunction`` evaluated at ``p`` (Go integer arithmetic)."""
    for i, (u, s) in enumerate(shape):
        if p <= u:
            if i == 0:
                return shape[0][1]
            u0, s0 = shape[i - 1]
            return s0 + go_div((s - s0) * (p - u0), u - u0)
    return shape[-1][1]


def scaled_shape(raw: Sequence[Mapping[str, Any]]) -> tuple[tuple[int, int], ...]:
    """Shape points from args, scores scaled from 0..10 to 0..MAX_NODE_SCORE."""
    factor = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    return tuple((int(p.get("utilization") or 0), int(p.get("score") or 0) * factor) for p in raw)


def shape_lookup(shape: Sequence[tuple[int, int]]) -> np.ndarray:
    """The broken-line function at utilisations 0..100 (all the scorer ever asks for)."""
    return np.array(
        [broken_linear_function(shape, p) for p in range(MAX_UTILIZATION + 1)], dtype=np.int64
    )


def requested_to_capacity_ratio_scorer(
    lookup: Sequence[int],
    weights: Sequence[int],
    requested: Sequence[int],
    allocatable: Sequence[int],
) -> int:
    node_score = weight_sum = 0
    for i, a in enumerate(allocatable):
        if a == 0:
            continue
        r = requested[i]
        # requested*100/capacity lies in 0..100 whenever requested <= capacity
        rs = lookup[MAX_UTILIZATION] if r > a else lookup[(r * MAX_UTILIZATION) // a]
        if rs > 0:
            w = weights[i]
            node_score += rs * w
            weight_sum += w
    if weight_sum == 0:
        return 0
    return go_round(float(node_score) / float(weight_sum))


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``(1 - std) * MaxNodeScore`` over the used fractions (each capped at 1), truncated."""
    fractions: list[float] = []
    total = 0.0
    for i, a in enumerate(allocatable):
        if a == 0:
            continue
        f = float(requested[i]) / float(a)
        if f > 1:
            f = 1.0
        total += f
        fractions.append(f)
    std = 0.0
    n = len(fractions)
    if n == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif n > 2:
        mean = total / float(n)
        s = 0.0
        for f in fractions:
            s = s + (f - mean) * (f - mean)
        std = math.sqrt(s / float(n))
    return int((1 - std) * float(MAX_NODE_SCORE))


def balanced_resource_scorer(
    requested: Sequence[int], allocated: Sequence[int], allocatable: Sequence[int]
) -> int:
    """v1.36: half the range is the balance with the pod, moved by how much the pod improves it."""
    with_pod = balanced_resource_score(requested, allocatable)
    without_pod = balanced_resource_score(allocated, allocatable)
    half = MAX_NODE_SCORE // 2
    return half + go_div(half + with_pod - without_pod, 2)


# -- strategies: vectorised ------------------------------------------------------------

_Entries = Sequence[tuple[int, np.ndarray, np.ndarray, np.ndarray] | None]


def _weighted_mean_batch(
    per_resource: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
    weights: Sequence[int],
    entries: _Entries,
    n: int,
) -> np.ndarray:
    # :func:`_weighted_mean` for every node; ``per_resource(requested, allocatable,
    # allocatable with its zeros made 1)``
    node_score = np.zeros(n, dtype=np.int64)
    weight_sum = np.zeros(n, dtype=np.int64)
    for e in entries:
        if e is None:
            continue
        i, req, _, alloc = e
        has = alloc != 0
        rs = per_resource(req, alloc, np.where(has, alloc, 1))
        w = weights[i]
        node_score += np.where(has, rs * w, 0)
        weight_sum += np.where(has, w, 0)
    return np.where(
        weight_sum == 0, 0, go_div_array(node_score, np.where(weight_sum == 0, 1, weight_sum))
    )


def _least_requested_batch(req: np.ndarray, alloc: np.ndarray, safe: np.ndarray) -> np.ndarray:
    return np.where(req > alloc, 0, ((alloc - req) * MAX_NODE_SCORE) // safe)


def _most_requested_batch(req: np.ndarray, alloc: np.ndarray, safe: np.ndarray) -> np.ndarray:
    return (np.minimum(req, alloc) * MAX_NODE_SCORE) // safe


def least_resource_batch(weights: Sequence[int], entries: _Entries, n: int) -> np.ndarray:
    return _weighted_mean_batch(_least_requested_batch, weights, entries, n)


def most_resource_batch(weights: Sequence[int], entries: _Entries, n: int) -> np.ndarray:
    return _weighted_mean_batch(_most_requested_batch, weights, entries, n)


def requested_to_capacity_ratio_batch(
    lookup: np.ndarray, weights: Sequence[int], entries: _Entries, n: int
) -> np.ndarray:
    node_score = np.zeros(n, dtype=np.int64)
    weight_sum = np.zeros(n, dtype=np.int64)
    for e in entries:
        if e is None:
            continue
        i, req, _, alloc = e
        has = alloc != 0
        safe = np.where(has, alloc, 1)
        over = req > alloc
        p = np.where(over, MAX_UTILIZATION, (np.where(over, 0, req) * MAX_UTILIZATION) // safe)
        rs = lookup[p]
        use = has & (rs > 0)
        w = weights[i]
        node_score += np.where(use, rs * w, 0)
        weight_sum += np.where(use, w, 0)
    x = node_score.astype(np.float64) / np.where(weight_sum == 0, 1, weight_sum).astype(np.float64)
    return np.where(weight_sum == 0, 0, go_round_array(x))


def _balanced_batch_score(
    values: Sequence[np.ndarray], allocs: Sequence[np.ndarray], n: int
) -> np.ndarray:
    """:func:`balanced_resource_score` for every node, same float64 operations in the same order."""
    hundred = float(MAX_NODE_SCORE)
    if all(bool(a.all()) for a in allocs):
        # every node has every resource: no masks needed (the common case)
        fr = [
            np.minimum(v.astype(np.float64) / a.astype(np.float64), 1.0)
            for v, a in zip(values, allocs, strict=True)
        ]
        k = len(fr)
        if k == 2:
            std = np.abs((fr[0] - fr[1]) / 2)
        elif k > 2:
            total = fr[0]
            for f in fr[1:]:
                total = total + f
            mean = total / float(k)
            s = np.zeros(n, dtype=np.float64)
            for f in fr:
                d = f - mean
                s = s + d * d
            std = np.sqrt(s / float(k))
        else:
            return np.full(n, MAX_NODE_SCORE, dtype=np.int64)
        return np.trunc((1 - std) * hundred).astype(np.int64)
    count = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.float64)
    first = np.zeros(n, dtype=np.float64)
    second = np.zeros(n, dtype=np.float64)
    fracs: list[tuple[np.ndarray, np.ndarray]] = []
    for v, a in zip(values, allocs, strict=True):
        has = a != 0
        f = v.astype(np.float64) / np.where(has, a, 1).astype(np.float64)
        f = np.where(f > 1, 1.0, f)
        f = np.where(has, f, 0.0)
        # adding 0.0 leaves a float sum unchanged, so masked entries do not disturb the order
        total = total + f
        first = np.where(has & (count == 0), f, first)
        second = np.where(has & (count == 1), f, second)
        count = count + has
        fracs.append((has, f))
    std = np.zeros(n, dtype=np.float64)
    two = count == 2
    if two.any():
        std = np.where(two, np.abs((first - second) / 2), std)
    many = count > 2
    if many.any():
        cnt = np.where(many, count, 1).astype(np.float64)
        mean = total / cnt
        s = np.zeros(n, dtype=np.float64)
        for has, f in fracs:
            d = f - mean
            s = np.where(has, s + d * d, s)
        std = np.where(many, np.sqrt(s / cnt), std)
    return np.trunc((1 - std) * hundred).astype(np.int64)


def balanced_resource_batch(entries: _Entries, n: int) -> np.ndarray:
    reqs = [e[1] for e in entries if e is not None]
    used = [e[2] for e in entries if e is not None]
    allocs = [e[3] for e in entries if e is not None]
    with_pod = _balanced_batch_score(reqs, allocs, n)
    without_pod = _balanced_batch_score(used, allocs, n)
    half = MAX_NODE_SCORE // 2
    return half + go_div_array(half + with_pod - without_pod, 2)
