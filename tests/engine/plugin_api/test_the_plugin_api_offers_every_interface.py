"""The plugin API re-exports every name of the extension-point interfaces."""

from __future__ import annotations

from scheduler_engine import plugin_api
from scheduler_engine.framework import interfaces


def test_every_interface_name_is_in_the_plugin_api():
    missing = [n for n in interfaces.__all__ if n not in plugin_api.__all__]
    assert missing == []
    for name in interfaces.__all__:
        assert getattr(plugin_api, name) is getattr(interfaces, name)


def test_the_plugin_api_names_are_all_importable_once():
    assert len(plugin_api.__all__) == len(set(plugin_api.__all__))
    namespace: dict[str, object] = {}
    exec("from scheduler_engine.plugin_api import *", namespace)
    assert set(plugin_api.__all__) <= set(namespace)
