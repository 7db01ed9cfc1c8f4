"""The api app: the versioned REST API, beside the pages at the top layer."""

from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "dashboard.api"
    label = "api"
    verbose_name = "REST API"
