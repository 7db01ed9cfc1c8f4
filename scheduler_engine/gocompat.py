"""Go's arithmetic and formatting where Python's differ, for byte-exact results.

Upstream computes scores with Go's int64 division (truncating toward zero),
``math.Round`` (half away from zero), ``math.Log`` (fdlibm) and prints with
``time.Duration.String()`` and ``%v`` of a slice; Python's ``//``, ``round``,
``math.log`` and ``str`` differ at the edges.  Every plugin and the runtime
use these helpers, never their own copies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "go_div",
    "go_div_array",
    "go_duration",
    "go_list",
    "go_log",
    "go_round",
    "go_round_array",
]


def go_div(a: int, b: int) -> int:
    """Go's int64 ``a / b``: the quotient truncated toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def go_div_array(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """:func:`go_div` elementwise."""
    q = np.abs(a) // np.abs(b)
    return np.where((a >= 0) == (np.asarray(b) >= 0), q, -q)


def go_round(x: float) -> int:
    """Go's ``math.Round``: half away from zero, exact (no ``x + 0.5`` error)."""
    t = math.trunc(x)
    if abs(x - t) >= 0.5:
        t += 1 if x > 0 else -1
    return int(t)


def go_round_array(x: np.ndarray) -> np.ndarray:
    """:func:`go_round` elementwise (int64), with float operations that are exact likewise."""
    ax = np.abs(x)
    r = np.floor(ax)
    r = r + (ax - r >= 0.5)
    return np.copysign(r, x).astype(np.int64)


# fdlibm's log as Go's math.Log computes it (pure Go and the amd64 assembly alike).
# libm's log is correctly rounded and differs from it by one ulp for some integers
# (log(3) among them), which could move a score across a rounding boundary.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_SQRT2_HALF = math.sqrt(2) / 2


def go_log(x: float) -> float:
    """Natural log of a finite ``x > 0`` with Go's ``math.Log`` rounding."""
    f1, exp = math.frexp(x)
    if f1 < _SQRT2_HALF:
        f1 *= 2
        exp -= 1
    f = f1 - 1
    k = float(exp)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_LG1 + s4 * (_LG3 + s4 * (_LG5 + s4 * _LG7)))
    t2 = s4 * (_LG2 + s4 * (_LG4 + s4 * _LG6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


def go_duration(seconds: float) -> str:
    """A duration as Go's ``time.Duration.String()`` prints it (``10s``, ``1m30s``, ``500ms``)."""
    ns = round(seconds * 1e9)
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                return sign + _trim(ns / size) + unit
    h, rem = divmod(ns, 3_600_000_000_000)
    m, rem = divmod(rem, 60_000_000_000)
    s = _trim(rem / 1e9)
    out = ""
    if h:
        out += f"{h}h"
    if h or m:
        out += f"{m}m"
    return sign + out + s + "s"


def _trim(x: float) -> str:
    text = f"{x:.9f}".rstrip("0").rstrip(".")
    return text or "0"


def go_list(items: Sequence[str]) -> str:
    """A string slice as Go's ``%v`` prints it: ``[A B]``."""
    return "[" + " ".join(items) + "]"
