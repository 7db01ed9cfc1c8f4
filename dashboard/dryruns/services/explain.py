"""Live explanation of one pod: the engine over the mirrored state with the active profile.

Building the engine's cluster from 50,000 stored pods takes seconds, so each
process keeps the last built state per cluster and reuses it while the
mirror has not written anything since (a cheap fingerprint query).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max

from dashboard.kinds import KINDS
from dashboard.models import Cluster, Pod
from scheduler_engine import ClusterState, build_cluster, default_config, simulate
from scheduler_engine.errors import InputError

from .errors import BadInput
from .profiles import parse_config

__all__ = ["explain_pod"]


@dataclass(slots=True)
class _Warm:
    fingerprint: tuple
    state: ClusterState


_cache: dict[int, _Warm] = {}
_lock = threading.Lock()


def _fingerprint(cluster: Cluster) -> tuple:
    parts = []
    for spec in KINDS:
        if spec.kind == "Event":
            continue
        agg = spec.model.objects.filter(cluster=cluster).aggregate(
            n=Count("id"), t=Max("updated_at")
        )
        parts.append((spec.kind, agg["n"], agg["t"]))
    return tuple(parts)


def _running_state(cluster: Cluster) -> ClusterState:
    fp = _fingerprint(cluster)
    with _lock:
        warm = _cache.get(cluster.pk)
        if warm is not None and warm.fingerprint == fp:
            return warm.state
    objects: list[dict[str, Any]] = []
    for spec in KINDS:
        if spec.kind == "Event":
            continue
        qs = spec.model.objects.filter(cluster=cluster)
        if spec.model is Pod:
            qs = qs.exclude(node_name="")
        for obj in qs.values_list("obj", flat=True).iterator(chunk_size=5000):
            obj.setdefault("kind", spec.kind)
            objects.append(obj)
    state = build_cluster(objects, source=f"cluster {cluster.name}")
    with _lock:
        _cache[cluster.pk] = _Warm(fp, state)
    return state


def explain_pod(
    cluster: Cluster, namespace: str, name: str, document: str | None
) -> dict[str, Any]:
    """The scheduler's message and per-node, per-plugin record for one pod, now."""
    row = Pod.objects.filter(cluster=cluster, namespace=namespace, name=name).first()
    if row is None:
        raise Pod.DoesNotExist(f"pod {namespace}/{name} not found in cluster {cluster.name}")
    config = parse_config(document) if document else default_config()
    base = _running_state(cluster)
    pod_obj = dict(row.obj)
    pod_obj.setdefault("kind", "Pod")
    if row.node_name:
        return {
            "pod": f"{namespace}/{name}",
            "status": "Bound",
            "node": row.node_name,
            "message": f"already bound to {row.node_name}",
        }
    try:
        pending = build_cluster([pod_obj], source="pod").pods
    except InputError as exc:
        raise BadInput.one("pod", exc.one_line()) from None
    state = ClusterState(
        nodes=base.nodes,
        pods=[*base.pods, *pending],
        priority_classes=base.priority_classes,
        pdbs=base.pdbs,
        namespaces={**base.namespaces, namespace: base.namespaces.get(namespace, {})},
        objects=base.objects,
        source=base.source,
    )
    result = simulate(state, config, explain=True).to_dict()
    out = result["results"][0] if result["results"] else {"pod": f"{namespace}/{name}"}
    out["summary"] = result["summary"]
    return out
