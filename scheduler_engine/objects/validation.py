"""What the API server refuses in a Pod or a Node, worded as it words it.

Upstream: ``pkg/apis/core/validation`` (``ValidateObjectMeta``,
``validateResourceRequirements``, ``ValidateResourceQuantityValue``,
``ValidateNodeResources``) and apimachinery's name and label rules. Objects
that come from a real API server passed these already; snapshots and dry-run
workloads written by hand may not. The first problem is reported as
``field: Invalid value: "x": why`` (upstream's ``field.Error`` text).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..apinames import is_dns1123_label, is_dns1123_subdomain, is_label_key, is_label_value
from ..errors import FieldError
from ..quantity import QuantityError, parse_quantity
from .resources import is_extended_resource_name, is_native_resource_name

__all__ = [
    "format_quantity",
    "is_dns1123_subdomain",
    "validate_node",
    "validate_pod",
]

# -- quantities --------------------------------------------------------------------------

_BINARY_SUFFIXES = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P"}
_DECIMAL_SUFFIX[18] = "E"


def _format_of(raw: Any) -> str:
    if isinstance(raw, str):
        text = raw.strip()
        if text.endswith(_BINARY_SUFFIXES):
            return "binary"
        if re.search(r"[eE][+-]?\d+$", text):
            return "exponent"
    return "decimal"


def format_quantity(raw: Any) -> str:
    """Upstream ``Quantity.String()`` of a quantity as written (its canonical form)."""
    q = parse_quantity(raw)
    # parsing rounds away from zero to nano precision
    nanos = q * 10**9
    rounded = math.ceil(abs(nanos)) * (1 if nanos >= 0 else -1)
    q = Fraction(rounded, 10**9)
    if q == 0:
        return "0"
    fmt = _format_of(raw)
    if fmt == "binary" and (-1024 < q < 1024 or q.denominator != 1):
        fmt = "decimal"
    if fmt == "binary":
        amount, exponent = int(q), 0
        while amount % 1024 == 0 and exponent < 6:
            amount //= 1024
            exponent += 1
        return f"{amount}{('', *_BINARY_SUFFIXES)[exponent]}"
    mantissa, exponent = int(q * 10**9), -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    while exponent % 3:
        mantissa *= 10
        exponent -= 1
    if fmt == "exponent":
        return f"{mantissa}" + (f"e{exponent}" if exponent else "")
    suffix = _DECIMAL_SUFFIX.get(exponent)
    return f"{mantissa}{suffix if suffix is not None else f'e{exponent}'}"


_INTEGER_RESOURCES = frozenset(
    {
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    }
)


def _is_integer_resource(name: str) -> bool:
    return name in _INTEGER_RESOURCES or is_extended_resource_name(name)


def _overcommit_allowed(name: str) -> bool:
    return is_native_resource_name(name) and not name.startswith("hugepages-")


def _invalid(field: str, value: str, detail: str) -> FieldError:
    return FieldError(field, "Invalid value", detail, value=value)


def _quantities(raw: Any, field: str) -> dict[str, tuple[Fraction, str]]:
    """name → (value, canonical text); malformed maps and quantities are left to the parser."""
    if not isinstance(raw, Mapping):
        return {}
    out = {}
    for k, v in raw.items():
        try:
            out[str(k)] = (parse_quantity(v), format_quantity(v))
        except QuantityError:
            continue
    return out


def _quantity_value(name: str, value: Fraction, text: str, field: str) -> FieldError | None:
    """Upstream ``ValidateResourceQuantityValue``."""
    if value < 0:
        return _invalid(field, text, "must be greater than or equal to 0")
    if _is_integer_resource(name) and math.ceil(value * 1000) % 1000 != 0:
        return _invalid(field, text, "must be an integer")
    return None


def _requirements(resources: Any, field: str) -> FieldError | None:
    """Upstream ``validateResourceRequirements``: quantities, and requests against limits."""
    if not isinstance(resources, Mapping):
        return None
    limits = _quantities(resources.get("limits"), f"{field}.limits")
    requests = _quantities(resources.get("requests"), f"{field}.requests")
    for name, (value, text) in limits.items():
        error = _quantity_value(name, value, text, f"{field}.limits[{name}]")
        if error:
            return error
    for name, (value, text) in requests.items():
        error = _quantity_value(name, value, text, f"{field}.requests[{name}]")
        if error:
            return error
        if name in limits:
            limit, limit_text = limits[name]
            if value != limit and not _overcommit_allowed(name):
                return _invalid(
                    f"{field}.requests", text, f"must be equal to {name} limit of {limit_text}"
                )
            if value > limit:
                return _invalid(
                    f"{field}.requests",
                    text,
                    f"must be less than or equal to {name} limit of {limit_text}",
                )
        elif not _overcommit_allowed(name):
            return FieldError(
                f"{field}.limits",
                "Required value: Limit must be set for non overcommitable resources",
            )
    return None


def _metadata(meta: Any, *, namespaced: bool) -> FieldError | None:
    """Upstream ``ValidateObjectMeta`` with ``NameIsDNSSubdomain``: name, namespace, labels."""
    if not isinstance(meta, Mapping):
        return None
    name = meta.get("name")
    if isinstance(name, str) and name:
        for msg in is_dns1123_subdomain(name):
            return _invalid("metadata.name", name, msg)
    ns = meta.get("namespace")
    if namespaced and isinstance(ns, str) and ns:
        for msg in is_dns1123_label(ns):
            return _invalid("metadata.namespace", ns, msg)
    labels = meta.get("labels")
    if isinstance(labels, Mapping):
        for k, v in labels.items():
            for msg in is_label_key(str(k)):
                return _invalid("metadata.labels", str(k), msg)
            if isinstance(v, str):
                for msg in is_label_value(v):
                    return _invalid("metadata.labels", v, msg)
    return None


def validate_pod(obj: Mapping[str, Any]) -> FieldError | None:
    """The first problem the API server would report for this Pod, or None."""
    error = _metadata(obj.get("metadata"), namespaced=True)
    if error:
        return error
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return None
    for key in ("initContainers", "containers"):
        items = spec.get(key)
        if not isinstance(items, list):
            continue
        for i, c in enumerate(items):
            if isinstance(c, Mapping):
                error = _requirements(c.get("resources"), f"spec.{key}[{i}].resources")
                if error:
                    return error
    error = _requirements(spec.get("resources"), "spec.resources")
    if error:
        return error
    return _requirements({"limits": spec.get("overhead")}, "spec.overhead")


def validate_node(obj: Mapping[str, Any]) -> FieldError | None:
    """The first problem the API server would report for this Node, or None."""
    error = _metadata(obj.get("metadata"), namespaced=False)
    if error:
        return error
    status = obj.get("status")
    if not isinstance(status, Mapping):
        return None
    for part in ("capacity", "allocatable"):
        for name, (value, text) in _quantities(status.get(part), f"status.{part}").items():
            error = _quantity_value(name, value, text, f"status.{part}.{name}")
            if error:
                return error
    return None
