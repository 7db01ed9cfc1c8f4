"""The node's devices as the allocator sees them (upstream ``structured``: pools,
allocated devices, node selection, quantities).

The pools of a node: newest generation only; incomplete and invalid pools are
skipped, sorted by driver and pool, pools with binding conditions last.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...objects import Node
from ...objects.selectors import SelectorError, parse_node_selector
from ...quantity import QuantityError, parse_quantity

__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "AllocatedState",
    "AllocationError",
    "DeviceID",
    "FailedOnNode",
    "Pool",
    "SliceIndex",
    "allocated_state_from_claims",
    "format_quantity",
    "gather_pools",
    "node_matches",
]

# resourceapi.AllocationResultsMaxSize
ALLOCATION_RESULTS_MAX_SIZE = 32

DeviceID = tuple[str, str, str]  # driver, pool, device


class AllocationError(Exception):
    """Something is wrong with a claim or class: upstream aborts the pod's cycle with an Error."""


class FailedOnNode(Exception):
    """Allocation failed on this node for a reason worth reporting (upstream ErrFailedAllocationOnNode)."""


class _Stop(Exception):
    """A result would have more than ALLOCATION_RESULTS_MAX_SIZE devices."""


# -- node selection -----------------------------------------------------------------

_SELECTORS: dict[int, tuple[Any, Any]] = {}


def _node_selector(raw: Mapping[str, Any]) -> Any:
    hit = _SELECTORS.get(id(raw))
    if hit is not None and hit[0] is raw:
        return hit[1]
    try:
        sel = parse_node_selector(raw, "nodeSelector")
    except SelectorError as exc:
        raise AllocationError(f"failed to parse node selector: {exc}") from None
    if len(_SELECTORS) > 4096:
        _SELECTORS.clear()
    _SELECTORS[id(raw)] = (raw, sel)
    return sel


def node_matches(
    node: Node | None, node_name: str, all_nodes: bool, node_selector: Mapping[str, Any] | None
) -> bool:
    """Upstream ``NodeMatches``: a name, all nodes, or a node selector."""
    if node_name:
        return node is not None and node.name == node_name
    if all_nodes:
        return True
    if node_selector is not None:
        if node is None:
            return False
        return _node_selector(node_selector).matches(node.labels, node.name)
    return False


# -- quantities ---------------------------------------------------------------------


def _q(raw: Any) -> Fraction:
    try:
        return parse_quantity(raw)
    except QuantityError as exc:
        raise AllocationError(f"invalid quantity {raw!r}: {exc}") from None


def format_quantity(v: Fraction) -> str:
    if v.denominator == 1:
        return str(v.numerator)
    milli = v * 1000
    if milli.denominator == 1:
        return f"{milli.numerator}m"
    return str(float(v))


# -- what is already in use -----------------------------------------------------------


class AllocatedState:
    """Devices in use by allocated (or in-flight) claims (upstream ``AllocatedState``)."""

    __slots__ = ("aggregated_capacity", "devices", "shared_ids")

    def __init__(self) -> None:
        self.devices: set[DeviceID] = set()
        self.shared_ids: set[tuple[DeviceID, str]] = set()
        self.aggregated_capacity: dict[DeviceID, dict[str, Fraction]] = {}

    def add_claim(self, claim: Mapping[str, Any]) -> None:
        alloc = (claim.get("status") or {}).get("allocation")
        if not alloc:
            return
        for r in (alloc.get("devices") or {}).get("results") or ():
            if r.get("adminAccess"):
                continue
            did = (str(r.get("driver", "")), str(r.get("pool", "")), str(r.get("device", "")))
            share = r.get("shareID")
            if share:
                self.shared_ids.add((did, str(share)))
                consumed = r.get("consumedCapacity")
                if consumed:
                    agg = self.aggregated_capacity.setdefault(did, {})
                    for name, val in consumed.items():
                        agg[name] = agg.get(name, Fraction(0)) + _q(val)
                continue
            self.devices.add(did)

    def is_allocated(self, did: DeviceID) -> bool:
        if did in self.devices or did in self.aggregated_capacity:
            return True
        return any(s[0] == did for s in self.shared_ids)


def allocated_state_from_claims(claims: Iterable[Mapping[str, Any]]) -> AllocatedState:
    st = AllocatedState()
    for c in claims:
        st.add_claim(c)
    return st


# -- slices by node ---------------------------------------------------------------------


class SliceIndex:
    """ResourceSlices split as upstream's allocator does: per node, and shared."""

    __slots__ = ("all", "on_node", "shared")

    def __init__(self, slices: Sequence[Mapping[str, Any]]) -> None:
        self.all = list(slices)
        self.on_node: dict[str, list[Mapping[str, Any]]] = {}
        self.shared: list[Mapping[str, Any]] = []
        for s in self.all:
            spec = s.get("spec") or {}
            node_name = spec.get("nodeName") or ""
            if not node_name or spec.get("sharedCounters"):
                self.shared.append(s)
            else:
                self.on_node.setdefault(node_name, []).append(s)

    def for_node(self, name: str) -> list[Mapping[str, Any]]:
        return self.on_node.get(name, []) + self.shared


@dataclass(slots=True, eq=False)
class Pool:
    driver: str
    name: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list[Mapping[str, Any]] = field(default_factory=list)
    slices_not_targeting_node: list[Mapping[str, Any]] = field(default_factory=list)
    counter_sets: dict[str, dict[str, Fraction]] = field(default_factory=dict)

    @property
    def pool_id(self) -> str:
        return f"{self.driver}/{self.name}"


def _pool_of(s: Mapping[str, Any]) -> tuple[str, str, int, int]:
    spec = s.get("spec") or {}
    pool = spec.get("pool") or {}
    return (
        str(spec.get("driver", "")),
        str(pool.get("name", "")),
        int(pool.get("generation") or 0),
        int(pool.get("resourceSliceCount") or 0),
    )


def gather_pools(
    slices_for_node: Sequence[Mapping[str, Any]],
    node: Node,
    all_slices: Sequence[Mapping[str, Any]],
) -> list[Pool]:
    """Upstream ``GatherPools`` with PartitionableDevices on."""
    by_pool: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for s in slices_for_node:
        spec = s.get("spec") or {}
        if spec.get("sharedCounters"):
            relevant = True
        elif spec.get("nodeName") or spec.get("allNodes") or spec.get("nodeSelector") is not None:
            relevant = node_matches(
                node,
                str(spec.get("nodeName") or ""),
                bool(spec.get("allNodes")),
                spec.get("nodeSelector"),
            )
        elif spec.get("perDeviceNodeSelection"):
            relevant = any(
                node_matches(
                    node,
                    str(d.get("nodeName") or ""),
                    bool(d.get("allNodes")),
                    d.get("nodeSelector"),
                )
                for d in spec.get("devices") or ()
            )
        else:
            continue
        if not relevant:
            continue
        driver, pool, gen, _ = _pool_of(s)
        cur = by_pool.get((driver, pool))
        if cur is None or gen > _pool_of(cur[0])[2]:
            by_pool[(driver, pool)] = [s]
        elif gen == _pool_of(cur[0])[2]:
            cur.append(s)
    result: list[Pool] = []
    with_binding: list[Pool] = []
    for (driver, name), pslices in by_pool.items():
        _, _, gen, count = _pool_of(pslices[0])
        all_for_pool: list[Mapping[str, Any]] | None = None
        if len(pslices) != count:
            obsolete = False
            all_for_pool = []
            for s in all_slices:
                d, p, g, _ = _pool_of(s)
                if d != driver or p != name:
                    continue
                if g == gen:
                    all_for_pool.append(s)
                elif g > gen:
                    obsolete = True
                    break
            if obsolete:
                continue
            if len(all_for_pool) != count:
                pool = Pool(driver, name)
                pool.incomplete = True
                result.append(pool)
                continue
        pool = _build_pool(driver, name, pslices, all_for_pool)
        if any(
            d.get("bindingConditions") is not None
            for s in pool.slices
            for d in (s.get("spec") or {}).get("devices") or ()
        ):
            with_binding.append(pool)
        else:
            result.append(pool)
    result.sort(key=lambda p: (p.driver, p.name))
    with_binding.sort(key=lambda p: (p.driver, p.name))
    return result + with_binding


def _build_pool(
    driver: str,
    name: str,
    slices: list[Mapping[str, Any]],
    all_for_pool: list[Mapping[str, Any]] | None,
) -> Pool:
    pool = Pool(driver, name)
    slices = sorted(slices, key=lambda s: str((s.get("metadata") or {}).get("name", "")))
    device_slices = [s for s in slices if not (s.get("spec") or {}).get("sharedCounters")]
    counter_slices = [s for s in slices if (s.get("spec") or {}).get("sharedCounters")]

    def invalid(reason: str) -> Pool:
        pool.invalid = True
        pool.invalid_reason = reason
        return pool

    seen: set[str] = set()
    for s in device_slices:
        for d in (s.get("spec") or {}).get("devices") or ():
            n = str(d.get("name", ""))
            if n in seen:
                return invalid(f"duplicate device name {n}")
            seen.add(n)
    counter_sets: dict[str, dict[str, Fraction]] = {}
    for s in counter_slices:
        for cs in (s.get("spec") or {}).get("sharedCounters") or ():
            cname = str(cs.get("name", ""))
            if cname in counter_sets:
                return invalid(f"duplicate counter set name {cname}")
            counter_sets[cname] = {
                k: _q((v or {}).get("value", "0")) for k, v in (cs.get("counters") or {}).items()
            }
    err = _validate_counter_consumption(counter_sets, slices)
    if err:
        return invalid(err)
    pool.slices = device_slices
    pool.counter_sets = counter_sets
    if all_for_pool is None or len(slices) == len(all_for_pool):
        return pool
    names = {str((s.get("metadata") or {}).get("name", "")) for s in slices}
    others = [
        s for s in all_for_pool if str((s.get("metadata") or {}).get("name", "")) not in names
    ]
    err = _validate_counter_consumption(counter_sets, others)
    if err:
        pool.slices = []
        return invalid(err)
    pool.slices_not_targeting_node = others
    return pool


def _validate_counter_consumption(
    counter_sets: Mapping[str, Mapping[str, Fraction]], slices: Iterable[Mapping[str, Any]]
) -> str:
    for s in slices:
        for d in (s.get("spec") or {}).get("devices") or ():
            for cc in d.get("consumesCounters") or ():
                cs = counter_sets.get(str(cc.get("counterSet", "")))
                if cs is None:
                    return f"counter set {cc.get('counterSet', '')} not found"
                for cname in cc.get("counters") or {}:
                    if cname not in cs:
                        return (
                            f"counter {cname} not found in counter set {cc.get('counterSet', '')}"
                        )
    return ""
