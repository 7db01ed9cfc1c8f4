"""Snapshot import and export in the engine's format (what `kubectl get -o yaml` prints)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scheduler_engine.documents import read_objects

from ..kinds import KINDS, MalformedObject, describe, object_key, spec_of, to_row
from ..models import Cluster
from .cluster_state import Changes, apply_changes, known_versions
from .clusters import ensure_snapshot_cluster

__all__ = [
    "ImportResult",
    "export_snapshot",
    "import_objects",
    "import_snapshot",
    "iter_snapshot_objects",
]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class ImportResult:
    cluster: Cluster
    counts: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # one reason per skipped object


def import_objects(cluster: Cluster, objects: list[dict[str, Any]]) -> ImportResult:
    """Make the cluster's stored state exactly ``objects`` (unknown kinds skipped)."""
    result = ImportResult(cluster)
    changes = Changes()
    seen: dict[Any, set] = {spec: set() for spec in KINDS}
    for obj in objects:
        spec = spec_of(obj)
        if spec is None:
            reason = f"{describe(obj) if isinstance(obj, dict) else repr(obj)}: kind not mirrored"
            result.skipped.append(reason)
            continue
        try:
            key = object_key(spec, obj)
            seen[spec].add(key)
            changes.upsert(spec, to_row(spec, cluster.pk, obj))
        except MalformedObject as exc:
            log.warning("skipping malformed object: %s", exc)
            result.skipped.append(str(exc))
            continue
        result.counts[spec.key] = result.counts.get(spec.key, 0) + 1
    for spec in KINDS:
        for key in known_versions(cluster.pk, spec).keys() - seen[spec]:
            changes.delete(spec, key)
    apply_changes(cluster.pk, changes)
    return result


def import_snapshot(path: str | Path, cluster_name: str) -> ImportResult:
    """Load a snapshot file or directory into the named cluster, replacing its state.

    Raises ``scheduler_engine.errors.InputError`` for a file that does not parse.
    """
    objects = read_objects(path)
    cluster = ensure_snapshot_cluster(cluster_name, str(path))
    return import_objects(cluster, objects)


def iter_snapshot_objects(cluster: Cluster) -> Iterator[dict[str, Any]]:
    """The cluster's objects in :func:`export_snapshot`'s order, read in chunks from the database."""
    for spec in KINDS:
        for obj in (
            spec.rows()
            .filter(cluster=cluster)
            .order_by("namespace", "name")
            .values_list("obj", flat=True)
            .iterator(chunk_size=2000)
        ):
            obj.setdefault("kind", spec.kind)
            obj.setdefault("apiVersion", spec.api_version)
            yield obj


def export_snapshot(cluster: Cluster) -> dict[str, Any]:
    """The cluster as a ``kind: List``, loadable by the engine and by kubectl."""
    items = list(iter_snapshot_objects(cluster))
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}
