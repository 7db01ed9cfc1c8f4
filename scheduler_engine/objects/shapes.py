"""What the object parsers share: the mapping check, and memos keyed by raw parts.

Pods of one template repeat the same parts (tolerations, container
resources) thousands of times; a parse of such a part is kept by the part's
value, exactly: :func:`memo_key` tells values apart by type as well
(``1`` and ``1.0``, ``[]`` and ``()``, ``"4"`` and a ``str`` subclass), so
a part that would fail to parse never meets the kept parse of another.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

__all__ = ["MAPPING", "Memo", "memo_key"]

# ``isinstance(x, MAPPING)``: what ``isinstance(x, Mapping)`` says, without the ABC
# machinery for the dicts that JSON and YAML give
MAPPING: tuple[type, ...] = (dict, Mapping)

V = TypeVar("V")


def memo_key(value: Any) -> bytes | str:
    """Equal for values equal in value and type: marshal's bytes (version 2 writes no
    back-references, so equal values give equal bytes), else (what marshal refuses:
    subclasses, other types) ``repr``. bytes and str keys never compare equal."""
    try:
        return marshal.dumps(value, 2)
    except ValueError:
        return repr(value)


class Memo(Generic[V]):
    """Parses by :func:`memo_key`, at most ``size`` of them (all dropped when full)."""

    __slots__ = ("seen", "size")

    def __init__(self, size: int = 4096) -> None:
        self.seen: dict[bytes | str, V] = {}
        self.size = size

    def get(self, key: bytes | str) -> V | None:
        return self.seen.get(key)

    def put(self, key: bytes | str, value: V) -> None:
        if len(self.seen) >= self.size:
            self.seen.clear()
        self.seen[key] = value
