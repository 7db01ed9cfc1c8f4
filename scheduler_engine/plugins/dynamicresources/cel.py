"""DRA's CEL environment for device selectors, on top of ``cel-python`` (``celpy``).

Upstream counterpart: ``k8s.io/dynamic-resource-allocation/cel`` (kube-scheduler
v1.36, DRAConsumableCapacity on, DRAListTypeAttributes off).

What a selector sees, as upstream builds it:

* ``device.driver`` (string), ``device.allowMultipleAllocations`` (bool);
* ``device.attributes[domain][id]``: attribute names without a domain are put
  under the device's driver; values are int, bool, string or a semver
  (``version`` attributes); a missing *domain* gives an empty map (so
  ``has(device.attributes["x"].y)`` is false), a missing *id* in a present
  or missing domain is a runtime error ``no such key: id``, as in cel-go;
* ``device.capacity[domain][id]``: Kubernetes quantities.

Functions beyond standard CEL (as the Kubernetes CEL libraries define them):
``quantity(s)``, ``isQuantity(s)``, and on quantities ``sign()``,
``isGreaterThan(q)``, ``isLessThan(q)``, ``compareTo(q)``, ``asApproximateFloat()``,
``asInteger()``, ``isInteger()``, ``add(q|int)``, ``sub(q|int)``, ``==``;
``semver(s)``, ``semver(s, normalize)``, ``isSemver(s)``, ``isSemver(s, normalize)``,
and on versions ``major()``, ``minor()``, ``patch()``, ``isGreaterThan(v)``,
``isLessThan(v)``, ``compareTo(v)``, ``==``.

Not covered: the static type check and cost limit of cel-go (a type error is
reported when evaluated, not when compiled), the other Kubernetes libraries
(``url``, ``ip``/``cidr``, ``format``, the ``ext`` strings/lists/sets
extensions beyond what celpy has built in), list-typed attributes and
``includes`` (DRAListTypeAttributes, alpha, off).  Error texts keep cel-go's
``no such key: NAME``; other runtime error texts are celpy's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from functools import total_ordering
from typing import Any

import celpy
from celpy import celtypes

from ...quantity import QuantityError, parse_quantity

__all__ = ["CELError", "CompiledSelector", "compile_selector", "device_variables"]


class CELError(Exception):
    """A compile or runtime error; the message follows cel-go where it matters."""


# -- Kubernetes quantity and semver values ----------------------------------------


@total_ordering
class Quantity:
    __slots__ = ("value",)

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Quantity({self.value})"


_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


class Semver:
    __slots__ = ("major", "minor", "patch", "pre")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple[str, ...]) -> None:
        self.major, self.minor, self.patch, self.pre = major, minor, patch, pre

    @classmethod
    def parse(cls, text: str, normalize: bool = False) -> Semver:
        s = text
        if normalize:
            s = s[1:] if s.startswith("v") else s
            core, sep, rest = _split_core(s)
            parts = core.split(".")
            while len(parts) < 3:
                parts.append("0")
            parts = [p.lstrip("0") or "0" for p in parts]
            s = ".".join(parts) + sep + rest
        m = _SEMVER.match(s)
        if m is None:
            raise CELError(f"could not parse {text!r} as semver")
        pre = tuple(m.group(4).split(".")) if m.group(4) else ()
        return cls(int(m.group(1)), int(m.group(2)), int(m.group(3)), pre)

    def compare(self, other: Semver) -> int:
        a = (self.major, self.minor, self.patch)
        b = (other.major, other.minor, other.patch)
        if a != b:
            return -1 if a < b else 1
        # a version without pre-release parts ranks above one with them
        if not self.pre or not other.pre:
            return (not self.pre) - (not other.pre)
        for x, y in zip(self.pre, other.pre, strict=False):
            if x == y:
                continue
            xd, yd = x.isdigit(), y.isdigit()
            if xd and yd:
                return -1 if int(x) < int(y) else 1
            if xd != yd:
                return -1 if xd else 1
            return -1 if x < y else 1
        return (len(self.pre) > len(other.pre)) - (len(self.pre) < len(other.pre))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.compare(other) == 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __repr__(self) -> str:
        return f"Semver({self.major}.{self.minor}.{self.patch})"


def _split_core(s: str) -> tuple[str, str, str]:
    m = re.search(r"[-+]", s)
    if m is None:
        return s, "", ""
    return s[: m.start()], s[m.start()], s[m.start() + 1 :]


# -- the functions ----------------------------------------------------------------


def _fn_quantity(s: Any) -> Quantity:
    try:
        return Quantity(parse_quantity(str(s)))
    except QuantityError as exc:
        raise CELError(f"quantity: {exc}") from None


def _fn_is_quantity(s: Any) -> celtypes.BoolType:
    try:
        parse_quantity(str(s))
    except QuantityError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _fn_semver(s: Any, normalize: Any = False) -> Semver:
    return Semver.parse(str(s), bool(normalize))


def _fn_is_semver(s: Any, normalize: Any = False) -> celtypes.BoolType:
    try:
        Semver.parse(str(s), bool(normalize))
    except CELError:
        return celtypes.BoolType(False)
    return celtypes.BoolType(True)


def _cmp(a: Any, b: Any) -> int:
    if isinstance(a, Semver) and isinstance(b, Semver):
        return a.compare(b)
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        return (a.value > b.value) - (a.value < b.value)
    raise CELError(f"no such overload: compare {type(a).__name__} with {type(b).__name__}")


def _fn_is_greater_than(a: Any, b: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_cmp(a, b) > 0)


def _fn_is_less_than(a: Any, b: Any) -> celtypes.BoolType:
    return celtypes.BoolType(_cmp(a, b) < 0)


def _fn_compare_to(a: Any, b: Any) -> celtypes.IntType:
    return celtypes.IntType(_cmp(a, b))


def _as_quantity(x: Any) -> Quantity:
    if isinstance(x, Quantity):
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        return Quantity(Fraction(int(x)))
    raise CELError(f"no such overload: quantity arithmetic with {type(x).__name__}")


def _fn_add(a: Any, b: Any) -> Quantity:
    return Quantity(_as_quantity(a).value + _as_quantity(b).value)


def _fn_sub(a: Any, b: Any) -> Quantity:
    return Quantity(_as_quantity(a).value - _as_quantity(b).value)


def _fn_sign(a: Any) -> celtypes.IntType:
    v = _as_quantity(a).value
    return celtypes.IntType((v > 0) - (v < 0))


def _fn_is_integer(a: Any) -> celtypes.BoolType:
    v = _as_quantity(a).value
    return celtypes.BoolType(v.denominator == 1 and -(2**63) <= v < 2**63)


def _fn_as_integer(a: Any) -> celtypes.IntType:
    v = _as_quantity(a).value
    if v.denominator != 1 or not -(2**63) <= v < 2**63:
        raise CELError("cannot convert value to integer")
    return celtypes.IntType(int(v))


def _fn_as_float(a: Any) -> celtypes.DoubleType:
    return celtypes.DoubleType(float(_as_quantity(a).value))


def _semver_part(name: str) -> Any:
    def part(v: Any) -> celtypes.IntType:
        if not isinstance(v, Semver):
            raise CELError(f"no such overload: {name}")
        return celtypes.IntType(getattr(v, name))

    return part


FUNCTIONS: dict[str, Any] = {
    "quantity": _fn_quantity,
    "isQuantity": _fn_is_quantity,
    "semver": _fn_semver,
    "isSemver": _fn_is_semver,
    "isGreaterThan": _fn_is_greater_than,
    "isLessThan": _fn_is_less_than,
    "compareTo": _fn_compare_to,
    "add": _fn_add,
    "sub": _fn_sub,
    "sign": _fn_sign,
    "isInteger": _fn_is_integer,
    "asInteger": _fn_as_integer,
    "asApproximateFloat": _fn_as_float,
    "major": _semver_part("major"),
    "minor": _semver_part("minor"),
    "patch": _semver_part("patch"),
}


# -- device variables -------------------------------------------------------------


class _DomainMap(celtypes.MapType):
    """The outer attributes/capacity map: a missing domain reads as an empty map."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return super().__getitem__(key)
        except KeyError:
            return celtypes.MapType()


def _attribute_value(attr: Mapping[str, Any]) -> Any:
    if "int" in attr:
        return celtypes.IntType(int(attr["int"]))
    if "bool" in attr:
        return celtypes.BoolType(bool(attr["bool"]))
    if "string" in attr:
        return celtypes.StringType(str(attr["string"]))
    if "version" in attr:
        try:
            return Semver.parse(str(attr["version"]))
        except CELError:
            raise CELError("parse semantic version: invalid") from None
    raise CELError("unsupported attribute value")


def _split_name(name: str, default_domain: str) -> tuple[str, str]:
    i = name.find("/")
    if i < 0:
        return default_domain, name
    return name[:i], name[i + 1 :]


def device_variables(driver: str, device: Mapping[str, Any]) -> dict[str, Any]:
    """The ``device`` variable of a selector for one device of a ResourceSlice."""
    attrs: dict[Any, Any] = {}
    for name, attr in (device.get("attributes") or {}).items():
        try:
            value = _attribute_value(attr or {})
        except CELError as exc:
            raise CELError(f"attribute {name}: {exc}") from None
        domain, ident = _split_name(str(name), driver)
        attrs.setdefault(celtypes.StringType(domain), celtypes.MapType())[
            celtypes.StringType(ident)
        ] = value
    caps: dict[Any, Any] = {}
    for name, cap in (device.get("capacity") or {}).items():
        domain, ident = _split_name(str(name), driver)
        raw = (cap or {}).get("value", "0")
        caps.setdefault(celtypes.StringType(domain), celtypes.MapType())[
            celtypes.StringType(ident)
        ] = Quantity(parse_quantity(raw))
    return {
        "device": celtypes.MapType(
            {
                celtypes.StringType("driver"): celtypes.StringType(driver),
                celtypes.StringType("allowMultipleAllocations"): celtypes.BoolType(
                    bool(device.get("allowMultipleAllocations"))
                ),
                celtypes.StringType("attributes"): _DomainMap(attrs),
                celtypes.StringType("capacity"): _DomainMap(caps),
            }
        )
    }


# -- compiling and evaluating -----------------------------------------------------

_ENV = celpy.Environment()
_NO_MEMBER = re.compile(r"no such member in mapping: '(.*)'")


class CompiledSelector:
    __slots__ = ("error", "expression", "program")

    def __init__(self, expression: str) -> None:
        self.expression = expression
        self.program: Any = None
        self.error = ""
        try:
            self.program = _ENV.program(_ENV.compile(expression), functions=FUNCTIONS)
        except Exception as exc:  # celpy raises its parser's own errors
            self.error = "compilation failed: " + " ".join(str(exc).split())

    def matches(self, variables: Mapping[str, Any]) -> bool:
        """True/False, or :class:`CELError` for a runtime error (as cel-go words the common ones)."""
        try:
            result = self.program.evaluate(variables)
        except CELError:
            raise
        except Exception as exc:
            raise CELError(_runtime_message(exc)) from None
        if isinstance(result, CELError):
            raise result
        if not isinstance(result, celtypes.BoolType):
            kind = _CEL_TYPE_NAMES.get(type(result).__name__, type(result).__name__)
            raise CELError(f"CEL result of type {kind} could not be converted to bool")
        return bool(result)


def _runtime_message(exc: Exception) -> str:
    args = getattr(exc, "args", ())
    if args and isinstance(args[0], str):
        msg = args[0]
        if msg == "no such key" and len(args) > 2 and args[2]:
            return f"no such key: {args[2][0]}"
        m = _NO_MEMBER.match(msg)
        if m:
            return f"no such key: {m.group(1)}"
        inner = args[2] if len(args) > 2 else None
        if isinstance(inner, tuple) and inner and isinstance(inner[0], CELError):
            return str(inner[0])
        return msg
    return str(exc)


_CEL_TYPE_NAMES = {
    "StringType": "string",
    "IntType": "int",
    "UintType": "uint",
    "DoubleType": "double",
    "MapType": "map",
    "ListType": "list",
    "BytesType": "bytes",
    "Quantity": "kubernetes.Quantity",
    "Semver": "kubernetes.Semver",
}

_CACHE: dict[str, CompiledSelector] = {}


def compile_selector(expression: str) -> CompiledSelector:
    """The compiled program for an expression, cached per expression string."""
    c = _CACHE.get(expression)
    if c is None:
        if len(_CACHE) > 1024:
            _CACHE.clear()
        c = _CACHE[expression] = CompiledSelector(expression)
    return c
