"""What informer threads hand to the writer thread (one queue, in order)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..kinds import KindSpec

__all__ = ["ListDone", "ListPage", "ListStart", "WatchEvent"]


@dataclass(frozen=True, slots=True)
class ListStart:
    spec: KindSpec


@dataclass(frozen=True, slots=True)
class ListPage:
    spec: KindSpec
    items: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ListDone:
    """The list finished: everything not seen since ListStart was deleted upstream."""

    spec: KindSpec
    resource_version: str
    generation: int = 0  # MirrorHealth.list_started's number for this list


@dataclass(frozen=True, slots=True)
class WatchEvent:
    spec: KindSpec
    type: str
    obj: dict[str, Any]
    received: float  # time.monotonic() when read off the wire, for lag
