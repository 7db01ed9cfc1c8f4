"""Writes of mirrored objects: batched upserts and deletes, broadcast after commit."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import transaction

from ..kinds import KINDS, KindSpec
from ..models import KubeObject
from . import broadcast

__all__ = ["Changes", "apply_changes", "known_versions"]

log = logging.getLogger(__name__)

Key = tuple[str, str]
_KEY_FIELDS = {"id", "cluster", "namespace", "name"}
BULK_SIZE = 1000


@dataclass(slots=True)
class Changes:
    """What one batch does to one cluster, coalesced per object (last write wins)."""

    upserts: dict[KindSpec, dict[Key, KubeObject]] = field(
        default_factory=lambda: defaultdict(dict)
    )
    deletes: dict[KindSpec, set[Key]] = field(default_factory=lambda: defaultdict(set))

    def upsert(self, spec: KindSpec, row: KubeObject) -> None:
        key = (row.namespace, row.name)
        self.deletes[spec].discard(key)
        self.upserts[spec][key] = row

    def delete(self, spec: KindSpec, key: Key) -> None:
        self.upserts[spec].pop(key, None)
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
            deleted += spec.model.objects.filter(
                cluster_id=cluster_id, namespace=ns, name__in=names[i : i + BULK_SIZE]
            ).delete()[0]
    return deleted


def apply_changes(cluster_id: int, changes: Changes) -> None:
    """Write ``changes`` in one transaction; websocket clients hear of them after commit."""
    upserted: dict[KindSpec, list[KubeObject]] = {}
    deleted: dict[KindSpec, list[Key]] = {}
    with transaction.atomic():
        for spec in KINDS:
            keys = changes.deletes.get(spec)
            if keys:
                _delete_keys(spec, cluster_id, keys)
                deleted[spec] = sorted(keys)
            rows = list(changes.upserts.get(spec, {}).values())
            if rows:
                spec.model.objects.bulk_create(
                    rows,
                    batch_size=BULK_SIZE,
                    update_conflicts=True,
                    unique_fields=["cluster", "namespace", "name"],
                    update_fields=_update_fields(spec),
                )
                upserted[spec] = rows

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
    rows = spec.model.objects.filter(cluster_id=cluster_id).values_list(
        "namespace", "name", "resource_version"
    )
    return {(ns, name): rv for ns, name, rv in rows.iterator(chunk_size=5000)}
