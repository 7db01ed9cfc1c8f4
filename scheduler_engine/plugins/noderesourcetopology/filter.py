"""Filter: align the pod's resources on one NUMA node (single-numa-node policy).

Container scope aligns each (init) container on a NUMA node, taking app
containers' resources away as they are placed; pod scope aligns the pod's
effective request.  Each check also says which NUMA nodes could hold what,
for explanations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ...framework.node_info import NodeInfo
from ...framework.status import Code, Status
from ...objects.noderesourcetopology import SCOPE_CONTAINER, SCOPE_POD, TopologyManager
from .numa import (
    GUARANTEED,
    NUMANode,
    ResourceList,
    container_requests,
    init_and_app_containers,
    is_host_level_resource,
    is_numa_affine_resource,
    is_resource_set_suitable,
    pod_effective_request,
)

__all__ = [
    "ERR_ALIGN_CONTAINER",
    "ERR_ALIGN_INIT_CONTAINER",
    "ERR_ALIGN_POD",
    "ERR_INVALID_TOPOLOGY",
    "NodeNUMA",
    "single_numa_container_level",
    "single_numa_pod_level",
]

ERR_ALIGN_POD = "cannot align pod"
ERR_ALIGN_CONTAINER = "cannot align container"
ERR_ALIGN_INIT_CONTAINER = "cannot align init container"
ERR_INVALID_TOPOLOGY = "invalid node topology data"
# node-level amounts always present in a NodeInfo's allocatable (upstream util.ResourceList)
_ALWAYS_AT_NODE = frozenset({"cpu", "memory", "pods", "ephemeral-storage"})


def _fmt(name: str, q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    return f"{round(q * 1000)}m" if name == "cpu" else str(float(q))


def _at_node(node_info: NodeInfo, name: str) -> bool:
    return name in _ALWAYS_AT_NODE or name in node_info.node.allocatable.scalar


@dataclass(slots=True)
class NodeNUMA:
    """What a pod is aligned against: the node, its topology manager, its NUMA nodes
    (what is left of them as containers are placed) and the pod's QoS class."""

    node_info: NodeInfo
    manager: TopologyManager
    numa_nodes: list[NUMANode]
    qos: str


def resources_available_in_any_numa_node(
    node: NodeNUMA, resources: ResourceList
) -> tuple[int, bool, str]:
    """(NUMA id the kubelet would pick, whether one fits, why not) — upstream's check."""
    node_info, numa_nodes, qos = node.node_info, node.numa_nodes, node.qos
    candidates = set(range(64))  # a full bitmask: every NUMA node may do
    why = ""
    for name, quantity in resources.items():
        if quantity == 0:
            continue
        if not _at_node(node_info, name):
            return -1, False, f"the node has no {name}"
        has_affinity = False
        fits: set[int] = set()
        short: list[str] = []
        for numa in numa_nodes:
            if name not in numa.resources:
                continue
            has_affinity = True
            avail = numa.resources[name]
            if not is_resource_set_suitable(qos, name, quantity, avail):
                short.append(f"node-{numa.numa_id} has {_fmt(name, avail)}")
                continue
            fits.add(numa.numa_id)
        if not has_affinity and is_host_level_resource(name):
            continue
        candidates &= fits
        if not candidates:
            asked = f"{_fmt(name, quantity)} {name}"
            if short:
                why = f"no NUMA node has {asked} available ({', '.join(short)})"
            else:
                why = f"no NUMA node that fits the other resources has {asked} available"
            return node.manager.max_numa_nodes, False, why
    return min(candidates), True, ""


def _subtract(node: NodeNUMA, numa_id: int, requests: ResourceList) -> None:
    qos = node.qos
    for numa in node.numa_nodes:
        if numa.numa_id != numa_id:
            continue
        for name, q in requests.items():
            if qos != GUARANTEED and is_numa_affine_resource(name):
                continue
            if q == 0 or name not in numa.resources:
                continue
            left = numa.resources[name] - q
            if left < 0:
                raise ValueError(
                    f"resource {name!r} request {_fmt(name, q)} exceeds NUMA {numa_id} "
                    f"availability {_fmt(name, numa.resources[name])}"
                )
            numa.resources[name] = left


def _ok(detail: str) -> Status:
    """Success, saying where the kubelet would align the pod (recorded with ``--explain``)."""
    s = Status(Code.SUCCESS)
    s.detail = detail
    return s


def _status(reason: str, detail: str) -> Status:
    s = Status(Code.UNSCHEDULABLE, reason)
    s.detail = detail
    return s


def single_numa_container_level(pod_raw: Mapping[str, Any], node: NodeNUMA) -> Status | None:
    inits, apps = init_and_app_containers(pod_raw)
    # init containers run one after another, before the app containers
    for c in inits:
        _, ok, why = resources_available_in_any_numa_node(node, container_requests(c))
        if not ok:
            # a restartable init container is a sidecar: "cannot align sidecar container"
            kind = "sidecar" if c.get("restartPolicy") == "Always" else "init"
            return _status(
                f"cannot align {kind} container", f"{kind} container {c.get('name')}: {why}"
            )
    placed: list[str] = []
    for c in apps:
        reqs = container_requests(c)
        numa_id, ok, why = resources_available_in_any_numa_node(node, reqs)
        if not ok:
            after = f" (after {', '.join(placed)})" if placed else ""
            return _status(ERR_ALIGN_CONTAINER, f"container {c.get('name')}: {why}{after}")
        try:
            _subtract(node, numa_id, reqs)
        except ValueError as exc:
            return Status(Code.ERROR, "inconsistent resource accounting", str(exc))
        placed.append(f"{c.get('name')} on node-{numa_id}")
    return _ok(f"containers aligned: {', '.join(placed)}")


def single_numa_pod_level(pod_raw: Mapping[str, Any], node: NodeNUMA) -> Status | None:
    numa_id, ok, why = resources_available_in_any_numa_node(node, pod_effective_request(pod_raw))
    if not ok:
        return _status(ERR_ALIGN_POD, f"pod: {why}")
    return _ok(f"pod aligned on node-{numa_id}")


HANDLERS = {SCOPE_POD: single_numa_pod_level, SCOPE_CONTAINER: single_numa_container_level}
