"""TaintToleration (upstream tainttoleration/taint_toleration_test.go).

The comparison-operator cases of upstream's table need the alpha gate
TaintTolerationComparisonOperators; v1.36 runs with it off, so here a ``Gt``
or ``Lt`` toleration tolerates nothing.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.interfaces import NodeScore
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import tainttoleration
from tests.engine.builders import make_node, make_pod

UNTOLERATED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) had untolerated taint(s)")
PNS, NS, NE = "PreferNoSchedule", "NoSchedule", "NoExecute"


class _Handle:
    def __init__(self, snap: Snapshot) -> None:
        self._snap = snap

    def snapshot(self) -> Snapshot:
        return self._snap


def _pod(*tolerations: dict):
    b = make_pod("pod1")
    b.set("spec.tolerations", list(tolerations))
    return b.pod()


def _node(name: str, *taints: tuple[str, str, str]):
    b = make_node(name)
    b.set("spec.taints", [{"key": k, "value": v, "effect": e} for k, v, e in taints])
    return b.node()


def _tol(key: str = "", value: str = "", effect: str = "", operator: str = "") -> dict:
    return {"key": key, "value": value, "effect": effect, "operator": operator}


# -- Filter -------------------------------------------------------------------------

FILTER_CASES = [
    ("no_tolerations_against_a_taint", _pod(), [("dedicated", "user1", NS)], UNTOLERATED),
    (
        "matching_toleration",
        _pod(_tol("dedicated", "user1", NS)),
        [("dedicated", "user1", NS)],
        None,
    ),
    (
        "equal_toleration_other_value",
        _pod(_tol("dedicated", "user2", NS, "Equal")),
        [("dedicated", "user1", NS)],
        UNTOLERATED,
    ),
    (
        "exists_toleration",
        _pod(_tol("foo", effect=NS, operator="Exists")),
        [("foo", "bar", NS)],
        None,
    ),
    (
        "all_taints_tolerated",
        _pod(_tol("dedicated", "user2", NS, "Equal"), _tol("foo", effect=NS, operator="Exists")),
        [("dedicated", "user2", NS), ("foo", "bar", NS)],
        None,
    ),
    (
        "toleration_effect_differs",
        _pod(_tol("foo", "bar", PNS, "Equal")),
        [("foo", "bar", NS)],
        UNTOLERATED,
    ),
    (
        "empty_effect_tolerates_all_effects",
        _pod(_tol("foo", "bar", "", "Equal")),
        [("foo", "bar", NS)],
        None,
    ),
    (
        "prefer_no_schedule_taint_is_not_filtered",
        _pod(_tol("dedicated", "user2", NS, "Equal")),
        [("dedicated", "user1", PNS)],
        None,
    ),
    ("prefer_no_schedule_without_tolerations", _pod(), [("dedicated", "user1", PNS)], None),
    ("no_execute_taint_is_filtered", _pod(), [("k", "v", NE)], UNTOLERATED),
    (
        "gt_toleration_tolerates_nothing_with_gate_off",
        _pod(_tol("node.kubernetes.io/sla", "750", NS, "Gt")),
        [("node.kubernetes.io/sla", "950", NS)],
        UNTOLERATED,
    ),
    (
        "lt_toleration_tolerates_nothing_with_gate_off",
        _pod(_tol("node.kubernetes.io/sla", "950", NS, "Lt")),
        [("node.kubernetes.io/sla", "800", NS)],
        UNTOLERATED,
    ),
    (
        "empty_key_exists_tolerates_everything",
        _pod(_tol(operator="Exists")),
        [("a", "b", NS), ("c", "", NE)],
        None,
    ),
]


@pytest.mark.parametrize(
    ("pod", "taints", "want"), [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES]
)
def test_filter(pod, taints, want) -> None:
    plugin = tainttoleration.new({}, None)  # type: ignore[arg-type]
    assert plugin.filter(CycleState(), pod, NodeInfo(_node("nodeA", *taints))) == want


# -- Score --------------------------------------------------------------------------

SCORE_CASES = [
    (
        "tolerated_taint_beats_intolerable_one",
        _pod(_tol("foo", "bar", PNS, "Equal")),
        {"nodeA": [("foo", "bar", PNS)], "nodeB": [("foo", "blah", PNS)]},
        {"nodeA": 100, "nodeB": 0},
    ),
    (
        "count_of_tolerated_taints_does_not_matter",
        _pod(_tol("cpu-type", "arm64", PNS, "Equal"), _tol("disk-type", "ssd", PNS, "Equal")),
        {
            "nodeA": [],
            "nodeB": [("cpu-type", "arm64", PNS)],
            "nodeC": [("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)],
        },
        {"nodeA": 100, "nodeB": 100, "nodeC": 100},
    ),
    (
        "more_intolerable_taints_score_lower",
        _pod(_tol("foo", "bar", PNS, "Equal")),
        {
            "nodeA": [],
            "nodeB": [("cpu-type", "arm64", PNS)],
            "nodeC": [("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)],
        },
        {"nodeA": 100, "nodeB": 50, "nodeC": 0},
    ),
    (
        "only_prefer_no_schedule_counts",
        _pod(_tol("cpu-type", "arm64", NS, "Equal"), _tol("disk-type", "ssd", NS, "Equal")),
        {
            "nodeA": [],
            "nodeB": [("cpu-type", "arm64", NS)],
            "nodeC": [("cpu-type", "arm64", PNS), ("disk-type", "ssd", PNS)],
        },
        {"nodeA": 100, "nodeB": 100, "nodeC": 0},
    ),
    (
        "no_tolerations_prefers_untainted_node",
        _pod(),
        {"nodeA": [], "nodeB": [("cpu-type", "arm64", PNS)]},
        {"nodeA": 100, "nodeB": 0},
    ),
    (
        "three_levels_truncate",
        _pod(),
        {
            "nodeA": [("a", "", PNS)],
            "nodeB": [("a", "", PNS), ("b", "", PNS)],
            "nodeC": [("a", "", PNS), ("b", "", PNS), ("c", "", PNS)],
        },
        {"nodeA": 67, "nodeB": 34, "nodeC": 0},
    ),
    (
        "gt_toleration_with_gate_off_counts_as_intolerable",
        _pod(_tol("node.kubernetes.io/sla", "950", PNS, "Gt")),
        {
            "nodeA": [("node.kubernetes.io/sla", "800", PNS)],
            "nodeB": [("node.kubernetes.io/sla", "999", PNS)],
        },
        # one intolerable taint each: equal counts, both reversed to 0
        {"nodeA": 0, "nodeB": 0},
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "want"), [c[1:] for c in SCORE_CASES], ids=[c[0] for c in SCORE_CASES]
)
def test_score(pod, nodes: dict, want: dict[str, int]) -> None:
    snap = Snapshot([_node(n, *t) for n, t in nodes.items()])
    plugin = tainttoleration.new({}, _Handle(snap))  # type: ignore[arg-type]
    state = CycleState()
    infos = snap.node_info_list
    assert plugin.pre_score(state, pod, infos) is None
    scores = [NodeScore(ni.name, plugin.score(state, pod, ni)) for ni in infos]
    raw = [s.score for s in scores]
    assert plugin.score_batch(state, pod, infos).tolist() == raw
    batch = np.array([s.score for s in scores], dtype=np.int64)
    plugin.score_extensions().normalize_score_batch(state, pod, batch)
    assert plugin.score_extensions().normalize_score(state, pod, scores) is None
    assert {s.name: s.score for s in scores} == want
    assert batch.tolist() == [s.score for s in scores]


def test_score_without_prescore_is_an_error() -> None:
    got = tainttoleration.TaintToleration().score(CycleState(), _pod(), NodeInfo(_node("n")))
    assert isinstance(got, Status) and got.code == Code.ERROR


def test_filter_reason_does_not_name_the_taint() -> None:
    got = tainttoleration.TaintToleration().filter(
        CycleState(), _pod(), NodeInfo(_node("n", ("gpu", "a100", NS)))
    )
    assert got is not None and got.reasons == ("node(s) had untolerated taint(s)",)


# -- batch paths == per-node paths ------------------------------------------------------

KEYS = ["a", "b", "gpu"]
VALUES = ["", "x", "y"]
EFFECTS = [NS, PNS, NE]
OPERATORS = ["", "Equal", "Exists", "Gt"]

taint_st = st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES), st.sampled_from(EFFECTS))
tol_st = st.builds(
    _tol,
    key=st.sampled_from(["", *KEYS]),
    value=st.sampled_from(VALUES),
    effect=st.sampled_from(["", *EFFECTS]),
    operator=st.sampled_from(OPERATORS),
)


def _unique_taints(taints: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    # the API server refuses two taints with the same key and effect
    seen: dict[tuple[str, str], tuple[str, str, str]] = {}
    for t in taints:
        seen.setdefault((t[0], t[2]), t)
    return list(seen.values())


@settings(max_examples=150, deadline=None)
@given(
    node_taints=st.lists(st.lists(taint_st, max_size=3), min_size=1, max_size=10),
    tolerations=st.lists(tol_st, max_size=3),
)
def test_batch_equals_per_node(node_taints, tolerations) -> None:
    nodes = [_node(f"n{i}", *_unique_taints(t)) for i, t in enumerate(node_taints)]
    snap = Snapshot(nodes)
    plugin = tainttoleration.new({}, _Handle(snap))  # type: ignore[arg-type]
    pod = _pod(*tolerations)
    state = CycleState()
    infos = snap.node_info_list
    want_filter = [plugin.filter(state, pod, ni) is None for ni in infos]
    assert plugin.filter_batch(state, pod, infos).tolist() == want_filter
    plugin.pre_score(state, pod, infos)
    want_score = [plugin.score(state, pod, ni) for ni in infos]
    assert plugin.score_batch(state, pod, infos).tolist() == want_score
    # a subset in another order, and clones (as preemption makes) map too
    subset = [ni.clone() for ni in reversed(infos[1:])]
    assert plugin.filter_batch(state, pod, subset).tolist() == want_filter[1:][::-1]
    assert plugin.score_batch(state, pod, subset).tolist() == want_score[1:][::-1]


def test_batch_without_snapshot_handle() -> None:
    plugin = tainttoleration.TaintToleration()
    infos = [NodeInfo(_node("a", ("k", "", NS))), NodeInfo(_node("b"))]
    assert np.array_equal(plugin.filter_batch(CycleState(), _pod(), infos), [False, True])
