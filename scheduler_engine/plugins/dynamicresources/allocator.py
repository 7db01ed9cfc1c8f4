"""Structured-parameters allocation of devices for ResourceClaims on one node.

Upstream counterpart: ``k8s.io/dynamic-resource-allocation/structured``, the
"incubating" allocator that kube-scheduler v1.36 picks with its default
feature gates (AdminAccess, PrioritizedList, PartitionableDevices,
DeviceTaints, DeviceBindingAndStatus and ConsumableCapacity all on).

Objects are the raw ``resource.k8s.io/v1`` dicts.  The search is upstream's:
pools of the node (newest generation only; incomplete and invalid pools are
skipped, sorted by driver and pool, pools with binding conditions last),
claims → requests (or the first subrequest of ``firstAvailable`` that works)
→ devices, depth first with backtracking, devices in slice-name order; a
device must not be allocated already (unless the request has admin access),
must pass the DeviceClass's and the request's CEL selectors, untolerated
NoSchedule/NoExecute device taints, the claim's ``matchAttribute`` /
``distinctAttribute`` constraints, shared counters (partitionable devices)
and consumable capacity (devices with ``allowMultipleAllocations``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from ...objects import Node
from ...quantity import QuantityError
from .cel import CELError, compile_selector, device_variables
from .claim_requests import (
    Request,
    _claim_ref,
    _Constraint,
    _consumed,
    _Dev,
    _ReqData,
    _Result,
    _taint_prevents,
    request_over_capacity,
)
from .pools import (
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocatedState,
    AllocationError,
    DeviceID,
    FailedOnNode,
    Pool,
    SliceIndex,
    _q,
    _Stop,
    format_quantity,
    gather_pools,
    node_matches,
)

__all__ = ["Allocator"]

# -- the allocator ----------------------------------------------------------------------


class Allocator:
    """Set up once per pod (upstream: in PreFilter), asked once per node in Filter."""

    def __init__(
        self,
        allocated: AllocatedState,
        classes: Mapping[str, Mapping[str, Any]],
        slices: SliceIndex,
        match_cache: dict[tuple[str, int, int], bool],
        share_ids: Callable[[], str] | None = None,
    ) -> None:
        self.allocated = allocated
        self.classes = classes
        self.slices = slices
        self.match_cache = match_cache
        self._vars: dict[tuple[int, int], tuple[Mapping[str, Any], Any]] = {}
        self.available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        counter = itertools.count(1)
        self.share_ids = share_ids or (lambda: f"share-{next(counter)}")

    def allocate(
        self, node: Node, claims: Sequence[Mapping[str, Any]]
    ) -> list[dict[str, Any]] | None:
        """One allocation result per claim, or None when the claims do not fit on ``node``.

        Raises :class:`AllocationError` (the claim or class is broken) or
        :class:`FailedOnNode` (invalid pools on this node).
        """
        return _Allocation(self, node, claims).run()

    # CEL selectors over one device, cached across nodes and pods: slices do not change
    def selectors_match(
        self,
        selectors: Sequence[Mapping[str, Any]],
        slc: Mapping[str, Any],
        index: int,
        driver: str,
        where: str,
    ) -> bool:
        for i, sel in enumerate(selectors):
            expr = str((sel.get("cel") or {}).get("expression", ""))
            key = (expr, id(slc), index)
            hit = self.match_cache.get(key)
            if hit is not None:
                if not hit:
                    return False
                continue
            prog = compile_selector(expr)
            if prog.error:
                raise AllocationError(f"{where}: selector #{i}: CEL compile error: {prog.error}")
            vkey = (id(slc), index)
            cached = self._vars.get(vkey)
            if cached is None or cached[0] is not slc:
                device = (slc.get("spec") or {}).get("devices")[index]
                try:
                    cached = (slc, device_variables(driver, device))
                except (CELError, QuantityError) as exc:
                    raise AllocationError(
                        f"{where}: selector #{i}: CEL runtime error: {exc}"
                    ) from None
                self._vars[vkey] = cached
            try:
                ok = prog.matches(cached[1])
            except CELError as exc:
                raise AllocationError(f"{where}: selector #{i}: CEL runtime error: {exc}") from None
            self.match_cache[key] = ok
            if not ok:
                return False
        return True


class _Allocation:
    """One Allocate call: the state of the depth-first search."""

    def __init__(self, a: Allocator, node: Node, claims: Sequence[Mapping[str, Any]]) -> None:
        self.a = a
        self.node = node
        self.claims = list(claims)
        self.request_data: dict[tuple[int, int, int], _ReqData] = {}
        self.constraints: list[list[_Constraint]] = []
        self.allocating: dict[DeviceID, set[int]] = {}
        self.allocating_capacity: dict[DeviceID, dict[str, Fraction]] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self.results: list[list[_Result]] = [[] for _ in self.claims]
        self.selectable: dict[tuple[DeviceID, int, int, int], bool] = {}
        self.pools: list[Pool] = []

    def run(self) -> list[dict[str, Any]] | None:
        a = self.a
        self.pools = gather_pools(a.slices.for_node(self.node.name), self.node, a.slices.all)
        for ci, claim in enumerate(self.claims):
            devices = (claim.get("spec") or {}).get("devices") or {}
            min_per_claim = 0
            for ri, raw in enumerate(devices.get("requests") or ()):
                name = str(raw.get("name", ""))
                subs = raw.get("firstAvailable") or ()
                if subs:
                    parent = Request(raw, name, False)
                    lowest = None
                    for si, sub in enumerate(subs):
                        rd = self._validate(
                            Request(sub, str(sub.get("name", "")), True), parent, (ci, ri, si)
                        )
                        self.request_data[(ci, ri, si)] = rd
                        lowest = rd.num_devices if lowest is None else min(lowest, rd.num_devices)
                    min_per_claim += lowest or 0
                else:
                    rd = self._validate(
                        Request(raw.get("exactly") or {}, name, False), None, (ci, ri, 0)
                    )
                    self.request_data[(ci, ri, 0)] = rd
                    min_per_claim += rd.num_devices
            if min_per_claim > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(
                    f"claim {_claim_ref(claim)}: number of requested devices {min_per_claim} "
                    f"exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}"
                )
            cons = []
            for i, c in enumerate(devices.get("constraints") or ()):
                if c.get("matchAttribute"):
                    cons.append(
                        _Constraint(c.get("requests") or (), str(c["matchAttribute"]), False)
                    )
                elif c.get("distinctAttribute"):
                    cons.append(
                        _Constraint(c.get("requests") or (), str(c["distinctAttribute"]), True)
                    )
                else:
                    raise AllocationError(
                        f"claim {_claim_ref(claim)}, constraint #{i}: empty constraint "
                        "(unsupported constraint type?)"
                    )
            self.constraints.append(cons)
        done = self._allocate_one(0, 0, 0, 0, False, (0, 0, 0))
        if not done:
            if any(p.invalid for p in self.pools):
                raise FailedOnNode("invalid resource pools were encountered")
            return None
        return [self._result(ci, claim) for ci, claim in enumerate(self.claims)]

    def _validate(
        self, req: Request, parent: Request | None, key: tuple[int, int, int]
    ) -> _ReqData:
        claim = self.claims[key[0]]
        rd = _ReqData(req, parent)
        for i, sel in enumerate(req.selectors):
            if not isinstance(sel, Mapping) or not sel.get("cel"):
                raise AllocationError(
                    f"claim {_claim_ref(claim)}, request {req.name}, selector #{i}: "
                    "CEL expression empty (unsupported selector type?)"
                )
        if not req.class_name:
            raise AllocationError(
                f"claim {_claim_ref(claim)}, request {req.name}: missing device class name "
                "(unsupported request type?)"
            )
        dclass = self.a.classes.get(req.class_name)
        if dclass is None:
            raise AllocationError(
                f"claim {_claim_ref(claim)}, request {req.name}: could not retrieve device class "
                f'{req.class_name}: deviceclass.resource.k8s.io "{req.class_name}" not found'
            )
        rd.dclass = dclass
        if req.mode == "ExactCount":
            rd.num_devices = req.count
        elif req.mode == "All":
            for pool in self.pools:
                if pool.incomplete:
                    raise AllocationError(
                        f"claim {_claim_ref(claim)}, request {req.name}: asks for all devices, "
                        f"but resource pool {pool.pool_id} is currently being updated"
                    )
                if pool.invalid:
                    raise AllocationError(
                        f"claim {_claim_ref(claim)}, request {req.name}: asks for all devices, "
                        f"but resource pool {pool.pool_id} is currently invalid"
                    )
                for slc in pool.slices:
                    spec = slc.get("spec") or {}
                    for di, d in enumerate(spec.get("devices") or ()):
                        if not self._is_selectable(key, rd, slc, di):
                            continue
                        ok = request_over_capacity(
                            self.a.allocated.aggregated_capacity.get(
                                (pool.driver, pool.name, str(d.get("name", ""))), {}
                            ),
                            req.capacity,
                            d.get("capacity") or {},
                            self.allocating_capacity.get(
                                (pool.driver, pool.name, str(d.get("name", ""))), {}
                            ),
                        )
                        if not ok:
                            continue
                        did = (str(spec.get("driver", "")), pool.name, str(d.get("name", "")))
                        rd.all_devices.append(_Dev(did, d, slc, pool))
            rd.num_devices = len(rd.all_devices)
        else:
            raise AllocationError(
                f"claim {_claim_ref(claim)}, request {req.name}: unsupported count mode {req.mode}"
            )
        return rd

    def _is_selectable(
        self, key: tuple[int, int, int], rd: _ReqData, slc: Mapping[str, Any], index: int
    ) -> bool:
        spec = slc.get("spec") or {}
        device = spec["devices"][index]
        did = (
            str(spec.get("driver", "")),
            str((spec.get("pool") or {}).get("name", "")),
            str(device.get("name", "")),
        )
        mkey = (did, *key)
        hit = self.selectable.get(mkey)
        if hit is not None:
            return hit
        claim = self.claims[key[0]]
        ok = True
        if rd.dclass is not None:
            cname = str((rd.dclass.get("metadata") or {}).get("name", ""))
            ok = self.a.selectors_match(
                (rd.dclass.get("spec") or {}).get("selectors") or (),
                slc,
                index,
                did[0],
                f"class {cname}",
            )
        if ok:
            ok = self.a.selectors_match(
                rd.request.selectors, slc, index, did[0], f"claim {_claim_ref(claim)}"
            )
        if ok and spec.get("perDeviceNodeSelection"):
            ok = node_matches(
                self.node,
                str(device.get("nodeName") or ""),
                bool(device.get("allNodes")),
                device.get("nodeSelector"),
            )
        self.selectable[mkey] = ok
        return ok

    def _in_use(self, did: DeviceID) -> bool:
        return did in self.a.allocated.devices or bool(self.allocating.get(did))

    def _allocate_one(
        self, ci: int, ri: int, si: int, di: int, sub: bool, start: tuple[int, int, int]
    ) -> bool:
        if ci >= len(self.claims):
            return True
        claim = self.claims[ci]
        requests = ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()
        if ri >= len(requests):
            try:
                return self._allocate_one(ci + 1, 0, 0, 0, False, (0, 0, 0))
            except _Stop:
                return False
        rd = self.request_data[(ci, ri, si)]
        if not sub and rd.parent is not None:
            all_exceeded = True
            for s in itertools.count():
                if (ci, ri, s) not in self.request_data:
                    if all_exceeded:
                        raise _Stop
                    return False
                try:
                    ok = self._allocate_one(ci, ri, s, di, True, (0, 0, 0))
                except _Stop:
                    continue
                all_exceeded = False
                if ok:
                    self.request_data[(ci, ri, 0)].selected_sub = s
                    return True
        req = rd.request
        do_all = req.mode == "All"
        if do_all and not rd.all_devices:
            return False
        if di >= rd.num_devices:
            return self._allocate_one(ci, ri + 1, 0, 0, False, (0, 0, 0))
        if len(self.results[ci]) + rd.num_devices - di > ALLOCATION_RESULTS_MAX_SIZE:
            raise _Stop
        if do_all:
            dev = rd.all_devices[di]
            ok, undo = self._allocate_device(ci, ri, si, dev, True)
            if not ok:
                return False
            try:
                done = self._allocate_one(ci, ri, si, di + 1, sub, (0, 0, 0))
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done
        for pi in range(start[0], len(self.pools)):
            pool = self.pools[pi]
            if pool.incomplete or pool.invalid:
                continue
            s0 = start[1] if pi == start[0] else 0
            for sli in range(s0, len(pool.slices)):
                slc = pool.slices[sli]
                devices = (slc.get("spec") or {}).get("devices") or ()
                d0 = start[2] if pi == start[0] and sli == start[1] else 0
                for dvi in range(d0, len(devices)):
                    d = devices[dvi]
                    did = (pool.driver, pool.name, str(d.get("name", "")))
                    if req.admin_access:
                        if ci in self.allocating.get(did, ()):
                            continue
                    elif self._in_use(did):
                        continue
                    if not self._is_selectable((ci, ri, si), rd, slc, dvi):
                        continue
                    ok = request_over_capacity(
                        self.a.allocated.aggregated_capacity.get(did, {}),
                        req.capacity,
                        d.get("capacity") or {},
                        self.allocating_capacity.get(did, {}),
                    )
                    if not ok:
                        continue
                    allocated, undo = self._allocate_device(
                        ci, ri, si, _Dev(did, d, slc, pool), False
                    )
                    if not allocated:
                        continue
                    try:
                        if self._allocate_one(ci, ri, si, di + 1, sub, (pi, sli, dvi + 1)):
                            return True
                    except BaseException:
                        undo()
                        raise
                    undo()
        return False

    def _allocate_device(
        self, ci: int, ri: int, si: int, dev: _Dev, must: bool
    ) -> tuple[bool, Callable[[], None]]:
        rd = self.request_data[(ci, ri, si)]
        req = rd.request
        d = dev.device
        multi = bool(d.get("allowMultipleAllocations"))
        nothing = _noop
        if not multi and req.admin_access and ci in self.allocating.get(dev.id, ()):
            return False, nothing
        if not req.admin_access and self._in_use(dev.id):
            return False, nothing
        capacity_in_use = (
            dev.id in self.a.allocated.aggregated_capacity or dev.id in self.allocating_capacity
        )
        if (
            not (multi and capacity_in_use)
            and d.get("consumesCounters")
            and not self._check_counters(dev)
        ):
            return False, nothing
        if rd.parent is None:
            base, subname, parent_name = req.name, "", ""
        else:
            base, subname, parent_name = rd.parent.name, req.name, rd.parent.name
        if _taint_prevents(d, req):
            return False, nothing
        cons = self.constraints[ci]
        for i, c in enumerate(cons):
            if not c.add(base, subname, d, dev.id):
                if must:
                    raise AllocationError(
                        f"claim {_claim_ref(self.claims[ci])}, request {req.name}: cannot add device "
                        f"{'/'.join(dev.id)} because a claim constraint would not be satisfied"
                    )
                for e in range(i):
                    cons[e].remove(base, subname, d, dev.id)
                return False, nothing
        users = self.allocating.setdefault(dev.id, set())
        if not multi:
            users.add(ci)
        consumed: dict[str, Fraction] = {}
        share_id = None
        ok = request_over_capacity(
            self.a.allocated.aggregated_capacity.get(dev.id, {}),
            req.capacity,
            d.get("capacity") or {},
            self.allocating_capacity.get(dev.id, {}),
        )
        if not ok:
            return False, nothing
        if multi:
            for name, cap in (d.get("capacity") or {}).items():
                consumed[name] = _consumed(req.capacity.get(name) if req.capacity else None, cap)
            share_id = self.a.share_ids()
            agg = self.allocating_capacity.setdefault(dev.id, {})
            for name, v in consumed.items():
                agg[name] = agg.get(name, Fraction(0)) + v
        r = _Result()
        r.request = req.name
        r.parent = parent_name
        r.id = dev.id
        r.device = d
        r.slice = dev.slice
        r.share_id = share_id
        r.consumed = consumed or None
        r.admin_access = True if req.admin_access else None
        r.tolerations = req.tolerations
        results = self.results[ci]
        n_before = len(results)
        results.append(r)

        def undo() -> None:
            for c in cons:
                c.remove(base, subname, d, dev.id)
            self.allocating.get(dev.id, set()).discard(ci)
            if multi:
                if consumed:
                    agg = self.allocating_capacity.get(dev.id, {})
                    for name, v in consumed.items():
                        agg[name] = agg.get(name, Fraction(0)) - v
                    if all(v == 0 for v in agg.values()):
                        self.allocating_capacity.pop(dev.id, None)
            elif d.get("consumesCounters"):
                self._release_counters(dev)
            del results[n_before:]

        return True, undo

    def _check_counters(self, dev: _Dev) -> bool:
        pool = dev.pool
        available = self.a.available_counters.get(pool.name)
        if available is None:
            available = {n: dict(c) for n, c in pool.counter_sets.items()}
            for slc in itertools.chain(pool.slices, pool.slices_not_targeting_node):
                spec = slc.get("spec") or {}
                for d in spec.get("devices") or ():
                    did = (str(spec.get("driver", "")), pool.name, str(d.get("name", "")))
                    if not self.a.allocated.is_allocated(did):
                        continue
                    for cc in d.get("consumesCounters") or ():
                        cs = available.get(str(cc.get("counterSet", "")), {})
                        for name, c in (cc.get("counters") or {}).items():
                            if name in cs:
                                cs[name] -= _q((c or {}).get("value", "0"))
            self.a.available_counters[pool.name] = available
        consumed = self.consumed_counters.setdefault(pool.name, {})
        for cc in dev.device.get("consumesCounters") or ():
            cs = consumed.setdefault(str(cc.get("counterSet", "")), {})
            for name, c in (cc.get("counters") or {}).items():
                cs[name] = cs.get(name, Fraction(0)) + _q((c or {}).get("value", "0"))
        for set_name, counters in available.items():
            used = consumed.get(set_name, {})
            for name, avail in counters.items():
                if avail < used.get(name, Fraction(0)):
                    self._release_counters(dev)
                    return False
        return True

    def _release_counters(self, dev: _Dev) -> None:
        consumed = self.consumed_counters.get(dev.pool.name, {})
        for cc in dev.device.get("consumesCounters") or ():
            cs = consumed.get(str(cc.get("counterSet", "")), {})
            for name, c in (cc.get("counters") or {}).items():
                cs[name] = cs.get(name, Fraction(0)) - _q((c or {}).get("value", "0"))

    # -- the AllocationResult --------------------------------------------------------
    def _result(self, ci: int, claim: Mapping[str, Any]) -> dict[str, Any]:
        results = []
        for r in self.results[ci]:
            out: dict[str, Any] = {
                "request": r.request_name(),
                "driver": r.id[0],
                "pool": r.id[1],
                "device": r.id[2],
            }
            if r.admin_access:
                out["adminAccess"] = True
            if r.tolerations:
                out["tolerations"] = list(r.tolerations)
            if r.share_id:
                out["shareID"] = r.share_id
            if r.consumed:
                out["consumedCapacity"] = {k: format_quantity(v) for k, v in r.consumed.items()}
            if r.device.get("bindingConditions"):
                out["bindingConditions"] = list(r.device["bindingConditions"])
            if r.device.get("bindingFailureConditions"):
                out["bindingFailureConditions"] = list(r.device["bindingFailureConditions"])
            results.append(out)
        devices: dict[str, Any] = {"results": results}
        config = self._config(ci, claim)
        if config:
            devices["config"] = config
        result: dict[str, Any] = {"devices": devices}
        ns = self._node_selector(self.results[ci])
        if ns is not None:
            result["nodeSelector"] = ns
        return result

    def _config(self, ci: int, claim: Mapping[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        by_class: dict[str, tuple[int, int]] = {}
        spec_devices = (claim.get("spec") or {}).get("devices") or {}
        requests = spec_devices.get("requests") or ()
        for ri in range(len(requests)):
            rd = self.request_data[(ci, ri, 0)]
            if rd.parent is not None:
                rd = self.request_data[(ci, ri, rd.selected_sub)]
            dclass = rd.dclass
            if dclass is None:
                continue
            cname = str((dclass.get("metadata") or {}).get("name", ""))
            if cname in by_class:
                lo, hi = by_class[cname]
                for i in range(lo, hi):
                    out[i]["requests"].append(rd.request_name())
                continue
            lo = len(out)
            for cfg in (dclass.get("spec") or {}).get("config") or ():
                out.append({"source": "FromClass", "requests": [rd.request_name()], **dict(cfg)})
            by_class[cname] = (lo, len(out))
        for cfg in spec_devices.get("config") or ():
            reqs = list(cfg.get("requests") or ())
            body = {k: v for k, v in cfg.items() if k != "requests"}
            if not reqs:
                out.append({"source": "FromClaim", **body})
                continue
            for ri, request in enumerate(requests):
                if request.get("name") in reqs:
                    out.append({"source": "FromClaim", "requests": reqs, **body})
                    continue
                rd = self.request_data[(ci, ri, 0)]
                if rd.parent is None:
                    continue
                subs = request.get("firstAvailable") or ()
                sub_name = f"{request.get('name')}/{subs[rd.selected_sub].get('name')}"
                if sub_name in reqs:
                    out.append({"source": "FromClaim", "requests": reqs, **body})
        return out

    def _node_selector(self, results: Sequence[_Result]) -> dict[str, Any] | None:
        fields: list[dict[str, Any]] = []
        exprs: list[dict[str, Any]] = []
        for r in results:
            spec = r.slice.get("spec") or {}
            if spec.get("perDeviceNodeSelection"):
                node_name, sel = r.device.get("nodeName"), r.device.get("nodeSelector")
            else:
                node_name, sel = spec.get("nodeName"), spec.get("nodeSelector")
            if node_name or r.device.get("bindsToNode"):
                return {
                    "nodeSelectorTerms": [
                        {
                            "matchFields": [
                                {
                                    "key": "metadata.name",
                                    "operator": "In",
                                    "values": [self.node.name],
                                }
                            ]
                        }
                    ]
                }
            if sel is not None:
                terms = sel.get("nodeSelectorTerms") or []
                if len(terms) > 1:
                    raise AllocationError(
                        f"create NodeSelector for claim: unsupported ResourceSlice.NodeSelector "
                        f"with {len(terms)} terms"
                    )
                if terms:
                    _merge(terms[0].get("matchFields") or (), fields)
                    _merge(terms[0].get("matchExpressions") or (), exprs)
        if not fields and not exprs:
            return None
        term: dict[str, Any] = {}
        if exprs:
            term["matchExpressions"] = exprs
        if fields:
            term["matchFields"] = fields
        return {"nodeSelectorTerms": [term]}


def _merge(src: Iterable[Mapping[str, Any]], dst: list[dict[str, Any]]) -> None:
    for req in src:
        vals = set(req.get("values") or ())
        if not any(
            e.get("key") == req.get("key")
            and e.get("operator") == req.get("operator")
            and set(e.get("values") or ()) == vals
            for e in dst
        ):
            dst.append(dict(req))


def _noop() -> None:
    return None
