"""BasePlugin answers the extension questions from the plugin's methods; HandlePlugin builds it."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.framework.interfaces import BasePlugin
from scheduler_engine.framework.registry import default_registry
from scheduler_engine.plugins.helper import HandlePlugin

# in-tree plugins whose extensions are the plugin itself, as each wrote it out by hand
PRE_FILTER_EXTENDED = {"InterPodAffinity", "PodTopologySpread", "VolumeRestrictions"}
SCORE_EXTENDED = {
    "BestFitScore",
    "DynamicResources",
    "InterPodAffinity",
    "NodeAffinity",
    "PodTopologySpread",
    "TaintToleration",
}
PLACEMENT_SCORE_EXTENDED = {"PodGroupPodsCount"}


class _Plain(BasePlugin):
    NAME = "Plain"

    def score(self, state: Any, pod: Any, node_info: Any) -> int:
        return 0


class _Extended(_Plain):
    def add_pod(self, *args: Any) -> None:
        return None

    def remove_pod(self, *args: Any) -> None:
        return None

    def normalize_score(self, *args: Any) -> None:
        return None

    def normalize_placement_score(self, *args: Any) -> None:
        return None


def test_a_plugin_without_the_extension_methods_has_no_extensions() -> None:
    p = _Plain()
    assert p.pre_filter_extensions() is None
    assert p.score_extensions() is None
    assert p.placement_score_extensions() is None


def test_a_plugin_with_the_extension_methods_is_its_own_extensions() -> None:
    p = _Extended()
    assert p.pre_filter_extensions() is p
    assert p.score_extensions() is p
    assert p.placement_score_extensions() is p


def test_handle_plugin_new_keeps_the_handle_and_ignores_the_args() -> None:
    class _Kept(HandlePlugin):
        NAME = "Kept"

    handle: Any = object()
    p = _Kept.new({"ignored": 1}, handle)
    assert isinstance(p, _Kept)
    assert p.handle is handle
    assert _Kept().handle is None


@pytest.mark.parametrize("name", default_registry().names())
def test_each_in_tree_plugin_answers_its_extensions_as_before(name: str) -> None:
    p = default_registry().factory(name)({}, None)
    for method, extended in (
        ("pre_filter_extensions", PRE_FILTER_EXTENDED),
        ("score_extensions", SCORE_EXTENDED),
        ("placement_score_extensions", PLACEMENT_SCORE_EXTENDED),
    ):
        answer = getattr(p, method, lambda: None)()
        assert answer is (p if name in extended else None), method
