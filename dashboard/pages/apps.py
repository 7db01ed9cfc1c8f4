"""The pages app: server-rendered pages, their websockets and template helpers."""

from __future__ import annotations

from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "dashboard.pages"
    label = "pages"
    verbose_name = "pages"
