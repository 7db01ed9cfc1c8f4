"""Writes of mirrored objects: batched upserts and deletes, broadcast after commit."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

from django.db import IntegrityError, connection, models, transaction
from django.utils import timezone

from ..kinds import KINDS, KindSpec, Row
from ..models import KubeObject
from . import broadcast, pod_history
from .pgcopy import dumps, uses_copy

__all__ = ["Changes", "apply_changes", "known_versions"]

log = logging.getLogger(__name__)

Key = tuple[str, str]
_KEY_FIELDS = {"id", "cluster", "kind", "namespace", "name"}
BULK_SIZE = 1000


@dataclass(slots=True)
class Changes:
    """What one batch does to one cluster, coalesced per object (last write wins)."""

    # Rows are model instances or (the mirror's) kinds.Row: the same attributes.
    upserts: dict[KindSpec, dict[Key, KubeObject | Row]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    deletes: dict[KindSpec, set[Key]] = field(default_factory=lambda: defaultdict(set))
    # Upserts the caller believes are not stored yet (a hint: see _copy_insert).
    new: dict[KindSpec, set[Key]] = field(default_factory=lambda: defaultdict(set))

    def upsert(self, spec: KindSpec, row: KubeObject | Row, *, new: bool = False) -> None:
        key = (row.namespace, row.name)
        self.deletes[spec].discard(key)
        self.upserts[spec][key] = row
        if new:
            self.new[spec].add(key)
        else:
            self.new[spec].discard(key)

    def delete(self, spec: KindSpec, key: Key) -> None:
        self.upserts[spec].pop(key, None)
        self.new[spec].discard(key)
        self.deletes[spec].add(key)

    def __len__(self) -> int:
        return sum(map(len, self.upserts.values())) + sum(map(len, self.deletes.values()))


def _update_fields(spec: KindSpec) -> list[str]:
    return [
        f.name
        for f in spec.model._meta.concrete_fields
        if f.name not in _KEY_FIELDS and not f.primary_key
    ]


def _delete_keys(spec: KindSpec, cluster_id: int, keys: Iterable[Key]) -> int:
    by_namespace: dict[str, list[str]] = defaultdict(list)
    for ns, name in keys:
        by_namespace[ns].append(name)
    deleted = 0
    for ns, names in by_namespace.items():
        for i in range(0, len(names), BULK_SIZE):
            deleted += (
                spec.rows()
                .filter(cluster_id=cluster_id, namespace=ns, name__in=names[i : i + BULK_SIZE])
                .delete()[0]
            )
    return deleted


@dataclass(frozen=True, slots=True)
class _CopyPlan:
    """How a kind's rows go through COPY: columns, and a row's values in that order."""

    table: str
    temp: str
    columns: str
    conflict: str  # the unique constraint's columns
    updates: str
    get: Callable[[dict], tuple]
    json_names: tuple[str, ...]


_plans: dict[KindSpec, _CopyPlan] = {}


def _plan(spec: KindSpec) -> _CopyPlan:
    plan = _plans.get(spec)
    if plan is None:
        meta = spec.model._meta
        fields = [f for f in meta.concrete_fields if not f.primary_key and f.name != "updated_at"]
        plain = [f for f in fields if not isinstance(f, models.JSONField)]
        json_fields = [f for f in fields if isinstance(f, models.JSONField)]
        ordered = [*plain, *json_fields, meta.get_field("updated_at")]
        quote = connection.ops.quote_name
        plan = _plans[spec] = _CopyPlan(
            table=quote(meta.db_table),
            temp=quote(f"mirror_{meta.db_table}"),
            columns=", ".join(quote(f.column) for f in ordered),
            conflict=", ".join(quote(meta.get_field(n).column) for n in spec.unique_fields),
            updates=", ".join(
                f"{quote(f.column)} = EXCLUDED.{quote(f.column)}"
                for f in ordered
                if f.name not in _KEY_FIELDS
            ),
            get=itemgetter(*(f.attname for f in plain)),
            json_names=tuple(f.attname for f in json_fields),
        )
    return plan


def _copy(raw: Any, plan: _CopyPlan, target: str, rows: list[KubeObject | Row]) -> None:
    """COPY ``rows`` into ``target``, read from their ``__dict__`` (attname -> value:
    both model instances and ``Row``s have it) by one ``itemgetter``; JSON columns
    (``obj``, a node's ``gpu_resources``) are serialised here, ``updated_at`` set."""
    now = timezone.now()
    get, json_names = plan.get, plan.json_names
    with raw.copy(f"COPY {target} ({plan.columns}) FROM STDIN") as copy:
        write = copy.write_row
        if json_names == ("obj",):
            for row in rows:
                d = row.__dict__
                write((*get(d), dumps(d["obj"]), now))
        else:
            for row in rows:
                d = row.__dict__
                write((*get(d), *[dumps(d[n]) for n in json_names], now))
    for row in rows:
        row.updated_at = now


def _copy_upsert(spec: KindSpec, rows: list[KubeObject | Row]) -> None:
    """The same upsert as ``bulk_create(update_conflicts=True)``, through COPY.

    Large list pages are where the initial sync spends its time; COPY into a
    temporary table then one INSERT ... ON CONFLICT is several times faster
    than a multi-row INSERT with 18 parameters per row.
    """
    plan = _plan(spec)
    # The psycopg cursor (Django's wrapper has no COPY); errors are turned into
    # Django's, so the writer's `except DatabaseError` retry sees them.
    with connection.cursor() as cursor, connection.wrap_database_errors:
        raw = cursor.cursor
        raw.execute(
            f"CREATE TEMP TABLE IF NOT EXISTS {plan.temp} ON COMMIT DELETE ROWS AS "
            f"SELECT {plan.columns} FROM {plan.table} WITH NO DATA"
        )
        _copy(raw, plan, plan.temp, rows)
        raw.execute(
            f"INSERT INTO {plan.table} ({plan.columns}) SELECT {plan.columns} FROM {plan.temp} "
            f"ON CONFLICT ({plan.conflict}) DO UPDATE SET {plan.updates}"
        )
        raw.execute(f"TRUNCATE {plan.temp}")


def _copy_insert(spec: KindSpec, rows: list[KubeObject | Row]) -> None:
    """Rows believed new (the initial sync): COPY straight into the table.

    Half the database work of the upsert (no temporary table, no conflict
    handling). Should one exist after all (another writer), the savepoint is
    rolled back and the rows go through ``_copy_upsert``: the same result.
    """
    plan = _plan(spec)
    try:
        with transaction.atomic(), connection.cursor() as cursor, connection.wrap_database_errors:
            _copy(cursor.cursor, plan, plan.table, rows)
    except IntegrityError:
        log.info("%s: some rows thought new exist already; upserting", spec.key)
        _copy_upsert(spec, rows)


def _models(spec: KindSpec, rows: list[KubeObject | Row]) -> list[KubeObject]:
    return [r if isinstance(r, KubeObject) else spec.model(**vars(r)) for r in rows]


def apply_changes(cluster_id: int, changes: Changes) -> None:
    """Write ``changes`` in one transaction; websocket clients hear of them after commit."""
    upserted: dict[KindSpec, list[KubeObject | Row]] = {}
    deleted: dict[KindSpec, list[Key]] = {}
    with transaction.atomic():
        for spec in KINDS:
            keys = changes.deletes.get(spec)
            if keys:
                _delete_keys(spec, cluster_id, keys)
                deleted[spec] = sorted(keys)
            by_key = changes.upserts.get(spec, {})
            rows = list(by_key.values())
            if rows:
                new_keys = changes.new.get(spec)
                if uses_copy(len(rows)):
                    if new_keys:
                        fresh = [by_key[k] for k in by_key.keys() & new_keys]
                        _copy_insert(spec, fresh)
                        rest = [r for k, r in by_key.items() if k not in new_keys]
                    else:
                        rest = rows
                    if rest:
                        _copy_upsert(spec, rest)
                else:
                    spec.model.objects.bulk_create(
                        _models(spec, rows),
                        batch_size=BULK_SIZE,
                        update_conflicts=True,
                        unique_fields=list(spec.unique_fields),
                        update_fields=_update_fields(spec),
                    )
                upserted[spec] = rows
        if "pods" in {s.key for s in set(upserted) | set(deleted)}:
            pods = next((s for s in KINDS if s.key == "pods"), None)
            pod_history.record(
                cluster_id,
                upserted.get(pods, ()),
                deleted.get(pods, ()),
                new=changes.new.get(pods, ()),
            )

        def send() -> None:
            for spec in KINDS:
                broadcast.publish_delta(
                    cluster_id,
                    spec.key,
                    spec.delta_fields,
                    upserted.get(spec, []),
                    deleted.get(spec, []),
                )

        transaction.on_commit(send)


def known_versions(cluster_id: int, spec: KindSpec) -> dict[Key, str]:
    """(namespace, name) -> resourceVersion of what is stored, for relist diffs."""
    rows = (
        spec.rows()
        .filter(cluster_id=cluster_id)
        .values_list("namespace", "name", "resource_version")
    )
    return {(ns, name): rv for ns, name, rv in rows.iterator(chunk_size=5000)}
