"""Explanations on the mirrored cluster, and the per-process warm state they run on.

The one place that answers "what would the scheduler do with this pod now?"
for the pages and the API: :func:`explain_pod` (one pod, with the per-node,
per-plugin record) and :func:`pending_messages` (the FailedScheduling message
of every pending pod, for clusters without events of their own), both with
the cluster's active profile.

Each process keeps one :class:`~scheduler_engine.warm_cluster.WarmCluster`
per cluster, built once and brought up to date before every use from the
rows that changed (one aggregate query says whether anything did); the
database is the one source of truth, so any web or worker process can hold
a warm copy. How the change check works: ``docs/explanations.md``.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from django.db import connection
from django.db.models import F, QuerySet
from django.db.models.expressions import RawSQL

from dashboard import conf
from dashboard.cluster.kinds import KINDS, KindSpec
from dashboard.cluster.models import Cluster, Event, Node, Pod
from dashboard.cluster.selectors import pending_pods, unplaced_objects
from dashboard.dryruns.selectors import active_document
from dashboard.dryruns.services.errors import BadInput
from dashboard.dryruns.services.profiles import default_engine_config, parse_config
from scheduler_engine import SchedulerConfig, default_config
from scheduler_engine.collector import collector_paused
from scheduler_engine.errors import InputError
from scheduler_engine.warm_cluster import WarmCluster

__all__ = [
    "ENGINE_MESSAGES_MAX_NODES",
    "ENGINE_MESSAGES_MAX_PENDING",
    "EXPLANATIONS_KEPT",
    "active_config",
    "derived",
    "explain_pod",
    "forget",
    "pending_messages",
    "verified_fix",
    "warm_cluster",
    "warm_stats",
]

log = logging.getLogger(__name__)

# every kind the engine reads (Events only explain, they never schedule)
SPECS: tuple[KindSpec, ...] = tuple(s for s in KINDS if s.kind != "Event")
CHUNK = 2000
# The engine stands in for missing FailedScheduling events (imported snapshots
# have none) only on clusters small enough to schedule within a page view.
ENGINE_MESSAGES_MAX_NODES = 500
ENGINE_MESSAGES_MAX_PENDING = 500
# explanations kept per cluster until its state changes (each up to megabytes at 15,000 nodes)
EXPLANATIONS_KEPT = 8
_WHATIF = frozenset({"nearest", "fixes"})
_EXPLANATION = object()  # the first item of a kept explanation's key in ``derived``

T = TypeVar("T")
Figures = tuple[Any, Any, Any]  # rows, sum of ids, sum of updated_at (as the database sums)


# rows whose updated_at is this close below the newest one seen are read again:
# a writer stamps rows before it commits, so commits can land slightly out of order
SLACK = timedelta(seconds=10)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
# updated_at as exact epoch microseconds, as PostgreSQL computes it (the figures sum the same)
# (PostgreSQL 14 and later: EXTRACT is exact numeric)
_US_SQL = "(EXTRACT(EPOCH FROM updated_at) * 1000000)::bigint"

Row = tuple[str, str, int]  # namespace, name, updated_at in epoch microseconds


@dataclass(slots=True)
class _Kind:
    """What this process has applied of one kind: rows by id, and their figures."""

    rows: dict[int, Row] = field(default_factory=dict)
    id_sum: int = 0
    ts_sum: int = 0
    newest: int = 0  # updated_at (µs) of the newest row seen

    def put(self, pk: int, row: Row) -> None:
        self.drop(pk)
        self.rows[pk] = row
        self.id_sum += pk
        self.ts_sum += row[2]
        self.newest = max(self.newest, row[2])

    def drop(self, pk: int) -> None:
        old = self.rows.pop(pk, None)
        if old is not None:
            self.id_sum -= pk
            self.ts_sum -= old[2]


@dataclass(slots=True)
class _Entry:
    warm: WarmCluster
    kinds: dict[str, _Kind] = field(default_factory=dict)
    figures: dict[str, Figures] = field(default_factory=dict)
    checked: float = -1.0  # monotonic time of the last check; < 0: never built
    lock: threading.Lock = field(default_factory=threading.Lock)
    stats: dict[str, Any] = field(default_factory=dict)
    # what was worked out from this state (pending messages per profile, the
    # last explanations), dropped whenever the state changes
    derived: dict[Any, Any] = field(default_factory=dict)
    version: int = 0  # moves on whenever ``derived`` is dropped

    def changed(self) -> None:
        self.derived.clear()
        self.version += 1


_entries: dict[int, _Entry] = {}
_entries_lock = threading.Lock()


def _exact_ts() -> bool:
    return connection.vendor == "postgresql"


def _figures(cluster_id: int) -> dict[str, Figures]:
    """Per kind: rows, sum of ids, sum of updated_at — one query for every kind."""
    qn = connection.ops.quote_name
    # exact microseconds (numeric seconds summed, then scaled once: a third
    # cheaper than scaling each row); SQLite keeps datetimes as ISO text
    ts = (
        "COALESCE(SUM(EXTRACT(EPOCH FROM updated_at)), 0) * 1000000"
        if _exact_ts()
        else "COALESCE(SUM(julianday(updated_at)), 0)"
    )
    parts, params = [], []
    for i, spec in enumerate(SPECS):
        # kinds sharing a table (dashboard.cluster.kinds.SHARED_KINDS) are told apart by `kind`
        where = "cluster_id = %s AND kind = %s" if spec.shared else "cluster_id = %s"
        parts.append(
            f"SELECT {i}, COUNT(*), COALESCE(SUM(id), 0), {ts} "
            f"FROM {qn(spec.model._meta.db_table)} WHERE {where}"
        )
        params += [cluster_id, spec.row_kind] if spec.shared else [cluster_id]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        rows = cursor.fetchall()
    exact = _exact_ts()
    return {SPECS[i].key: (int(n), int(ids), int(ts) if exact else ts) for i, n, ids, ts in rows}


def _us(ts: datetime) -> int:
    return (ts - _EPOCH) // _US


def _stamped(qs: QuerySet) -> QuerySet:
    """The rows with ``us``, their updated_at: on PostgreSQL as exact epoch microseconds,
    computed there as the figures sum it (no datetime per row in Python); else a datetime."""
    return qs.annotate(us=RawSQL(_US_SQL, ()) if _exact_ts() else F("updated_at"))


def _to_us() -> Callable[[Any], int]:
    """What makes ``us`` epoch microseconds in Python."""
    return int if _exact_ts() else _us


def _load_rows(
    spec: KindSpec, ids: list[int]
) -> Iterator[tuple[int, str, str, Any, dict[str, Any]]]:
    """``(id, namespace, name, us, obj)`` of the rows with these ids."""
    for i in range(0, len(ids), CHUNK):
        qs = _stamped(spec.rows().filter(id__in=ids[i : i + CHUNK]))
        yield from qs.values_list("id", "namespace", "name", "us", "obj")


def _build(cluster: Cluster) -> _Entry:
    t0 = time.perf_counter()
    figures = _figures(cluster.pk)
    kinds: dict[str, _Kind] = {}
    objects: list[dict[str, Any]] = []
    us = _to_us()
    for spec in SPECS:
        k = kinds[spec.key] = _Kind()
        qs = _stamped(spec.rows().filter(cluster_id=cluster.pk))
        for pk, ns, name, ts, obj in qs.values_list(
            "id", "namespace", "name", "us", "obj"
        ).iterator(chunk_size=CHUNK):
            k.put(pk, (ns, name, us(ts)))
            obj.setdefault("kind", spec.kind)
            objects.append(obj)
    warm = WarmCluster(objects, source=f"cluster {cluster.name}")
    del objects
    # The warm state is millions of long-lived objects: keep the cyclic
    # collector from walking them again on every request (gen-2 collections
    # were the largest share of an explanation's time).
    gc.collect()
    gc.freeze()
    entry = _Entry(warm, kinds, figures)
    entry.stats = {"builtSeconds": round(time.perf_counter() - t0, 3), **warm.counts}
    for key, reason in list(warm.rejected.items())[:20]:
        log.warning("cluster %s: the engine skips %s %s/%s: %s", cluster.name, *key, reason)
    return entry


def _refresh_kind(
    spec: KindSpec, k: _Kind, cluster_id: int, db: Figures
) -> tuple[list[dict[str, Any]], list[tuple[str, str, str]]]:
    """Bring one kind's rows up to date; returns (objects to upsert, keys to delete).

    Cheap first: the rows stamped since (newest seen - SLACK) are what a writer
    normally just changed (their ids and stamps only; the changed ones are
    then read whole).  If the figures still differ, rows were deleted (or a
    late commit carries an old stamp): diff the ids, then, last resort,
    every row's stamp.
    """
    qs = spec.rows().filter(cluster_id=cluster_id)
    exact, us = _exact_ts(), _to_us()
    changed: dict[int, int] = {}  # id -> updated_at (µs)
    deleted: dict[int, Row] = {}
    since = _EPOCH + k.newest * _US - SLACK
    for pk, ts in _stamped(qs.filter(updated_at__gte=since)).values_list("id", "us"):
        old = k.rows.get(pk)
        if old is None or old[2] != us(ts):
            changed[pk] = us(ts)

    def expected() -> Figures:
        n, ids, ts_sum = len(k.rows), k.id_sum, k.ts_sum
        for pk, ts in changed.items():
            old = k.rows.get(pk)
            n, ids, ts_sum = n + (old is None), ids + (old is None) * pk, ts_sum + ts
            ts_sum -= old[2] if old is not None else 0
        for pk, row in deleted.items():
            n, ids, ts_sum = n - 1, ids - pk, ts_sum - row[2]
        return (n, ids, ts_sum if exact else db[2])

    if expected() != db:
        ids = set(qs.values_list("id", flat=True).iterator(chunk_size=10 * CHUNK))
        deleted = {pk: row for pk, row in k.rows.items() if pk not in ids}
        new = [pk for pk in ids if pk not in k.rows and pk not in changed]
        for i in range(0, len(new), CHUNK):
            for pk, ts in _stamped(qs.filter(id__in=new[i : i + CHUNK])).values_list("id", "us"):
                changed[pk] = us(ts)
    if expected() != db or (not exact and not changed and not deleted):
        # modified rows stamped before the window (or SQLite, whose sums are inexact)
        for pk, ts in _stamped(qs).values_list("id", "us").iterator(chunk_size=10 * CHUNK):
            old = k.rows.get(pk)
            if old is None or old[2] != us(ts):
                changed[pk] = us(ts)
    upserts = []
    deletes = []
    for pk, (ns, name, _) in deleted.items():
        k.drop(pk)
        deletes.append((spec.kind, ns, name))
    for pk, ns, name, ts, obj in _load_rows(spec, list(changed)):
        # the stamp read with the object: a row changed since the window is
        # applied as it is now, and counted as such
        k.put(pk, (ns, name, us(ts)))
        obj.setdefault("kind", spec.kind)
        upserts.append(obj)
    return upserts, deletes


def _refresh(entry: _Entry, cluster: Cluster, figures: dict[str, Figures]) -> int:
    """Apply what changed since the entry was last brought up to date; returns objects."""
    upserts: list[dict[str, Any]] = []
    deletes: list[tuple[str, str, str]] = []
    for spec in SPECS:
        if figures[spec.key] == entry.figures.get(spec.key):
            continue
        ups, dels = _refresh_kind(spec, entry.kinds[spec.key], cluster.pk, figures[spec.key])
        upserts += ups
        deletes += dels
    # deletes first: a row replaced under the same name is a delete then an upsert
    entry.warm.apply(upserts, deletes)
    entry.figures = figures
    return len(upserts) + len(deletes)


def _current(cluster: Cluster) -> _Entry:
    """The cluster's entry, up to date with the database as of this call."""
    with _entries_lock:
        entry = _entries.get(cluster.pk)
        if entry is None:
            entry = _entries[cluster.pk] = _Entry(WarmCluster())
    with entry.lock:
        now = time.monotonic()
        if entry.checked >= 0 and now - entry.checked < conf.explain_recheck_seconds():
            return entry
        if entry.checked < 0:
            built = _build(cluster)
            entry.warm, entry.kinds, entry.figures = built.warm, built.kinds, built.figures
            entry.stats = built.stats
            entry.changed()
        else:
            figures = _figures(cluster.pk)
            if figures != entry.figures:
                t0 = time.perf_counter()
                with collector_paused():
                    n = _refresh(entry, cluster, figures)
                entry.stats["lastRefresh"] = {
                    "changes": n,
                    "seconds": round(time.perf_counter() - t0, 3),
                }
                entry.changed()
        entry.checked = time.monotonic()
        return entry


def warm_cluster(cluster: Cluster) -> WarmCluster:
    """The cluster's engine state, up to date with the database as of this call."""
    return _current(cluster).warm


def derived(cluster: Cluster, key: Any, compute: Callable[[WarmCluster], T]) -> T:
    """What ``compute`` works out from the cluster's warm state, kept until the state changes."""
    entry = _current(cluster)
    with entry.lock:
        if key not in entry.derived:
            entry.derived[key] = compute(entry.warm)
        return entry.derived[key]


def warm_stats(cluster: Cluster) -> dict[str, Any] | None:
    """How the warm copy was built and last refreshed (None when there is none)."""
    entry = _entries.get(cluster.pk)
    return dict(entry.stats) if entry is not None and entry.checked >= 0 else None


def forget(cluster_id: int | None = None) -> None:
    """Drop the warm copy of one cluster (or all): the next use rebuilds it."""
    with _entries_lock:
        if cluster_id is None:
            _entries.clear()
        else:
            _entries.pop(cluster_id, None)


def active_config(cluster: Cluster) -> SchedulerConfig:
    """The configuration the engine explains with: the active profile, else upstream's defaults."""
    return _config(active_document(cluster))


def _config(document: str | None) -> SchedulerConfig:
    # parsed on each call (nothing caches it), under the deployment's gates and plugins as
    # they are now: the answers worked out with it are what is kept, per document
    if document:
        return parse_config(document)
    return default_engine_config() if conf.feature_gates() else default_config()


def explain_pod(
    cluster: Cluster, namespace: str, name: str, *, whatif: bool = True
) -> dict[str, Any]:
    """The scheduler's message and per-node, per-plugin record for one pod, now.

    With the cluster's active profile, on its warm state; a bound pod is
    answered without the engine. ``whatif`` False leaves out the nearest
    nodes and verified changes (the costly part for a pod that does not fit).
    The last few answers are kept until the warm state changes (any row of
    any kind, the pod's own included): a page and the request for its
    sections, or several clients asking about one pod, run the engine once.
    The answer is shared: read it, do not change it. Raises
    ``Pod.DoesNotExist`` for an unknown pod and :class:`BadInput` for one
    the engine cannot read.
    """
    row = (
        Pod.objects.filter(cluster=cluster, namespace=namespace, name=name)
        .only("node_name", "updated_at", "obj")
        .first()
    )
    if row is None:
        raise Pod.DoesNotExist(f"pod {namespace}/{name} not found in cluster {cluster.name}")
    if row.node_name:
        return {
            "pod": f"{namespace}/{name}",
            "status": "Bound",
            "node": row.node_name,
            "message": f"already bound to {row.node_name}",
        }
    document = active_document(cluster)
    entry = _current(cluster)
    # the row's stamp too: a pod changed between its read and the state's check
    # is never kept under the newer state
    key = (_EXPLANATION, namespace, name, row.updated_at, document)
    with entry.lock:
        version = entry.version
        kept = entry.derived.get((*key, whatif))
        full = None if whatif else entry.derived.get((*key, True))
    if kept is not None:
        return kept
    if full is not None:  # the answer with every section serves one without
        return {k: v for k, v in full.items() if k not in _WHATIF}
    try:
        with collector_paused():
            result = entry.warm.explain_pod(
                row.obj, _config(document), registry=conf.engine_registry(), whatif=whatif
            )
    except InputError as exc:
        raise BadInput.one("pod", exc.one_line()) from None
    with entry.lock:
        if entry.version == version:  # nothing changed meanwhile: the answer is this state's
            kept_keys = [k for k in entry.derived if isinstance(k, tuple) and k[0] is _EXPLANATION]
            for old in kept_keys[: max(0, len(kept_keys) - EXPLANATIONS_KEPT + 1)]:
                del entry.derived[old]
            entry.derived[(*key, whatif)] = result
    return result


def verified_fix(cluster: Cluster, namespace: str, name: str, index: str) -> dict[str, Any] | None:
    """The engine's verified change number ``index`` (as a form sends it) for the pod, now.

    Worked out again rather than taken from the request, so only a change the
    engine verifies on the current state is ever applied; None when there is
    no such change (a bad number, a pod that fits or is gone).
    """
    if not (index.isascii() and index.isdigit() and len(index) < 3):
        return None
    try:
        fixes = explain_pod(cluster, namespace, name).get("fixes") or []
    except (BadInput, Pod.DoesNotExist):
        return None
    i = int(index)
    return fixes[i] if i < len(fixes) else None


def pending_messages(cluster: Cluster) -> dict[tuple[str, str], str] | None:
    """The engine's FailedScheduling message for each pending pod it would not place.

    Every pending pod is scheduled, in queue order, on the running state with
    the active profile (as the scheduler would go through its queue); keyed
    by (namespace, name). None when the cluster has FailedScheduling events of
    its own, is too large to schedule within a page view, or holds an object
    the engine cannot read.
    """
    if Event.objects.filter(cluster=cluster).exists():
        return None
    if Node.objects.filter(cluster=cluster).count() > ENGINE_MESSAGES_MAX_NODES:
        return None
    waiting = pending_pods(cluster).count()
    if waiting == 0 or waiting > ENGINE_MESSAGES_MAX_PENDING:
        return {} if waiting == 0 else None
    document = active_document(cluster)
    entry = _current(cluster)
    with entry.lock:
        key = ("pending messages", document)
        if key not in entry.derived:
            entry.derived[key] = _schedule_pending(cluster, entry.warm, _config(document))
        return entry.derived[key]


def _schedule_pending(
    cluster: Cluster, warm: WarmCluster, config: SchedulerConfig
) -> dict[tuple[str, str], str] | None:
    if warm.rejected:
        return None
    try:
        result = warm.schedule(unplaced_objects(cluster), config, registry=conf.engine_registry())
    except InputError:
        return None
    messages = {}
    for r in result["results"]:
        if r.get("status") != "Scheduled" and r.get("message"):
            ns, _, name = r["pod"].partition("/")
            messages[(ns, name)] = r["message"]
    return messages
