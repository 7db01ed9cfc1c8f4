"""NodeResourceTopology (``topology.node.k8s.io/v1alpha2``) parsed for the engine.

One object per node, named like the node: its NUMA zones with each resource's
capacity, allocatable and available amounts, and the kubelet's topology
manager policy and scope.  The policy is read the way scheduler-plugins reads
it: the deprecated ``topologyPolicies`` first, then the top-level
``attributes`` (``topologyManagerPolicy``, ``topologyManagerScope``,
``topologyManagerMaxNUMANodes``), which win.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..quantity import QuantityError, milli_value, parse_quantity, value

__all__ = [
    "API_VERSION",
    "DEFAULT_MAX_NUMA_NODES",
    "KIND",
    "NodeResourceTopology",
    "TopologyManager",
    "Zone",
    "ZoneResource",
    "parse_node_resource_topology",
]

KIND = "NodeResourceTopology"
API_VERSION = "topology.node.k8s.io/v1alpha2"
# kubelet's legacy limit; scheduler-plugins uses it when the object says nothing
DEFAULT_MAX_NUMA_NODES = 8
_LIMIT_NUMA_NODES = 1024

POLICY_NONE = "none"
POLICY_BEST_EFFORT = "best-effort"
POLICY_RESTRICTED = "restricted"
POLICY_SINGLE_NUMA_NODE = "single-numa-node"
SCOPE_CONTAINER = "container"
SCOPE_POD = "pod"
_POLICIES = frozenset({POLICY_NONE, POLICY_BEST_EFFORT, POLICY_RESTRICTED, POLICY_SINGLE_NUMA_NODE})
_SCOPES = frozenset({SCOPE_CONTAINER, SCOPE_POD})
# the deprecated topologyPolicies values → (policy, scope)
_LEGACY_POLICIES = {
    "SingleNUMANodePodLevel": (POLICY_SINGLE_NUMA_NODE, SCOPE_POD),
    "SingleNUMANodeContainerLevel": (POLICY_SINGLE_NUMA_NODE, SCOPE_CONTAINER),
    "BestEffortPodLevel": (POLICY_BEST_EFFORT, SCOPE_POD),
    "BestEffortContainerLevel": (POLICY_BEST_EFFORT, SCOPE_CONTAINER),
    "RestrictedPodLevel": (POLICY_RESTRICTED, SCOPE_POD),
    "RestrictedContainerLevel": (POLICY_RESTRICTED, SCOPE_CONTAINER),
}


@dataclass(frozen=True, slots=True)
class TopologyManager:
    policy: str = POLICY_NONE
    scope: str = SCOPE_CONTAINER
    max_numa_nodes: int = DEFAULT_MAX_NUMA_NODES


@dataclass(frozen=True, slots=True)
class ZoneResource:
    """One resource of a zone; cpu in millicores, everything else in units."""

    name: str
    capacity: int
    allocatable: int
    available: int


@dataclass(frozen=True, slots=True)
class Zone:
    name: str
    type: str
    resources: tuple[ZoneResource, ...]
    # zone name → distance (the ``costs`` list)
    costs: Mapping[str, int]
    attributes: Mapping[str, str]

    @property
    def numa_id(self) -> int | None:
        """The NUMA node number of a ``node-N`` zone (scheduler-plugins' convention)."""
        prefix, _, num = self.name.rpartition("-")
        return int(num) if prefix == "node" and num.isdigit() else None

    def resource(self, name: str) -> ZoneResource | None:
        for r in self.resources:
            if r.name == name:
                return r
        return None


@dataclass(frozen=True, slots=True)
class NodeResourceTopology:
    name: str
    zones: tuple[Zone, ...]
    topology_policies: tuple[str, ...]
    attributes: Mapping[str, str]
    manager: TopologyManager
    raw: Mapping[str, Any]

    @property
    def numa_zones(self) -> tuple[Zone, ...]:
        return tuple(z for z in self.zones if z.type == "Node")


def _amount(name: str, raw: object) -> int:
    q = parse_quantity(raw)
    return milli_value(q) if name == "cpu" else value(q)


def _attributes(raw: object, where: str, ref: str, source: str | None) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise InputError("must be a list", file=source, obj=ref, field=where)
    out: dict[str, str] = {}
    for i, a in enumerate(raw):
        if not isinstance(a, Mapping) or not isinstance(a.get("name"), str):
            raise InputError("is required", file=source, obj=ref, field=f"{where}[{i}].name")
        out[a["name"]] = str(a.get("value", ""))
    return out


def topology_manager(policies: tuple[str, ...], attributes: Mapping[str, str]) -> TopologyManager:
    """Policy, scope and NUMA limit: legacy ``topologyPolicies`` first, valid attributes win."""
    policy, scope, max_numa = POLICY_NONE, SCOPE_CONTAINER, DEFAULT_MAX_NUMA_NODES
    if policies and policies[0] in _LEGACY_POLICIES:
        policy, scope = _LEGACY_POLICIES[policies[0]]
    if attributes.get("topologyManagerScope") in _SCOPES:
        scope = attributes["topologyManagerScope"]
    if attributes.get("topologyManagerPolicy") in _POLICIES:
        policy = attributes["topologyManagerPolicy"]
    raw_max = attributes.get("topologyManagerMaxNUMANodes")
    if raw_max is not None:
        try:
            n = int(raw_max)
        except ValueError:
            n = 0
        if n > 1:
            max_numa = min(n, _LIMIT_NUMA_NODES)
    return TopologyManager(policy, scope, max_numa)


def _zone(raw: object, i: int, ref: str, source: str | None) -> Zone:
    where = f"zones[{i}]"
    if not isinstance(raw, Mapping):
        raise InputError("must be an object", file=source, obj=ref, field=where)
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("is required", file=source, obj=ref, field=f"{where}.name")
    resources: list[ZoneResource] = []
    res_raw = raw.get("resources")
    res_raw = [] if res_raw is None else res_raw
    if not isinstance(res_raw, list):
        raise InputError("must be a list", file=source, obj=ref, field=f"{where}.resources")
    for j, r in enumerate(res_raw):
        rw = f"{where}.resources[{j}]"
        if not isinstance(r, Mapping) or not isinstance(r.get("name"), str):
            raise InputError("is required", file=source, obj=ref, field=f"{rw}.name")
        rname = r["name"]
        amounts = []
        for key in ("capacity", "allocatable", "available"):
            if r.get(key) is None:
                raise InputError("is required", file=source, obj=ref, field=f"{rw}.{key}")
            try:
                amounts.append(_amount(rname, r[key]))
            except QuantityError as exc:
                raise InputError(str(exc), file=source, obj=ref, field=f"{rw}.{key}") from None
        resources.append(ZoneResource(rname, *amounts))
    costs: dict[str, int] = {}
    for j, c in enumerate(raw.get("costs") or []):
        if not isinstance(c, Mapping) or not isinstance(c.get("name"), str):
            raise InputError("is required", file=source, obj=ref, field=f"{where}.costs[{j}].name")
        if not isinstance(c.get("value"), int) or isinstance(c.get("value"), bool):
            raise InputError(
                "must be an integer", file=source, obj=ref, field=f"{where}.costs[{j}].value"
            )
        costs[c["name"]] = c["value"]
    return Zone(
        name=name,
        type=str(raw.get("type") or ""),
        resources=tuple(resources),
        costs=costs,
        attributes=_attributes(raw.get("attributes"), f"{where}.attributes", ref, source),
    )


def parse_node_resource_topology(
    obj: Mapping[str, Any], *, source: str | None = None
) -> NodeResourceTopology:
    """Parse one object; bad input raises :class:`InputError` naming the field."""
    meta = obj.get("metadata") or {}
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not isinstance(name, str) or not name:
        raise InputError("is required", file=source, obj=KIND, field="metadata.name")
    ref = f"{KIND} {name}"
    zones_raw = obj.get("zones")
    zones_raw = [] if zones_raw is None else zones_raw
    if not isinstance(zones_raw, list):
        raise InputError("must be a list", file=source, obj=ref, field="zones")
    policies_raw = obj.get("topologyPolicies")
    policies_raw = [] if policies_raw is None else policies_raw
    if not isinstance(policies_raw, list) or not all(isinstance(p, str) for p in policies_raw):
        raise InputError(
            "must be a list of strings", file=source, obj=ref, field="topologyPolicies"
        )
    attributes = _attributes(obj.get("attributes"), "attributes", ref, source)
    zones = tuple(_zone(z, i, ref, source) for i, z in enumerate(zones_raw))
    policies = tuple(policies_raw)
    return NodeResourceTopology(
        name=name,
        zones=zones,
        topology_policies=policies,
        attributes=attributes,
        manager=topology_manager(policies, attributes),
        raw=obj,
    )
