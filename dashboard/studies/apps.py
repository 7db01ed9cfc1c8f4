"""The studies app: trace-replay studies run on Celery workers."""

from __future__ import annotations

from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "dashboard.studies"
    label = "studies"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "replay studies"
