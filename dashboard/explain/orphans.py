"""Pending pods nobody will schedule, read off the mirror, and the cluster's declarations.

The engine (``scheduler_engine.orphans``) judges; this module only reads the
pending pods, the names of PodGroups, claim templates and claims, the active
profile's scheduler names and the cluster's declarations, and stores new
declarations after the engine's checks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Any

from django.db.models import Q, QuerySet

from dashboard.cluster.models import Cluster, ExtraObject, Pod
from dashboard.dryruns.services.errors import BadInput
from dashboard.explain.live import active_config
from scheduler_engine.objects.podgroup import NATIVE_API_VERSION
from scheduler_engine.orphans import (
    COSCHEDULING_GROUP,
    COSCHEDULING_LABEL,
    declaration_errors,
    find_orphans,
)

__all__ = ["orphans_of_pod", "settings_of", "unschedulable", "update_settings"]

# stored kind → the apiVersion the engine tells the groups apart by
_KINDS = {
    "PodGroup": NATIVE_API_VERSION,
    f"PodGroup.{COSCHEDULING_GROUP}": f"{COSCHEDULING_GROUP}/v1alpha1",
    "ResourceClaimTemplate": "resource.k8s.io/v1",
    "ResourceClaim": "resource.k8s.io/v1",
}


def settings_of(cluster: Cluster) -> dict[str, list[str]]:
    return {
        "declaredSchedulers": list(cluster.declared_schedulers or []),
        "gateControllers": list(cluster.gate_controllers or []),
    }


def update_settings(cluster: Cluster, data: Any) -> dict[str, list[str]]:
    """Replace the declarations given (either or both); BadInput naming the field otherwise."""
    if not isinstance(data, dict):
        raise BadInput.one("non_field_errors", "must be an object")
    unknown = sorted(set(data) - {"declaredSchedulers", "gateControllers"})
    if unknown:
        raise BadInput({k: ["is not a setting"] for k in unknown})
    current = settings_of(cluster)
    merged = {**current, **data}
    errors = declaration_errors(merged["declaredSchedulers"], merged["gateControllers"])
    if errors:
        raise BadInput(errors)
    cluster.declared_schedulers = list(dict.fromkeys(merged["declaredSchedulers"]))
    cluster.gate_controllers = list(dict.fromkeys(merged["gateControllers"]))
    cluster.save(update_fields=["declared_schedulers", "gate_controllers"])
    return settings_of(cluster)


def _objects(cluster: Cluster, namespace: str | None = None) -> list[dict[str, Any]]:
    qs = ExtraObject.objects.filter(cluster=cluster, kind__in=list(_KINDS))
    if namespace is not None:
        qs = qs.filter(namespace=namespace)
    rows = qs.values_list("kind", "namespace", "name")
    return [
        {
            "apiVersion": _KINDS[kind],
            "kind": kind.split(".", 1)[0],
            "metadata": {"namespace": ns, "name": name},
        }
        for kind, ns, name in rows
    ]


def _candidates(cluster: Cluster, served: Collection[str]) -> QuerySet[Pod]:
    """Pending pods that may be orphans: the database drops the others before any JSON is read."""
    may = (
        ~Q(scheduler_name__in=list(served))
        | Q(obj__spec__has_key="schedulingGates")
        | Q(obj__spec__has_key="resourceClaims")
        | Q(obj__spec__has_key="schedulingGroup")
        | Q(obj__metadata__labels__has_key=COSCHEDULING_LABEL)
    )
    return Pod.objects.filter(cluster=cluster, phase="Pending", node_name="").filter(may)


def unschedulable(cluster: Cluster) -> dict[str, Any]:
    """The orphans of the cluster's pending pods, what was judged known, and counts by reason."""
    profiles = [p.scheduler_name for p in active_config(cluster).profiles]
    settings = settings_of(cluster)
    served = {*profiles, *settings["declaredSchedulers"]}
    pods = _candidates(cluster, served).order_by("namespace", "name")
    found = find_orphans(
        (obj for obj in pods.values_list("obj", flat=True).iterator(chunk_size=500)),
        _objects(cluster),
        served_schedulers=served,
        gate_controllers=settings["gateControllers"],
    )
    return {
        "profiles": profiles,
        **settings,
        "counts": dict(sorted(Counter(o.reason for o in found).items())),
        "pods": len({o.pod for o in found}),
        "orphans": [o.to_dict() for o in found],
    }


def orphans_of_pod(cluster: Cluster, pod: Pod) -> list[dict[str, str]]:
    """The findings of one pod (none for a pod on a node)."""
    settings = settings_of(cluster)
    profiles = [p.scheduler_name for p in active_config(cluster).profiles]
    found = find_orphans(
        [pod.obj],
        _objects(cluster, pod.namespace),
        served_schedulers={*profiles, *settings["declaredSchedulers"]},
        gate_controllers=settings["gateControllers"],
    )
    return [o.to_dict() for o in found]
