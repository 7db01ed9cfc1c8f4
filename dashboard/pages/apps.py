"""The pages app: server-rendered pages, their websockets and template helpers."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _grant_admin_permissions(**kwargs: Any) -> None:
    # permissions exist only after migrate: the admin role gets its own then
    from dashboard.roles import grant_admin_permissions

    grant_admin_permissions()


class PagesConfig(AppConfig):
    name = "dashboard.pages"
    label = "pages"
    verbose_name = "pages"

    def ready(self) -> None:
        post_migrate.connect(_grant_admin_permissions, sender=self)
