"""Celery tasks: primitive arguments, idempotent, one service call each.

Task names are fixed, not derived from this module's path, so that messages
queued by a process of another version still find their task.
"""

from __future__ import annotations

from celery import shared_task

from .kinds import KINDS
from .models import Cluster
from .services.snapshots import import_snapshot


@shared_task(name="dashboard.tasks.import_snapshot_task")
def import_snapshot_task(path: str, cluster_name: str) -> dict[str, int]:
    """Load a snapshot into a cluster (replaces its state, so re-running is harmless)."""
    return import_snapshot(path, cluster_name).counts


@shared_task(name="dashboard.tasks.cluster_object_count")
def cluster_object_count(cluster_name: str) -> int:
    """Tiny read used to check that a worker reaches the database."""
    cluster = Cluster.objects.get(name=cluster_name)
    return sum(spec.rows().filter(cluster=cluster).count() for spec in KINDS)
