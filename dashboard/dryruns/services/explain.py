"""Live explanation of one pod: the engine over the mirrored state with the active profile.

The running state comes warm from :mod:`.warm` (parsed once per process, then
brought up to date from the rows that changed); the engine schedules only the
pod asked about, with explanations, on that state.
"""

from __future__ import annotations

import functools
from typing import Any

from dashboard.cluster.models import Cluster, Pod
from scheduler_engine import SchedulerConfig, default_config
from scheduler_engine.errors import InputError

from .errors import BadInput
from .profiles import parse_config
from .warm import warm_cluster

__all__ = ["explain_pod"]


@functools.lru_cache(maxsize=16)
def _config(document: str | None) -> SchedulerConfig:
    # versions are immutable, so the active document's parse can be reused
    return parse_config(document) if document else default_config()


def explain_pod(
    cluster: Cluster, namespace: str, name: str, document: str | None
) -> dict[str, Any]:
    """The scheduler's message and per-node, per-plugin record for one pod, now."""
    row = (
        Pod.objects.filter(cluster=cluster, namespace=namespace, name=name)
        .only("node_name", "obj")
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
    config = _config(document)
    warm = warm_cluster(cluster)
    try:
        return warm.explain_pod(row.obj, config)
    except InputError as exc:
        raise BadInput.one("pod", exc.one_line()) from None
