"""Reads: what pages, consumers and the API show. No writes here."""

from __future__ import annotations

from django.db.models import Count, QuerySet, Sum

from .models import Cluster, Event, Node, Pod

__all__ = ["cluster_summary", "clusters", "failed_scheduling_events", "get_cluster", "pending_pods"]


def clusters() -> QuerySet[Cluster]:
    return Cluster.objects.all()


def get_cluster(name: str) -> Cluster:
    return Cluster.objects.get(name=name)


def pending_pods(cluster: Cluster) -> QuerySet[Pod]:
    """Pods waiting for a node, longest-waiting first."""
    return Pod.objects.filter(cluster=cluster, phase="Pending", node_name="").order_by(
        "pending_since", "namespace", "name"
    )


def failed_scheduling_events(cluster: Cluster, namespace: str, name: str) -> QuerySet[Event]:
    return Event.objects.filter(
        cluster=cluster, involved_namespace=namespace, involved_name=name
    ).order_by("-last_seen")


def cluster_summary(cluster: Cluster) -> dict[str, int]:
    nodes = Node.objects.filter(cluster=cluster).aggregate(
        nodes=Count("id"), gpu_capacity=Sum("gpu_capacity"), gpu_allocatable=Sum("gpu_allocatable")
    )
    pods = Pod.objects.filter(cluster=cluster)
    return {
        "nodes": nodes["nodes"] or 0,
        "gpu_capacity": nodes["gpu_capacity"] or 0,
        "gpu_allocatable": nodes["gpu_allocatable"] or 0,
        "pods": pods.count(),
        "pending": pods.filter(phase="Pending", node_name="").count(),
        "gpu_requested": pods.exclude(node_name="")
        .exclude(phase__in=["Succeeded", "Failed"])
        .aggregate(s=Sum("gpu_requested"))["s"]
        or 0,
    }
