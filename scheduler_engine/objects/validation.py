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
    "node_errors",
    "pod_errors",
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


# upstream's standardResources and standardContainerResources (helper.IsStandard*ResourceName)
_STANDARD_CONTAINER = frozenset({"cpu", "memory", "ephemeral-storage"})
_STANDARD = _STANDARD_CONTAINER | frozenset(
    {
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "services",
        "replicationcontrollers",
        "resourcequotas",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
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


def _resource_name(name: str, field: str) -> list[FieldError]:
    """Upstream ``validateContainerResourceName``: standard, native or extended names."""
    errors = [_invalid(field, name, msg) for msg in is_label_key(name)]
    if errors:
        return errors
    if "/" not in name:
        if name not in _STANDARD and not name.startswith("hugepages-"):
            errors.append(
                _invalid(field, name, "must be a standard resource type or fully qualified")
            )
        if name not in _STANDARD_CONTAINER and not name.startswith("hugepages-"):
            errors.append(_invalid(field, name, "must be a standard resource for containers"))
    elif not is_native_resource_name(name) and not is_extended_resource_name(name):
        errors.append(_invalid(field, name, "doesn't follow extended resource name standard"))
    return errors


def _requirements(resources: Any, field: str, *, names: bool = True) -> list[FieldError]:
    """Upstream ``validateResourceRequirements``: names, quantities, requests against limits."""
    if not isinstance(resources, Mapping):
        return []
    errors: list[FieldError] = []
    for part in ("limits", "requests"):
        raw = resources.get(part)
        if names and isinstance(raw, Mapping):
            for name in raw:
                errors += _resource_name(str(name), f"{field}.{part}[{name}]")
    limits = _quantities(resources.get("limits"), f"{field}.limits")
    requests = _quantities(resources.get("requests"), f"{field}.requests")
    for name, (value, text) in limits.items():
        error = _quantity_value(name, value, text, f"{field}.limits[{name}]")
        if error:
            errors.append(error)
    for name, (value, text) in requests.items():
        error = _quantity_value(name, value, text, f"{field}.requests[{name}]")
        if error:
            errors.append(error)
            continue
        if name in limits:
            limit, limit_text = limits[name]
            if value != limit and not _overcommit_allowed(name):
                errors.append(
                    _invalid(
                        f"{field}.requests", text, f"must be equal to {name} limit of {limit_text}"
                    )
                )
            elif value > limit:
                errors.append(
                    _invalid(
                        f"{field}.requests",
                        text,
                        f"must be less than or equal to {name} limit of {limit_text}",
                    )
                )
        elif not _overcommit_allowed(name):
            errors.append(
                FieldError(
                    f"{field}.limits",
                    "Required value: Limit must be set for non overcommitable resources",
                )
            )
    return errors


def _metadata(meta: Any, *, namespaced: bool) -> list[FieldError]:
    """Upstream ``ValidateObjectMeta`` with ``NameIsDNSSubdomain``: name or generateName,
    namespace, labels."""
    if not isinstance(meta, Mapping):
        return []
    errors: list[FieldError] = []
    name = meta.get("name")
    generate = meta.get("generateName")
    if isinstance(generate, str) and generate:
        # a prefix: upstream masks a trailing "-" (a generated suffix follows it)
        prefix = generate[:-1] + "a" if generate.endswith("-") else generate
        errors += [
            _invalid("metadata.generateName", generate, msg) for msg in is_dns1123_subdomain(prefix)
        ]
    if isinstance(name, str) and name:
        errors += [_invalid("metadata.name", name, msg) for msg in is_dns1123_subdomain(name)]
    ns = meta.get("namespace")
    if namespaced and isinstance(ns, str) and ns:
        errors += [_invalid("metadata.namespace", ns, msg) for msg in is_dns1123_label(ns)]
    labels = meta.get("labels")
    if isinstance(labels, Mapping):
        for k, v in labels.items():
            errors += [_invalid("metadata.labels", str(k), msg) for msg in is_label_key(str(k))]
            if isinstance(v, str):
                errors += [_invalid("metadata.labels", v, msg) for msg in is_label_value(v)]
    return errors


_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _not_supported(field: str, value: Any, allowed: tuple[str, ...]) -> FieldError:
    """Upstream ``field.NotSupported``: ``Unsupported value: "x": supported values: ...``."""
    listed = ", ".join(f'"{a}"' for a in allowed)
    return FieldError(field, "Unsupported value", f"supported values: {listed}", value=value)


def _effect(effect: Any, field: str, *, allow_empty: bool) -> list[FieldError]:
    """Upstream ``validateTaintEffect``."""
    if not effect:
        return [] if allow_empty else [FieldError(field, "Required value")]
    return [] if effect in _EFFECTS else [_not_supported(field, effect, _EFFECTS)]


def _taints(taints: Any, field: str) -> list[FieldError]:
    """Upstream ``validateNodeTaints``: key, value, effect, unique by key and effect."""
    if not isinstance(taints, list):
        return []
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for i, t in enumerate(taints):
        if not isinstance(t, Mapping):
            continue
        at = f"{field}[{i}]"
        key, value, effect = str(t.get("key") or ""), t.get("value") or "", t.get("effect") or ""
        errors += [_invalid(f"{at}.key", key, msg) for msg in is_label_key(key)]
        if isinstance(value, str):
            msgs = is_label_value(value)
            if msgs:
                errors.append(_invalid(f"{at}.value", value, ";".join(msgs)))
        errors += _effect(effect, f"{at}.effect", allow_empty=False)
        if (key, str(effect)) in seen:
            errors.append(
                FieldError(at, "Duplicate value", "taints must be unique by key and effect pair")
            )
            continue
        seen.add((key, str(effect)))
    return errors


def _tolerations(tolerations: Any, field: str) -> list[FieldError]:
    """Upstream ``ValidateTolerations`` (without the alpha comparison operators)."""
    if not isinstance(tolerations, list):
        return []
    errors: list[FieldError] = []
    for i, t in enumerate(tolerations):
        if not isinstance(t, Mapping):
            continue
        at = f"{field}[{i}]"
        key, op = str(t.get("key") or ""), t.get("operator") or ""
        value, effect = t.get("value") or "", t.get("effect") or ""
        if key:
            errors += [_invalid(f"{at}.key", key, msg) for msg in is_label_key(key)]
        if not key and op != "Exists":
            errors.append(
                _invalid(
                    f"{at}.operator",
                    op,
                    'operator must be Exists when `key` is empty, which means "match all '
                    'values and all keys"',
                )
            )
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(
                _invalid(
                    f"{at}.effect",
                    effect,
                    "effect must be 'NoExecute' when `tolerationSeconds` is set",
                )
            )
        if op in ("Equal", ""):
            msgs = is_label_value(value) if isinstance(value, str) else []
            if msgs:
                errors.append(_invalid(f"{at}.operator", value, ";".join(msgs)))
        elif op == "Exists":
            if value:
                errors.append(
                    _invalid(
                        f"{at}.operator", value, "value must be empty when `operator` is 'Exists'"
                    )
                )
        else:
            errors.append(_not_supported(f"{at}.operator", op, ("Equal", "Exists")))
        errors += _effect(effect, f"{at}.effect", allow_empty=True)
    return errors


def pod_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """Every problem the API server would report for this Pod, in its order of checking."""
    errors = _metadata(obj.get("metadata"), namespaced=True)
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        return errors
    for key in ("initContainers", "containers"):
        items = spec.get(key)
        if not isinstance(items, list):
            continue
        for i, c in enumerate(items):
            if isinstance(c, Mapping):
                errors += _requirements(c.get("resources"), f"spec.{key}[{i}].resources")
    errors += _requirements(spec.get("resources"), "spec.resources", names=False)
    errors += _requirements({"limits": spec.get("overhead")}, "spec.overhead", names=False)
    errors += _tolerations(spec.get("tolerations"), "spec.tolerations")
    return errors


def node_errors(obj: Mapping[str, Any]) -> list[FieldError]:
    """Every problem the API server would report for this Node."""
    errors = _metadata(obj.get("metadata"), namespaced=False)
    spec = obj.get("spec")
    if isinstance(spec, Mapping):
        errors += _taints(spec.get("taints"), "spec.taints")
    status = obj.get("status")
    if not isinstance(status, Mapping):
        return errors
    for part in ("capacity", "allocatable"):
        for name, (value, text) in _quantities(status.get(part), f"status.{part}").items():
            error = _quantity_value(name, value, text, f"status.{part}.{name}")
            if error:
                errors.append(error)
    return errors


def validate_pod(obj: Mapping[str, Any]) -> FieldError | None:
    """The first problem the API server would report for this Pod, or None."""
    errors = pod_errors(obj)
    return errors[0] if errors else None


def validate_node(obj: Mapping[str, Any]) -> FieldError | None:
    """The first problem the API server would report for this Node, or None."""
    errors = node_errors(obj)
    return errors[0] if errors else None
