"""The ``dryruns`` app (profiles, dry-runs, applies); starts the explanation prewarm."""

from __future__ import annotations

from django.apps import AppConfig


class DryRunsConfig(AppConfig):
    name = "dashboard.dryruns"
    label = "dryruns"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "profiles and dry-runs"

    def ready(self) -> None:
        # warm explanation state built in the background by web and worker processes
        from . import prewarm

        prewarm.install()
