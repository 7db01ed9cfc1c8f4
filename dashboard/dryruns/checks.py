"""``manage.py check``: the scheduler plugins this process is told to load do load."""

from __future__ import annotations

from typing import Any

from django.core.checks import Error, register

from dashboard import conf
from scheduler_engine.plugin_loader import PluginError


@register()
def scheduler_plugins_load(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    try:
        conf.engine_registry()
    except PluginError as exc:
        return [
            Error(
                f"SCHEDLAB_PLUGINS: {exc.one_line()}",
                hint="name installed classes as MODULE:CLASS, separated by commas",
                id="dryruns.E001",
            )
        ]
    return []
