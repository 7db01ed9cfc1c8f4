"""Start a dry-run of one pending pod: the cluster's running state plus just that pod."""

from __future__ import annotations

from typing import Any

from dashboard.cluster.models import Cluster, Pod
from dashboard.cluster.services.snapshots import iter_snapshot_objects
from dashboard.dryruns.models import DryRun, ProfileVersion
from dashboard.dryruns.services.dryruns import create_dry_run
from scheduler_engine.whatif.patch import apply_patch

__all__ = ["start_pod_dry_run"]


def start_pod_dry_run(
    cluster: Cluster,
    namespace: str,
    name: str,
    version: ProfileVersion | None,
    *,
    hardware_view: bool = False,
    cascade_depth: int = 0,
    user: Any = None,
    fix: dict[str, Any] | None = None,
    moves: Any = None,
) -> DryRun:
    """Queue the run; other pending pods are left out so the result is about this pod alone.

    ``fix``, one of the engine's verified changes for the pod (``fixes``), is made
    first: the pod patched, the pods it frees left out, or the node it adds added;
    a ``move`` fix's moves (or ``moves`` given alone) are applied before the pod
    is scheduled.
    """
    if not Pod.objects.filter(cluster=cluster, namespace=namespace, name=name).exists():
        raise LookupError(f"pod {namespace}/{name} is not in cluster {cluster.name}")
    kind = (fix or {}).get("kind")
    freed = {e.get("pod") for e in (fix or {}).get("evict") or ()}
    items = []
    for obj in iter_snapshot_objects(cluster):
        if obj.get("kind") == "Pod":
            meta = obj.get("metadata") or {}
            this = (meta.get("namespace"), meta.get("name")) == (namespace, name)
            waiting = not (obj.get("spec") or {}).get("nodeName")
            if waiting and not this:
                continue
            if f"{meta.get('namespace')}/{meta.get('name')}" in freed:
                continue
            if this and fix is not None and kind != "node" and fix.get("patch"):
                obj = apply_patch(obj, fix["patch"])
        if obj.get("kind") == "Event":
            continue
        items.append(obj)
    if kind == "node" and fix is not None and fix.get("patch"):
        items.append(fix["patch"])
    if kind == "move" and fix is not None:
        moves = fix.get("moves")
    return create_dry_run(
        cluster,
        profile_version=version,
        source=DryRun.Source.SNAPSHOT,
        snapshot=items,
        explain=True,
        hardware_view=hardware_view,
        cascade_depth=cascade_depth,
        moves=moves,
        user=user,
    )
