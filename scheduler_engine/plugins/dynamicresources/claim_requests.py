"""What a claim asks of a device (upstream ``structured``): requests and
subrequests, ``matchAttribute``/``distinctAttribute`` constraints, device
taints and tolerations, consumable capacity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from .pools import DeviceID, Pool, _q

__all__ = ["Request", "request_over_capacity"]


# -- requests -------------------------------------------------------------------------


class Request:
    """A request or a subrequest of ``firstAvailable`` (upstream's ``requestAccessor``)."""

    __slots__ = (
        "admin_access",
        "capacity",
        "class_name",
        "count",
        "has_admin_access",
        "mode",
        "name",
        "selectors",
        "tolerations",
    )

    def __init__(self, raw: Mapping[str, Any], name: str, sub: bool) -> None:
        self.name = name
        self.class_name = str(raw.get("deviceClassName") or "")
        self.mode = str(raw.get("allocationMode") or "ExactCount")
        count = raw.get("count")
        self.count = int(count) if count is not None else 1
        self.admin_access = False if sub else bool(raw.get("adminAccess"))
        self.has_admin_access = False if sub else raw.get("adminAccess") is not None
        self.selectors: list[Mapping[str, Any]] = list(raw.get("selectors") or ())
        self.tolerations: list[Mapping[str, Any]] = list(raw.get("tolerations") or ())
        cap = raw.get("capacity")
        self.capacity: dict[str, Fraction] | None = None
        if cap is not None and cap.get("requests") is not None:
            self.capacity = {k: _q(v) for k, v in (cap.get("requests") or {}).items()}


class _ReqData:
    __slots__ = ("all_devices", "dclass", "num_devices", "parent", "request", "selected_sub")

    def __init__(self, request: Request, parent: Request | None) -> None:
        self.request = request
        self.parent = parent
        self.dclass: Mapping[str, Any] | None = None
        self.num_devices = 0
        self.selected_sub = 0
        self.all_devices: list[_Dev] = []

    def request_name(self) -> str:
        if self.parent is not None:
            return f"{self.parent.name}/{self.request.name}"
        return self.request.name


class _Dev:
    __slots__ = ("device", "id", "pool", "slice")

    def __init__(
        self, did: DeviceID, device: Mapping[str, Any], slc: Mapping[str, Any], pool: Pool
    ) -> None:
        self.id = did
        self.device = device
        self.slice = slc
        self.pool = pool


class _Result:
    __slots__ = (
        "admin_access",
        "consumed",
        "device",
        "id",
        "parent",
        "request",
        "share_id",
        "slice",
        "tolerations",
    )

    def request_name(self) -> str:
        return f"{self.parent}/{self.request}" if self.parent else self.request


def _claim_ref(claim: Mapping[str, Any]) -> str:
    meta = claim.get("metadata") or {}
    ns = meta.get("namespace") or ""
    return f"{ns}/{meta.get('name', '')}" if ns else str(meta.get("name", ""))


# -- constraints ------------------------------------------------------------------------


def _lookup_attribute(
    device: Mapping[str, Any], did: DeviceID, name: str
) -> Mapping[str, Any] | None:
    attrs = device.get("attributes") or {}
    if name in attrs:
        return attrs[name]
    i = name.find("/")
    if i < 0 or name[:i] != did[0]:
        return None
    return attrs.get(name[i + 1 :])


_ATTR_KINDS = ("string", "int", "bool", "version")


def _kind(attr: Mapping[str, Any]) -> str:
    for k in _ATTR_KINDS:
        if attr.get(k) is not None:
            return k
    return ""


class _Constraint:
    __slots__ = ("attr", "attribute", "distinct", "num", "requests", "values")

    def __init__(self, requests: Iterable[str], attribute: str, distinct: bool) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
        self.distinct = distinct
        self.attr: Mapping[str, Any] | None = None
        self.values: dict[str, Mapping[str, Any]] = {}
        self.num = 0

    def _applies(self, req: str, sub: str) -> bool:
        if not self.requests:
            return True
        if not sub:
            return req in self.requests
        return req in self.requests or f"{req}/{sub}" in self.requests

    def add(self, req: str, sub: str, device: Mapping[str, Any], did: DeviceID) -> bool:
        if not self._applies(req, sub):
            return True
        attr = _lookup_attribute(device, did, self.attribute)
        if attr is None:
            return False
        if self.num == 0:
            if self.distinct:
                self.values[req] = attr
            else:
                self.attr = attr
            self.num = 1
            return True
        k = _kind(attr)
        if not k:
            return False
        if self.distinct:
            # upstream remembers one value per request name
            for other in self.values.values():
                if other.get(k) is not None and other.get(k) == attr.get(k):
                    return False
            self.values[req] = attr
        else:
            assert self.attr is not None
            if self.attr.get(k) is None or self.attr.get(k) != attr.get(k):
                return False
        self.num += 1
        return True

    def remove(self, req: str, sub: str, device: Mapping[str, Any], did: DeviceID) -> None:
        if not self._applies(req, sub):
            return
        if self.distinct:
            self.values.pop(req, None)
        self.num -= 1


# -- taints -------------------------------------------------------------------------------


def _tolerates(tol: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    if tol.get("effect") and tol.get("effect") != taint.get("effect"):
        return False
    if tol.get("key") and tol.get("key") != taint.get("key"):
        return False
    op = tol.get("operator") or ""
    if op in ("", "Equal"):
        return (tol.get("value") or "") == (taint.get("value") or "")
    return op == "Exists"


def _taint_prevents(device: Mapping[str, Any], req: Request) -> bool:
    for t in device.get("taints") or ():
        if t.get("effect") in ("NoSchedule", "NoExecute") and not any(
            _tolerates(tol, t) for tol in req.tolerations
        ):
            return True
    return False


# -- consumable capacity ----------------------------------------------------------------


def _consumed(requested: Fraction | None, cap: Mapping[str, Any]) -> Fraction:
    policy = cap.get("requestPolicy")
    if requested is None:
        if policy and policy.get("default") is not None:
            return _q(policy["default"])
        return _q(cap.get("value", "0"))
    if not policy:
        return requested
    rng = policy.get("validRange")
    if rng is not None and rng.get("min") is not None:
        lo = _q(rng["min"])
        if requested < lo:
            return lo
        if rng.get("step") is None:
            return requested
        step = int(_ceil(_q(rng["step"])))
        lo_i = int(_ceil(lo))
        added = int(_ceil(requested)) - lo_i
        n = added // step + (1 if added % step else 0)
        return Fraction(lo_i + step * n)
    if policy.get("validValues") is not None:
        for v in policy["validValues"]:
            if requested <= _q(v):
                return _q(v)
    return requested


def _ceil(v: Fraction) -> int:
    return -((-v.numerator) // v.denominator)


def _violates(val: Fraction, policy: Mapping[str, Any] | None) -> bool:
    if not policy:
        return False
    if policy.get("default") is not None and val == _q(policy["default"]):
        return False
    rng = policy.get("validRange")
    if rng is not None:
        if rng.get("max") is not None and val > _q(rng["max"]):
            return True
        if rng.get("step") is not None:
            step = _ceil(_q(rng["step"]))
            lo = _ceil(_q(rng.get("min") or "0"))
            if (_ceil(val) - lo) % step:
                return True
        return False
    values = policy.get("validValues") or ()
    if values:
        return not any(val == _q(v) for v in values)
    return False


def request_over_capacity(
    current: Mapping[str, Fraction],
    requested: Mapping[str, Fraction] | None,
    capacity: Mapping[str, Mapping[str, Any]],
    allocating: Mapping[str, Fraction],
) -> bool | None:
    """True if the request fits the device's capacity; None when it names a capacity the device lacks."""
    if requested:
        for name in requested:
            if name not in capacity:
                return None
    for name, cap in capacity.items():
        consumed = _consumed(requested.get(name) if requested else None, cap)
        if _violates(consumed, cap.get("requestPolicy")):
            return False
        total = current.get(name, Fraction(0)) + consumed + allocating.get(name, Fraction(0))
        if total > _q(cap.get("value", "0")):
            return False
    return True
