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

from ..errors import FieldError
from ..quantity import QuantityError, parse_quantity

__all__ = [
    "format_quantity",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "label_key_errors",
    "label_value_errors",
    "validate_node",
    "validate_pod",
]

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_VALUE_FMT = "(" + _KEY_FMT + ")?"
_LABEL_RE = re.compile(f"^{_LABEL_FMT}$")
_SUBDOMAIN_RE = re.compile(f"^{_SUBDOMAIN_FMT}$")
_KEY_RE = re.compile(f"^{_KEY_FMT}$")
_VALUE_RE = re.compile(f"^{_VALUE_FMT}$")


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len(n: int) -> str:
    return f"must be no more than {n} characters"


_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)


def is_dns1123_subdomain(value: str) -> list[str]:
    """Upstream ``IsDNS1123Subdomain``: its messages, empty when valid."""
    errs = []
    if len(value) > 253:
        errs.append(_max_len(253))
    if not _SUBDOMAIN_RE.match(value):
        errs.append(_regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1123_label(value: str) -> list[str]:
    """Upstream ``IsDNS1123Label``."""
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _LABEL_RE.match(value):
        if _SUBDOMAIN_RE.match(value):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
    return errs


def label_key_errors(value: str) -> list[str]:
    """Upstream ``IsLabelKey`` (``IsQualifiedName``)."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + _regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + _max_len(63))
    if not _KEY_RE.match(name):
        errs.append("name part " + _regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    """Upstream ``IsLabelValue``."""
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _VALUE_RE.match(value):
        errs.append(_regex_error(_VALUE_MSG, _VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


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


def _is_native(name: str) -> bool:
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    if _is_native(name) or name.startswith("requests."):
        return False
    return not label_key_errors("requests." + name)


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
    return name in _INTEGER_RESOURCES or _is_extended(name)


def _overcommit_allowed(name: str) -> bool:
    return _is_native(name) and not name.startswith("hugepages-")


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
            for msg in label_key_errors(str(k)):
                return _invalid("metadata.labels", str(k), msg)
            if isinstance(v, str):
                for msg in label_value_errors(v):
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
