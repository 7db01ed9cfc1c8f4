"""The explain app: no models; starts the warm state's build when a server process starts."""

from __future__ import annotations

from django.apps import AppConfig


class ExplainConfig(AppConfig):
    name = "dashboard.explain"
    label = "explain"
    verbose_name = "explanations"

    def ready(self) -> None:
        # models are loaded only now, and prewarm reads them
        from . import prewarm

        prewarm.install()
