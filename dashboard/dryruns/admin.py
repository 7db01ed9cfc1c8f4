"""Admin: the per-cluster apply target (where applying a profile writes its ConfigMap)."""

from __future__ import annotations

from django.contrib import admin

from .models import Application, ApplyTarget


@admin.register(ApplyTarget)
class ApplyTargetAdmin(admin.ModelAdmin):
    list_display = ("cluster", "enabled", "namespace", "name", "key")
    list_filter = ("enabled",)


@admin.register(Application)
class ApplicationAdmin(admin.ModelAdmin):
    list_display = ("cluster", "version", "applied_by", "applied_at", "configmap_status", "forced")
    list_filter = ("configmap_status", "forced")
    readonly_fields = [f.name for f in Application._meta.fields]
