"""Admin: clusters (with their mirror health) and the objects mirrored from them."""

from __future__ import annotations

from django.contrib import admin

from . import models


@admin.register(models.Cluster)
class ClusterAdmin(admin.ModelAdmin):
    list_display = ("name", "source", "mirror_status", "connected", "last_event_at", "lag_seconds")
    readonly_fields = (
        "mirror_status",
        "connected",
        "last_event_at",
        "last_sync_at",
        "lag_seconds",
        "last_error",
        "last_error_at",
        "resource_versions",
        "unavailable_kinds",
    )


class KubeObjectAdmin(admin.ModelAdmin):
    list_filter = ("cluster",)
    search_fields = ("name", "namespace", "uid")
    list_select_related = ("cluster",)


@admin.register(models.Node)
class NodeAdmin(KubeObjectAdmin):
    list_display = ("name", "cluster", "ready", "unschedulable", "gpu_capacity", "gpu_allocatable")


@admin.register(models.Pod)
class PodAdmin(KubeObjectAdmin):
    list_display = ("name", "namespace", "cluster", "phase", "node_name", "gpu_requested")
    list_filter = ("cluster", "phase", "scheduler_name")


@admin.register(models.Namespace)
class NamespaceAdmin(KubeObjectAdmin):
    list_display = ("name", "cluster", "phase")


@admin.register(models.PriorityClass)
class PriorityClassAdmin(KubeObjectAdmin):
    list_display = ("name", "cluster", "value", "global_default")


@admin.register(models.PodDisruptionBudget)
class PodDisruptionBudgetAdmin(KubeObjectAdmin):
    list_display = ("name", "namespace", "cluster", "disruptions_allowed")


@admin.register(models.Event)
class EventAdmin(KubeObjectAdmin):
    list_display = ("involved_name", "involved_namespace", "cluster", "reason", "last_seen")


@admin.register(models.ExtraObject)
class ExtraObjectAdmin(KubeObjectAdmin):
    list_display = ("name", "kind", "namespace", "cluster")
    list_filter = ("cluster", "kind")
