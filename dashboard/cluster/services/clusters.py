"""Creating clusters and recording their mirror health."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from ..kube import KubeSource
from ..models import Cluster
from . import broadcast

__all__ = ["ensure_live_cluster", "ensure_snapshot_cluster", "kube_source", "record_health"]


def kube_source(cluster: Cluster) -> KubeSource:
    return KubeSource(
        kubeconfig=cluster.kubeconfig_path,
        context=cluster.kube_context,
        in_cluster=cluster.source == Cluster.Source.IN_CLUSTER,
    )


def ensure_live_cluster(
    name: str, *, kubeconfig: str = "", context: str = "", in_cluster: bool = False
) -> Cluster:
    """Create or update a live cluster's source; mirrored objects are kept."""
    source = Cluster.Source.IN_CLUSTER if in_cluster else Cluster.Source.KUBECONFIG
    cluster, _ = Cluster.objects.update_or_create(
        name=name,
        defaults={"source": source, "kubeconfig_path": kubeconfig, "kube_context": context},
    )
    return cluster


def ensure_snapshot_cluster(name: str, path: str) -> Cluster:
    cluster, _ = Cluster.objects.update_or_create(
        name=name, defaults={"source": Cluster.Source.SNAPSHOT, "snapshot_path": path}
    )
    return cluster


def record_health(cluster_id: int, **fields: Any) -> None:
    """Write health columns (only those given) and tell the cluster's pages after commit."""
    with transaction.atomic():
        Cluster.objects.filter(pk=cluster_id).update(**fields)
        payload = {
            k: (v.isoformat() if hasattr(v, "isoformat") else v)
            for k, v in fields.items()
            if k != "resource_versions"
        }
        transaction.on_commit(lambda: broadcast.publish_health(cluster_id, payload))
