"""The mirror's memory of every pod it saw, for traces (``export_trace``).

Called from ``apply_changes`` inside its transaction: upserted pods get or
update their history row (the pod without node and status, its creation time,
when it was first seen bound), deleted pods get their deletion time, and rows
deleted longer ago than the retention are dropped (at most once a minute).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ... import conf
from ..models import PodHistory
from .pgcopy import copy_models, uses_copy

__all__ = ["pending_copy", "prune", "record"]

log = logging.getLogger(__name__)

PRUNE_EVERY_SECONDS = 60.0
# uids per lookup query (the database's parameter limit is far above)
_CHUNK = 5000
_last_prune: dict[int, float] = {}


def _time(raw: Any) -> datetime | None:
    if not raw:
        return None
    try:
        return parse_datetime(str(raw))
    except ValueError:
        return None


def pending_copy(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The pod as a trace replays it: its metadata and spec, not yet on a node."""
    meta = dict(obj.get("metadata") or {})
    for k in (
        "resourceVersion",
        "managedFields",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ):
        meta.pop(k, None)
    spec = dict(obj.get("spec") or {})
    spec.pop("nodeName", None)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def _bound_time(obj: Mapping[str, Any]) -> datetime | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "True":
            return _time(c.get("lastTransitionTime"))
    return None


# The columns of a new row, in the order ``record`` builds them.
_NEW_COLUMNS = (
    "cluster_id",
    "namespace",
    "name",
    "uid",
    "obj",
    "node_name",
    "created_at",
    "bound_at",
    "first_seen",
)


def _new_row(cluster_id: int, uid: str, r: Any, now: datetime) -> tuple:
    """A new history row's values, in the order of ``_NEW_COLUMNS``."""
    obj = r.obj
    node = str((obj.get("spec") or {}).get("nodeName") or "")
    return (
        cluster_id,
        r.namespace,
        r.name,
        uid,
        pending_copy(obj),
        node,
        _time((obj.get("metadata") or {}).get("creationTimestamp")) or now,
        (_bound_time(obj) or now) if node else None,
        now,
    )


def _insert(new: list[tuple]) -> None:
    """Store new history rows: through COPY when there are many (an initial sync)."""
    if uses_copy(len(new)):
        copy_models(PodHistory, _NEW_COLUMNS, new)
    else:
        PodHistory.objects.bulk_create(
            [PodHistory(**dict(zip(_NEW_COLUMNS, row, strict=True))) for row in new],
            batch_size=1000,
        )


def _insert_fresh(cluster_id: int, rows: dict[str, Any], fresh: set[str], now: datetime) -> bool:
    """Store the rows of pods the caller believes new without looking them up
    (an initial sync's lookups are all misses); False, with nothing stored, if
    one has a history row after all: then every row is looked up."""
    try:
        with transaction.atomic():  # a savepoint: a conflict undoes only this
            _insert([_new_row(cluster_id, uid, rows[uid], now) for uid in fresh])
    except IntegrityError:
        log.info("pods thought new have a history already; looking them up")
        return False
    return True


def _stored(cluster_id: int, uids: list[str]) -> dict[str, PodHistory]:
    stored: dict[str, PodHistory] = {}
    for i in range(0, len(uids), _CHUNK):
        stored.update(
            (h.uid, h)
            for h in PodHistory.objects.filter(cluster_id=cluster_id, uid__in=uids[i : i + _CHUNK])
        )
    return stored


def _upsert(cluster_id: int, rows: dict[str, Any], now: datetime) -> None:
    """New rows for pods without history, updates where a trace would see a change."""
    stored = _stored(cluster_id, list(rows))
    new, changed = [], []
    for uid, r in rows.items():
        h = stored.get(uid)
        if h is None:
            new.append(_new_row(cluster_id, uid, r, now))
            continue
        obj = r.obj
        node = str((obj.get("spec") or {}).get("nodeName") or "")
        pending = pending_copy(obj)
        binds = bool(node and not h.bound_at)
        if pending == h.obj and not binds:
            continue  # a status update: nothing a trace keeps changed
        h.obj = pending
        if binds:
            h.node_name = node
            h.bound_at = _bound_time(obj) or now
        changed.append(h)
    _insert(new)
    PodHistory.objects.bulk_update(changed, ["obj", "node_name", "bound_at"], batch_size=1000)


def record(
    cluster_id: int,
    upserted: Iterable[Any],
    deleted: Iterable[tuple[str, str]],
    now: datetime | None = None,
    new: Collection[tuple[str, str]] = (),
) -> None:
    """Keep the history of the pods a batch upserted and deleted (rows: namespace, name,
    uid, obj); ``new``: the (namespace, name) of pods believed not stored before."""
    now = now or timezone.now()
    rows = {(r.uid or f"{r.namespace}/{r.name}"): r for r in upserted}
    fresh = {uid for uid, r in rows.items() if (r.namespace, r.name) in new} if new else set()
    if uses_copy(len(fresh)) and _insert_fresh(cluster_id, rows, fresh, now):
        rows = {uid: r for uid, r in rows.items() if uid not in fresh}
    if rows:
        _upsert(cluster_id, rows, now)
    by_ns: dict[str, list[str]] = defaultdict(list)
    for ns, name in deleted:
        by_ns[ns].append(name)
    for ns, names in by_ns.items():
        PodHistory.objects.filter(
            cluster_id=cluster_id, namespace=ns, name__in=names, deleted_at__isnull=True
        ).update(deleted_at=now)
    if time.monotonic() - _last_prune.get(cluster_id, float("-inf")) >= PRUNE_EVERY_SECONDS:
        prune(cluster_id, now)


def prune(cluster_id: int, now: datetime | None = None) -> int:
    """Drop the pods deleted longer ago than the retention; how many went."""
    _last_prune[cluster_id] = time.monotonic()
    cutoff = (now or timezone.now()) - timedelta(days=conf.trace_retention_days())
    n, _ = PodHistory.objects.filter(cluster_id=cluster_id, deleted_at__lt=cutoff).delete()
    return n
