"""Taints and tolerations (``v1.Toleration.ToleratesTaint``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import FieldError
from .shapes import MAPPING, Memo, memo_key

__all__ = [
    "NO_EXECUTE",
    "NO_SCHEDULE",
    "PREFER_NO_SCHEDULE",
    "Taint",
    "Toleration",
    "find_untolerated",
    "parse_taints",
    "parse_tolerations",
]

NO_SCHEDULE = "NoSchedule"
PREFER_NO_SCHEDULE = "PreferNoSchedule"
NO_EXECUTE = "NoExecute"
_EFFECTS = (NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE)


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        op = self.operator
        if op in ("", "Equal"):
            return self.value == taint.value
        # Exists; Gt/Lt need the TaintTolerationComparisonOperators gate (alpha, off in v1.36)
        return op == "Exists"


def find_untolerated(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: Sequence[str]
) -> Taint | None:
    """The first taint with one of ``effects`` that no toleration tolerates."""
    for t in taints:
        if t.effect not in effects:
            continue
        if not any(tol.tolerates(t) for tol in tolerations):
            return t
    return None


def _list(raw: Any, field: str) -> list[Any]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise FieldError(field, "must be a list")
    return raw


# parsed tolerations by their raw list (frozen values: pods of a template share them)
_TOLERATIONS_SEEN: Memo[tuple[Toleration, ...]] = Memo()


def parse_tolerations(raw: Any, field: str) -> tuple[Toleration, ...]:
    if not raw:
        return _parse_tolerations(raw, field)
    key = memo_key(raw)
    seen = _TOLERATIONS_SEEN.get(key)
    if seen is None:
        seen = _parse_tolerations(raw, field)
        _TOLERATIONS_SEEN.put(key, seen)
    return seen


def _parse_tolerations(raw: Any, field: str) -> tuple[Toleration, ...]:
    out = []
    for i, t in enumerate(_list(raw, field)):
        if not isinstance(t, MAPPING):
            raise FieldError(f"{field}[{i}]", "must be an object")
        secs = t.get("tolerationSeconds")
        out.append(
            Toleration(
                str(t.get("key") or ""),
                str(t.get("operator") or ""),
                str(t.get("value") or ""),
                str(t.get("effect") or ""),
                int(secs) if secs is not None else None,
            )
        )
    return tuple(out)


def parse_taints(raw: Any, field: str) -> tuple[Taint, ...]:
    out = []
    for i, t in enumerate(_list(raw, field)):
        if not isinstance(t, MAPPING) or not t.get("key"):
            raise FieldError(f"{field}[{i}].key", "is required")
        effect = t.get("effect")
        if effect not in _EFFECTS:
            raise FieldError(
                f"{field}[{i}].effect",
                f'Unsupported value: "{effect}": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
            )
        out.append(Taint(str(t["key"]), str(t.get("value") or ""), str(effect)))
    return tuple(out)
