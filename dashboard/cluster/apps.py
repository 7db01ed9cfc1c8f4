"""The cluster app: mirrored cluster state, the kube boundary, the mirror, snapshots.

Its label stays ``dashboard`` (the app's name before the apps were split), so
existing databases keep their tables (``dashboard_pod``, ...) and migrations.
"""

from __future__ import annotations

from django.apps import AppConfig


class ClusterConfig(AppConfig):
    name = "dashboard.cluster"
    label = "dashboard"
    verbose_name = "mirrored clusters"
    default_auto_field = "django.db.models.BigAutoField"
