"""DefaultNormalizeScore (upstream helper/normalize_score_test.go), Go division and the
node-signature table behind the batch paths."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_engine.framework.interfaces import MAX_NODE_SCORE, NodeScore
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.gocompat import go_div, go_div_array
from scheduler_engine.plugins.helper import (
    SIGNATURES_KEY,
    NodeSignatures,
    default_normalize_score,
    default_normalize_scores_array,
    signatures_for,
)
from tests.engine.builders import make_node

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


@pytest.mark.parametrize(
    ("reverse", "scores", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_default_normalize_scores_array(
    reverse: bool, scores: list[int], expected: list[int]
) -> None:
    arr = np.array(scores, dtype=np.int64)
    default_normalize_scores_array(MAX_NODE_SCORE, reverse, arr)
    assert arr.tolist() == expected


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.integers(min_value=0, max_value=10**6), max_size=20),
    reverse=st.booleans(),
    max_priority=st.sampled_from([10, 100]),
)
def test_array_normalize_equals_list_normalize(
    scores: list[int], reverse: bool, max_priority: int
) -> None:
    node_scores = [NodeScore(f"n{i}", s) for i, s in enumerate(scores)]
    default_normalize_score(max_priority, reverse, node_scores)
    arr = np.array(scores, dtype=np.int64)
    default_normalize_scores_array(max_priority, reverse, arr)
    assert arr.tolist() == [s.score for s in node_scores]


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
    assert go_div_array(np.array([a], dtype=np.int64), b).tolist() == [q]
    assert go_div_array(np.array([a], dtype=np.int64), np.array([b])).tolist() == [q]


# -- node signatures (the batch paths' shared table) ---------------------------------


class _Handle:
    def __init__(self, snap: Snapshot) -> None:
        self._snap = snap

    def snapshot(self) -> Snapshot:
        return self._snap


def _snap() -> Snapshot:
    return Snapshot(
        [
            make_node("a").labels(pool="cpu").node(),
            make_node("b").labels(pool="cpu").node(),
            make_node("c").labels(pool="gpu").taint("gpu", "", "NoSchedule").node(),
            make_node("d").labels(pool="gpu").taint("gpu", "", "NoSchedule").unschedulable().node(),
        ]
    )


def test_nodes_differing_only_in_hostname_share_a_label_signature() -> None:
    tab = NodeSignatures(_snap().node_info_list)
    assert tab.label_ids.tolist() == [0, 0, 1, 1]
    assert tab.taint_ids.tolist() == [0, 0, 1, 1]
    assert tab.unschedulable.tolist() == [False, False, False, True]


def test_the_table_is_built_once_per_snapshot() -> None:
    snap = _snap()
    handle = _Handle(snap)
    tab, rows = signatures_for(handle, snap.node_info_list)
    assert snap.extensions[SIGNATURES_KEY] is tab
    assert rows.tolist() == [0, 1, 2, 3]
    again, sub = signatures_for(handle, [snap.node_info_list[3], snap.node_info_list[1]])
    assert again is tab
    assert sub.tolist() == [3, 1]


def test_clones_map_to_their_rows() -> None:
    snap = _snap()
    clones = [ni.clone() for ni in snap.node_info_list[2:]]
    tab, rows = signatures_for(_Handle(snap), clones)
    assert tab is snap.extensions[SIGNATURES_KEY]
    assert rows.tolist() == [2, 3]


def test_foreign_nodes_get_a_table_of_their_own() -> None:
    snap = _snap()
    foreign = [NodeInfo(make_node("x").node(), 0)]
    tab, rows = signatures_for(_Handle(snap), foreign)
    assert tab is not snap.extensions.get(SIGNATURES_KEY)
    assert tab.names == ["x"] and rows.tolist() == [0]
