"""The pages app: server-rendered pages, their websockets and template helpers."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


class PagesConfig(AppConfig):
    name = "dashboard.pages"
    label = "pages"
    verbose_name = "pages"

    def ready(self) -> None:
        # permissions exist only after migrate: the admin role gets its own then
        from dashboard.roles import grant_admin_permissions

        def grant(**kwargs: Any) -> None:
            grant_admin_permissions()

        post_migrate.connect(grant, sender=self, weak=False, dispatch_uid="pages.grant_admin")
