"""The mirror's pod history as a Schedlab trace (JSON lines, ``docs/replay.md``).

The cluster's nodes as they are now, then every pod the mirror saw created in
the window (default: all it kept), with its deletion when it is gone and,
under ``observed``, the node it ran on and when it was bound.  Used by
``manage.py export_trace`` and by studies that replay a cluster's history.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, TextIO

from django.utils import timezone

from scheduler_engine.replay.trace import write_jsonl

from ..models import Cluster, Node, PodHistory

__all__ = ["write_history_trace"]


def write_history_trace(
    cluster: Cluster, out: TextIO, days: float | None = None
) -> tuple[int, int, int]:
    """Write the trace to ``out``; (nodes, pods, lines) written."""
    history = PodHistory.objects.filter(cluster=cluster)
    if days is not None:
        history = history.filter(created_at__gte=timezone.now() - timedelta(days=days))
    nodes = [n.obj for n in Node.objects.filter(cluster=cluster).order_by("name")]
    pods: list[tuple[Any, ...]] = []
    for h in history.order_by("created_at", "namespace", "name").iterator(chunk_size=2000):
        created = (h.created_at or h.first_seen).timestamp()
        deleted = h.deleted_at.timestamp() if h.deleted_at else None
        observed = (
            {"node": h.node_name, "boundTime": h.bound_at.timestamp()} if h.bound_at else None
        )
        pods.append((h.obj, created, deleted, observed))
    return len(nodes), len(pods), write_jsonl(nodes, pods, out)
