"""Pending gangs on the mirrored cluster, diagnosed as jobs.

Every pending pod is scheduled on the warm state with the active profile (as
:func:`dashboard.explain.live.pending_messages` does) and the run's
``summary.gangs`` is read: per pod group (either API) how many members fit
and where, what blocks the rest counted by reason, and the quorum it lacks.
The fields are the engine's (``docs/gangs.md``); nothing is recomputed here.
"""

from __future__ import annotations

from typing import Any

from dashboard import conf
from dashboard.cluster.models import Cluster, Node
from dashboard.cluster.selectors import unplaced_objects
from dashboard.dryruns.selectors import active_document
from scheduler_engine.errors import InputError
from scheduler_engine.warm_cluster import WarmCluster

from .live import ENGINE_MESSAGES_MAX_NODES, ENGINE_MESSAGES_MAX_PENDING, _config, derived

__all__ = ["GangsUnavailable", "find_gang", "pending_gangs"]


class GangsUnavailable(Exception):
    """The cluster is too large to schedule within a request, or holds what the engine cannot read."""


def pending_gangs(cluster: Cluster) -> list[dict[str, Any]]:
    """Each pod group with pending members, as the engine's ``summary.gangs`` lists it.

    Sorted by ``name`` then ``api``; kept with the warm state until it
    changes. Raises :class:`GangsUnavailable` when the cluster is too large
    (more than ``ENGINE_MESSAGES_MAX_NODES`` nodes or
    ``ENGINE_MESSAGES_MAX_PENDING`` pending pods) or the engine cannot read it.
    """
    if Node.objects.filter(cluster=cluster).count() > ENGINE_MESSAGES_MAX_NODES:
        raise GangsUnavailable(
            f"{cluster.name} has more than {ENGINE_MESSAGES_MAX_NODES} nodes: "
            "its gangs are not worked out on request"
        )
    pods = unplaced_objects(cluster)
    if len(pods) > ENGINE_MESSAGES_MAX_PENDING:
        raise GangsUnavailable(
            f"{cluster.name} has more than {ENGINE_MESSAGES_MAX_PENDING} pending pods: "
            "its gangs are not worked out on request"
        )
    if not pods:
        return []
    document = active_document(cluster)

    def compute(warm: WarmCluster) -> list[dict[str, Any]] | str:
        if warm.rejected:
            return f"the engine cannot read every object of {cluster.name}"
        try:
            result = warm.schedule(pods, _config(document), registry=conf.engine_registry())
        except InputError as exc:
            return exc.one_line()
        gangs = result["summary"].get("gangs") or []
        return sorted(gangs, key=lambda g: (g["name"], g.get("api") or ""))

    out = derived(cluster, ("pending gangs", document), compute)
    if isinstance(out, str):
        raise GangsUnavailable(out)
    return out


def find_gang(
    cluster: Cluster, namespace: str, name: str, api: str | None = None
) -> dict[str, Any] | None:
    """One pending group by namespace and name (and API, when both kinds share the name)."""
    key = f"{namespace}/{name}"
    for g in pending_gangs(cluster):
        if g["name"] == key and (api is None or g.get("api") == api):
            return g
    return None
