"""The pod page's Events table: the cluster's scheduler events beside the engine's.

As ``kubectl describe pod`` shows them (type, reason, from, age, message),
the mirrored events first, oldest first, then the events the engine records
for its attempt now.  Where the cluster has events of a reason, each row of
that reason is marked when the other side has no event with the same text:
the engine's message differs from what the scheduler wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboard.cluster.models import Event

__all__ = ["CLUSTER", "ENGINE", "EventRow", "event_rows"]

CLUSTER = "cluster"
ENGINE = "engine"


@dataclass(frozen=True, slots=True)
class EventRow:
    side: str  # CLUSTER or ENGINE
    type: str
    reason: str
    origin: str  # kubectl's "From"
    last_seen: datetime | None
    count: int
    message: str
    # no event of the same reason and text on the other side, which has events of that reason
    differs: bool


def _origin(obj: Mapping[str, Any]) -> str:
    source = obj.get("source") if isinstance(obj.get("source"), Mapping) else {}
    return str(
        (source or {}).get("component")
        or obj.get("reportingComponent")
        or obj.get("reportingController")
        or ""
    )


def event_rows(
    mirrored: Iterable[Event], engine: Sequence[Mapping[str, Any]], scheduler_name: str
) -> list[EventRow]:
    """Rows of the table: mirrored events by last seen, then the engine's in order."""
    cluster_events = sorted(
        mirrored, key=lambda e: (e.last_seen is None, e.last_seen or datetime.min)
    )
    seen = {(e.reason, e.message) for e in cluster_events}
    cluster_reasons = {e.reason for e in cluster_events}
    engine_seen = {(str(e.get("reason", "")), str(e.get("message", ""))) for e in engine}
    engine_reasons = {r for r, _ in engine_seen}
    rows = []
    for e in cluster_events:
        obj = e.obj if isinstance(e.obj, Mapping) else {}
        rows.append(
            EventRow(
                side=CLUSTER,
                type=str(obj.get("type") or "Warning"),
                reason=e.reason,
                origin=_origin(obj) or scheduler_name,
                last_seen=e.last_seen,
                count=e.count,
                message=e.message,
                differs=e.reason in engine_reasons and (e.reason, e.message) not in engine_seen,
            )
        )
    for x in engine:
        reason, message = str(x.get("reason", "")), str(x.get("message", ""))
        rows.append(
            EventRow(
                side=ENGINE,
                type=str(x.get("type", "")),
                reason=reason,
                origin=scheduler_name,
                last_seen=None,
                count=1,
                message=message,
                differs=reason in cluster_reasons and (reason, message) not in seen,
            )
        )
    return rows
