"""The dry-runs app: scheduler profiles, their applications, and dry-runs on Celery workers."""

from __future__ import annotations

from django.apps import AppConfig


class DryRunsConfig(AppConfig):
    name = "dashboard.dryruns"
    label = "dryruns"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "profiles and dry-runs"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the plugin check)
