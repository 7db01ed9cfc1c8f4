"""DefaultNormalizeScore (upstream helper/normalize_score_test.go) and Go division."""

from __future__ import annotations

import pytest

from scheduler_engine.framework.interfaces import MAX_NODE_SCORE, NodeScore
from scheduler_engine.plugins.helper import default_normalize_score, go_div

CASES = [
    ("proportional", False, [1, 2, 3, 4], [25, 50, 75, 100]),
    ("proportional_reversed", True, [1, 2, 3, 4], [75, 50, 25, 0]),
    ("truncates_toward_zero", False, [1000, 10, 20, 30], [100, 1, 2, 3]),
    ("truncates_then_reverses", True, [1000, 10, 20, 30], [0, 99, 98, 97]),
    ("all_equal_become_max", False, [1, 1, 1, 1], [100, 100, 100, 100]),
    ("small_against_large_become_zero", False, [1000, 1, 1, 1], [100, 0, 0, 0]),
    ("zero_reversed_is_max", True, [0, 1, 1, 1], [100, 0, 0, 0]),
    ("all_zero_stay_zero", False, [0, 0, 0, 0], [0, 0, 0, 0]),
    ("all_zero_reversed_become_max", True, [0, 0, 0, 0], [100, 100, 100, 100]),
]


@pytest.mark.parametrize(
    ("reverse", "scores", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_default_normalize_score(reverse: bool, scores: list[int], expected: list[int]) -> None:
    node_scores = [NodeScore(f"n{i}", s) for i, s in enumerate(scores)]
    assert default_normalize_score(MAX_NODE_SCORE, reverse, node_scores) is None
    assert [s.score for s in node_scores] == expected


def test_it_keeps_node_names_and_order() -> None:
    node_scores = [NodeScore("b", 3), NodeScore("a", 6)]
    default_normalize_score(MAX_NODE_SCORE, False, node_scores)
    assert [(s.name, s.score) for s in node_scores] == [("b", 50), ("a", 100)]


@pytest.mark.parametrize(
    ("a", "b", "q"),
    [(7, 2, 3), (-7, 2, -3), (7, -2, -3), (-7, -2, 3), (0, 5, 0), (6, 3, 2)],
    ids=["pos_pos", "neg_pos", "pos_neg", "neg_neg", "zero", "exact"],
)
def test_go_div_truncates_toward_zero(a: int, b: int, q: int) -> None:
    assert go_div(a, b) == q
