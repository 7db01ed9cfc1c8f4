"""The cluster app: mirrored cluster state, the kube boundary, the mirror, snapshots.

Its label is ``dashboard``: the name its tables (``dashboard_pod``, ...) and
migration records carry in every database.
"""

from __future__ import annotations

from django.apps import AppConfig


class ClusterConfig(AppConfig):
    name = "dashboard.cluster"
    label = "dashboard"
    verbose_name = "mirrored clusters"
    default_auto_field = "django.db.models.BigAutoField"
