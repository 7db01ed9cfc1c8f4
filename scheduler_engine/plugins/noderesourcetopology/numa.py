"""NUMA nodes, pod QoS and requests as NodeResourceTopologyMatch reads them.

Quantities are exact fractions (upstream compares ``resource.Quantity``
values); scores use ``Value()``, the amount rounded up to a whole unit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...objects.noderesourcetopology import NodeResourceTopology
from ...objects.pod import parse_resource_list

__all__ = [
    "MAX_NUMA_ID",
    "NUMANode",
    "ResourceList",
    "container_requests",
    "create_numa_node_list",
    "include_non_native",
    "is_host_level_resource",
    "is_numa_affine_resource",
    "is_resource_set_suitable",
    "pod_effective_request",
    "pod_qos",
    "quantity_value",
]

ResourceList = dict[str, Fraction]

# zones named node-N with N above this are ignored (upstream maxNUMAId)
MAX_NUMA_ID = 64
_NODE_ZONE = re.compile(r"^node-(\d+)$")

GUARANTEED = "Guaranteed"
BURSTABLE = "Burstable"
BEST_EFFORT = "BestEffort"


@dataclass(slots=True)
class NUMANode:
    numa_id: int
    # available amounts (what the plugin schedules against)
    resources: ResourceList
    costs: dict[int, int] = field(default_factory=dict)

    def copy(self) -> NUMANode:
        return NUMANode(self.numa_id, dict(self.resources), dict(self.costs))


def _zone_amount(name: str, amount: int) -> Fraction:
    # NodeResourceTopology keeps cpu in millicores
    return Fraction(amount, 1000) if name == "cpu" else Fraction(amount)


def _numa_id(name: str) -> int | None:
    m = _NODE_ZONE.match(name)
    if m is None:
        return None
    n = int(m.group(1))
    return n if n <= MAX_NUMA_ID else None


def create_numa_node_list(nrt: NodeResourceTopology) -> list[NUMANode]:
    """Zones of type Node named ``node-N``, with their available resources and costs."""
    out: list[NUMANode] = []
    for zone in nrt.zones:
        if zone.type != "Node":
            continue
        nid = _numa_id(zone.name)
        if nid is None:
            continue
        costs: dict[int, int] = {}
        for cname, value in zone.costs.items():
            cid = _numa_id(cname)
            if cid is not None:
                costs[cid] = value
        out.append(
            NUMANode(
                nid,
                {r.name: _zone_amount(r.name, r.available) for r in zone.resources},
                costs,
            )
        )
    return out


def quantity_value(q: Fraction) -> int:
    """``Quantity.Value()``: rounded up to an integer."""
    return math.ceil(q)


def is_native_resource(name: str) -> bool:
    return "/" not in name or name.startswith("kubernetes.io/")


def is_host_level_resource(name: str) -> bool:
    """Resources that may not be bound to NUMA nodes (storage, non-native)."""
    return name in ("ephemeral-storage", "storage") or not is_native_resource(name)


def is_numa_affine_resource(name: str) -> bool:
    """Resources that must be bound to NUMA nodes: cpu, memory, hugepages."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def is_resource_set_suitable(qos: str, name: str, quantity: Fraction, available: Fraction) -> bool:
    if qos != GUARANTEED and is_numa_affine_resource(name):
        return True
    return available >= quantity


def _containers(pod_raw: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    spec = pod_raw.get("spec") or {}
    return [c for c in spec.get(key) or [] if isinstance(c, Mapping)]


def container_requests(container: Mapping[str, Any]) -> ResourceList:
    """A container's requests, limits standing in for missing requests (API defaulting)."""
    res = container.get("resources") or {}
    limits = parse_resource_list(res.get("limits"), "limits")
    requests = parse_resource_list(res.get("requests"), "requests")
    return {**limits, **requests}


def _container_limits(container: Mapping[str, Any]) -> ResourceList:
    res = container.get("resources") or {}
    return parse_resource_list(res.get("limits"), "limits")


def init_and_app_containers(
    pod_raw: Mapping[str, Any],
) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    return _containers(pod_raw, "initContainers"), _containers(pod_raw, "containers")


def pod_qos(pod_raw: Mapping[str, Any]) -> str:
    """The pod's QoS class (upstream ``GetPodQOS``)."""
    spec = pod_raw.get("spec") or {}
    pod_res = spec.get("resources")
    if isinstance(pod_res, Mapping) and (pod_res.get("requests") or pod_res.get("limits")):
        lists: Iterable[tuple[ResourceList, ResourceList]] = [
            (
                {
                    **parse_resource_list(pod_res.get("limits"), "limits"),
                    **parse_resource_list(pod_res.get("requests"), "requests"),
                },
                parse_resource_list(pod_res.get("limits"), "limits"),
            )
        ]
    else:
        inits, apps = init_and_app_containers(pod_raw)
        lists = [(container_requests(c), _container_limits(c)) for c in [*inits, *apps]]
    requests: ResourceList = {}
    limits: ResourceList = {}
    guaranteed = True
    for reqs, lims in lists:
        for name, q in reqs.items():
            if name in ("cpu", "memory") and q > 0:
                requests[name] = requests.get(name, Fraction(0)) + q
        found = set()
        for name, q in lims.items():
            if name in ("cpu", "memory") and q > 0:
                found.add(name)
                limits[name] = limits.get(name, Fraction(0)) + q
        if found != {"cpu", "memory"}:
            guaranteed = False
    if not requests and not limits:
        return BEST_EFFORT
    if guaranteed:
        for name, q in requests.items():
            if limits.get(name) != q:
                guaranteed = False
                break
    if guaranteed and len(requests) == len(limits):
        return GUARANTEED
    return BURSTABLE


def include_non_native(pod_raw: Mapping[str, Any]) -> bool:
    inits, apps = init_and_app_containers(pod_raw)
    return any(
        not is_native_resource(name) for c in [*inits, *apps] for name in container_requests(c)
    )


def pod_effective_request(pod_raw: Mapping[str, Any]) -> ResourceList:
    """max(largest init container, sum of app containers) per resource, plus overhead."""
    inits, apps = init_and_app_containers(pod_raw)
    init_res: ResourceList = {}
    for c in inits:
        for name, q in container_requests(c).items():
            if name not in init_res or q > init_res[name]:
                init_res[name] = q
    res: ResourceList = {}
    for c in apps:
        for name, q in container_requests(c).items():
            res[name] = res.get(name, Fraction(0)) + q
    for name, q in init_res.items():
        if name not in res or q > res[name]:
            res[name] = q
    overhead = parse_resource_list((pod_raw.get("spec") or {}).get("overhead"), "overhead")
    for name, q in overhead.items():
        res[name] = res.get(name, Fraction(0)) + q
    return res
