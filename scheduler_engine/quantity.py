"""Kubernetes ``resource.Quantity`` parsing, exactly as the API server accepts it.

A quantity is ``<sign><digits>[.<digits>]<suffix>`` where the suffix is a
binary SI one (``Ki`` … ``Ei``), a decimal SI one (``n u m "" k M G T P E``) or
a decimal exponent (``e3``, ``E-2``).  Values are kept exact as
:class:`fractions.Fraction`; the scheduler reads them as upstream does, through
``Value()`` and ``MilliValue()``, which round *up* to an integer.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

__all__ = ["QuantityError", "milli_value", "parse_quantity", "value"]


class QuantityError(ValueError):
    """Not a valid quantity; the message is upstream's wording."""


_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
_NUMBER = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(.*)$")
_REGEX_MSG = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
_EXPONENT = re.compile(r"^[eE]([+-]?\d+)$")


@lru_cache(maxsize=8192)
def _parse_str(text: str) -> Fraction:
    s = text
    if not s:
        raise QuantityError(_REGEX_MSG)
    m = _NUMBER.match(s)
    if m is None:
        raise QuantityError(_REGEX_MSG)
    sign, whole, frac, suffix = m.groups()
    frac = frac or ""
    if not whole and not frac:
        raise QuantityError(_REGEX_MSG)
    number = Fraction(int(whole or "0")) + (Fraction(int(frac), 10 ** len(frac)) if frac else 0)
    if suffix in _BINARY:
        scaled = number * _BINARY[suffix]
    elif suffix in _DECIMAL:
        scaled = number * _DECIMAL[suffix]
    else:
        e = _EXPONENT.match(suffix)
        if e is None:
            raise QuantityError("unable to parse quantity's suffix")
        scaled = number * Fraction(10) ** int(e.group(1))
    return -scaled if sign == "-" else scaled


def parse_quantity(raw: object) -> Fraction:
    """Parse a quantity given as a string or a bare (YAML) number."""
    if isinstance(raw, bool):
        raise QuantityError("quantities must be strings or numbers")
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        if not math.isfinite(raw):
            raise QuantityError("quantities must be finite")
        # YAML gives 0.5 as a float; read it as the decimal a person wrote.
        return _parse_str(repr(raw))
    if isinstance(raw, str):
        return _parse_str(raw)
    raise QuantityError("quantities must be strings or numbers")


def value(q: Fraction) -> int:
    """Upstream ``Quantity.Value()``: the value rounded up to an integer."""
    return math.ceil(q)


def milli_value(q: Fraction) -> int:
    """Upstream ``Quantity.MilliValue()``: thousandths, rounded up."""
    return math.ceil(q * 1000)
