"""NodeAffinity (upstream nodeaffinity/node_affinity_test.go)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.interfaces import NodeScore, PreFilterResult
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import nodeaffinity
from tests.engine.builders import make_node, make_pod

POD_REASON = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match Pod's node affinity/selector"
)
ENFORCED = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match scheduler-enforced node affinity"
)
CONFLICT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "pod affinity terms conflict")
SKIP = Status(Code.SKIP)


class _Handle:
    def __init__(self, snap: Snapshot) -> None:
        self._snap = snap

    def snapshot(self) -> Snapshot:
        return self._snap


def _expr(key: str, op: str, *values: str) -> dict[str, Any]:
    e: dict[str, Any] = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


def _name_in(*names: str) -> dict[str, Any]:
    return {"key": "metadata.name", "operator": "In", "values": list(names)}


def _term(*exprs: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {}
    if exprs:
        t["matchExpressions"] = list(exprs)
    if fields:
        t["matchFields"] = fields
    return t


def _required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}


def _pod(node_selector: dict[str, str] | None = None, node_affinity: dict | None = None):
    b = make_pod("p")
    if node_selector is not None:
        b.set("spec.nodeSelector", node_selector)
    if node_affinity is not None:
        b.set("spec.affinity", {"nodeAffinity": node_affinity})
    return b.pod()


def _node(name: str, labels: dict[str, str] | None = None):
    return make_node(name).labels(labels or {}).node()


def _added_required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"addedAffinity": _required(*terms)}


# (name, pod, node name, node labels, args, want PreFilter (result, status), want Filter)
FILTER_CASES = [
    ("missing_labels", _pod({"foo": "bar"}), "n", {}, {}, (None, None), POD_REASON),
    ("same_labels", _pod({"foo": "bar"}), "n", {"foo": "bar"}, {}, (None, None), None),
    (
        "node_labels_are_superset",
        _pod({"foo": "bar"}),
        "n",
        {"foo": "bar", "baz": "blah"},
        {},
        (None, None),
        None,
    ),
    (
        "node_labels_are_subset",
        _pod({"foo": "bar", "baz": "blah"}),
        "n",
        {"foo": "bar"},
        {},
        (None, None),
        POD_REASON,
    ),
    (
        "in_operator_matches",
        _pod(node_affinity=_required(_term(_expr("foo", "In", "bar", "value2")))),
        "n",
        {"foo": "bar"},
        {},
        (None, None),
        None,
    ),
    (
        "gt_operator_matches",
        _pod(node_affinity=_required(_term(_expr("kernel-version", "Gt", "0204")))),
        "n",
        {"kernel-version": "0206"},
        {},
        (None, None),
        None,
    ),
    (
        "not_in_operator_matches",
        _pod(node_affinity=_required(_term(_expr("mem-type", "NotIn", "DDR", "DDR2")))),
        "n",
        {"mem-type": "DDR3"},
        {},
        (None, None),
        None,
    ),
    (
        "exists_operator_matches",
        _pod(node_affinity=_required(_term(_expr("GPU", "Exists")))),
        "n",
        {"GPU": "NVIDIA-GRID-K1"},
        {},
        (None, None),
        None,
    ),
    (
        "affinity_not_matching_labels",
        _pod(node_affinity=_required(_term(_expr("foo", "In", "value1", "value2")))),
        "n",
        {"foo": "bar"},
        {},
        (None, None),
        POD_REASON,
    ),
    (
        "empty_match_expressions_match_nothing",
        _pod(node_affinity=_required({"matchExpressions": []})),
        "n",
        {"foo": "bar"},
        {},
        (None, None),
        POD_REASON,
    ),
    ("no_affinity_skips", _pod(), "n", {"foo": "bar"}, {}, (None, SKIP), None),
    (
        "affinity_without_required_skips",
        _pod(node_affinity={}),
        "n",
        {"foo": "bar"},
        {},
        (None, SKIP),
        None,
    ),
    (
        "anded_expressions_match",
        _pod(
            node_affinity=_required(
                _term(_expr("GPU", "Exists"), _expr("GPU", "NotIn", "AMD", "INTER"))
            )
        ),
        "n",
        {"GPU": "NVIDIA-GRID-K1"},
        {},
        (None, None),
        None,
    ),
    (
        "anded_expressions_do_not_match",
        _pod(
            node_affinity=_required(
                _term(_expr("GPU", "Exists"), _expr("GPU", "In", "AMD", "INTER"))
            )
        ),
        "n",
        {"GPU": "NVIDIA-GRID-K1"},
        {},
        (None, None),
        POD_REASON,
    ),
    (
        "ored_terms_one_matches",
        _pod(
            node_affinity=_required(
                _term(_expr("foo", "In", "bar", "value2")),
                _term(_expr("diffkey", "In", "wrong", "value2")),
            )
        ),
        "n",
        {"foo": "bar"},
        {},
        (None, None),
        None,
    ),
    (
        "affinity_and_node_selector_both_match",
        _pod({"foo": "bar"}, _required(_term(_expr("foo", "Exists")))),
        "n",
        {"foo": "bar"},
        {},
        (None, None),
        None,
    ),
    (
        "affinity_matches_but_node_selector_does_not",
        _pod({"foo": "bar"}, _required(_term(_expr("foo", "Exists")))),
        "n",
        {"foo": "barrrrrr"},
        {},
        (None, None),
        POD_REASON,
    ),
    (
        "match_fields_in_matches",
        _pod(node_affinity=_required(_term(fields=[_name_in("node1")]))),
        "node1",
        {},
        {},
        (PreFilterResult(frozenset({"node1"})), None),
        None,
    ),
    (
        "match_fields_in_does_not_match",
        _pod(node_affinity=_required(_term(fields=[_name_in("node1")]))),
        "node2",
        {},
        {},
        (PreFilterResult(frozenset({"node1"})), None),
        POD_REASON,
    ),
    (
        "two_terms_fields_miss_expressions_match",
        _pod(
            node_affinity=_required(
                _term(fields=[_name_in("node1")]), _term(_expr("foo", "In", "bar"))
            )
        ),
        "node2",
        {"foo": "bar"},
        {},
        (None, None),
        None,
    ),
    (
        "one_term_fields_miss_expressions_match",
        _pod(node_affinity=_required(_term(_expr("foo", "In", "bar"), fields=[_name_in("node1")]))),
        "node2",
        {"foo": "bar"},
        {},
        (PreFilterResult(frozenset({"node1"})), None),
        POD_REASON,
    ),
    (
        "one_term_fields_and_expressions_match",
        _pod(node_affinity=_required(_term(_expr("foo", "In", "bar"), fields=[_name_in("node1")]))),
        "node1",
        {"foo": "bar"},
        {},
        (PreFilterResult(frozenset({"node1"})), None),
        None,
    ),
    (
        "two_terms_neither_matches",
        _pod(
            node_affinity=_required(
                _term(fields=[_name_in("node1")]), _term(_expr("foo", "In", "not-match-to-bar"))
            )
        ),
        "node2",
        {"foo": "bar"},
        {},
        (None, None),
        POD_REASON,
    ),
    (
        "two_terms_of_node_name_union",
        _pod(
            node_affinity=_required(
                _term(fields=[_name_in("node1")]), _term(fields=[_name_in("node2")])
            )
        ),
        "node2",
        {},
        {},
        (PreFilterResult(frozenset({"node1", "node2"})), None),
        None,
    ),
    (
        "conflicting_match_fields_in_one_term",
        _pod(node_affinity=_required(_term(fields=[_name_in("node1"), _name_in("node2")]))),
        "node2",
        {},
        {},
        (None, CONFLICT),
        POD_REASON,
    ),
    (
        "matches_added_affinity_and_pod_affinity",
        _pod(node_affinity=_required(_term(_expr("zone", "In", "foo")))),
        "node2",
        {"zone": "foo"},
        _added_required(_term(fields=[_name_in("node2")])),
        (None, None),
        None,
    ),
    (
        "matches_added_affinity_not_pod_affinity",
        _pod(node_affinity=_required(_term(_expr("zone", "In", "bar")))),
        "node2",
        {"zone": "foo"},
        _added_required(_term(fields=[_name_in("node2")])),
        (None, None),
        POD_REASON,
    ),
    (
        "does_not_match_added_affinity",
        _pod(),
        "node2",
        {"zone": "foo"},
        _added_required(_term(_expr("zone", "In", "bar"))),
        (None, None),
        ENFORCED,
    ),
    (
        "added_affinity_checked_before_pod_affinity",
        _pod({"zone": "bar"}),
        "node2",
        {"zone": "foo"},
        _added_required(_term(_expr("zone", "In", "bar"))),
        (None, None),
        ENFORCED,
    ),
    (
        "empty_node_selector_map_does_not_skip",
        _pod({}),
        "n",
        {},
        {},
        (None, None),
        None,
    ),
]


@pytest.mark.parametrize(
    ("pod", "node_name", "labels", "args", "want_pre", "want_filter"),
    [c[1:] for c in FILTER_CASES],
    ids=[c[0] for c in FILTER_CASES],
)
def test_prefilter_and_filter(pod, node_name, labels, args, want_pre, want_filter) -> None:
    plugin = nodeaffinity.new(args, None)  # type: ignore[arg-type]
    state = CycleState()
    ni = NodeInfo(_node(node_name, labels))
    assert plugin.pre_filter(state, pod, [ni]) == want_pre
    assert plugin.filter(state, pod, ni) == want_filter


@pytest.mark.parametrize(
    ("pod", "labels"),
    [
        (_pod({"foo": "bar"}), {"foo": "bar", "baz": "blah"}),
        (
            _pod(
                node_affinity=_required(
                    _term(_expr("GPU", "Exists"), _expr("GPU", "NotIn", "AMD", "INTER"))
                )
            ),
            {"GPU": "NVIDIA-GRID-K1"},
        ),
    ],
    ids=["node_selector", "node_affinity"],
)
def test_filter_without_prefilter(pod, labels) -> None:
    plugin = nodeaffinity.NodeAffinity()
    assert plugin.filter(CycleState(), pod, NodeInfo(_node("n", labels))) is None


# -- Score --------------------------------------------------------------------------

LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL3 = {"az": "az1"}
LABEL4 = {"abc": "az11", "def": "az22"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}


def _pref(weight: int, *exprs: dict[str, Any]) -> dict[str, Any]:
    return {"weight": weight, "preference": {"matchExpressions": list(exprs)}}


AFFINITY1 = {
    "preferredDuringSchedulingIgnoredDuringExecution": [_pref(2, _expr("foo", "In", "bar"))]
}
AFFINITY2 = {
    "preferredDuringSchedulingIgnoredDuringExecution": [
        _pref(2, _expr("foo", "In", "bar")),
        _pref(4, _expr("key", "In", "value")),
        _pref(5, _expr("foo", "In", "bar"), _expr("key", "In", "value"), _expr("az", "In", "az1")),
    ]
}

SCORE_CASES = [
    (
        "nil_affinity_all_zero_without_prescore",
        _pod(),
        {"node1": LABEL1, "node2": LABEL2, "node3": LABEL3},
        {},
        False,
        {"node1": 0, "node2": 0, "node3": 0},
    ),
    (
        "no_node_matches_preferred_terms",
        _pod(node_affinity=AFFINITY1),
        {"node1": LABEL4, "node2": LABEL2, "node3": LABEL3},
        {},
        True,
        {"node1": 0, "node2": 0, "node3": 0},
    ),
    (
        "only_node1_matches",
        _pod(node_affinity=AFFINITY1),
        {"node1": LABEL1, "node2": LABEL2, "node3": LABEL3},
        {},
        True,
        {"node1": 100, "node2": 0, "node3": 0},
    ),
    (
        "all_match_with_different_weights",
        _pod(node_affinity=AFFINITY2),
        {"node1": LABEL1, "node5": LABEL5, "node2": LABEL2},
        {},
        True,
        {"node1": 18, "node5": 100, "node2": 36},
    ),
    (
        "added_affinity",
        _pod(),
        {"node1": LABEL1, "node2": LABEL2},
        {"addedAffinity": AFFINITY1},
        True,
        {"node1": 100, "node2": 0},
    ),
    (
        "added_affinity_and_pod_affinity",
        _pod(node_affinity=AFFINITY1),
        {"node1": LABEL1, "node2": LABEL2, "node3": LABEL5},
        {
            "addedAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    _pref(3, _expr("key", "In", "value"))
                ]
            }
        },
        True,
        {"node1": 40, "node2": 60, "node3": 100},
    ),
    (
        "scores_right_without_prescore",
        _pod(node_affinity=AFFINITY2),
        {"node1": LABEL1, "node5": LABEL5, "node2": LABEL2},
        {},
        False,
        {"node1": 18, "node5": 100, "node2": 36},
    ),
]


@pytest.mark.parametrize(
    ("pod", "nodes", "args", "run_prescore", "want"),
    [c[1:] for c in SCORE_CASES],
    ids=[c[0] for c in SCORE_CASES],
)
def test_score(pod, nodes, args, run_prescore: bool, want: dict[str, int]) -> None:
    snap = Snapshot([_node(n, labels) for n, labels in nodes.items()])
    plugin = nodeaffinity.new(args, _Handle(snap))  # type: ignore[arg-type]
    state = CycleState()
    infos = snap.node_info_list
    if run_prescore:
        assert plugin.pre_score(state, pod, infos) is None
    scores = [NodeScore(ni.name, plugin.score(state, pod, ni)) for ni in infos]
    assert plugin.score_batch(state, pod, infos).tolist() == [s.score for s in scores]
    batch = np.array([s.score for s in scores], dtype=np.int64)
    plugin.score_extensions().normalize_score_batch(state, pod, batch)
    assert plugin.score_extensions().normalize_score(state, pod, scores) is None
    assert {s.name: s.score for s in scores} == want
    assert batch.tolist() == [s.score for s in scores]


@pytest.mark.parametrize(
    ("pod", "args", "want"),
    [
        (_pod(), {}, SKIP),
        (_pod(node_affinity=_required(_term(_expr("a", "Exists")))), {}, SKIP),
        (_pod(node_affinity={"preferredDuringSchedulingIgnoredDuringExecution": []}), {}, SKIP),
        (_pod(node_affinity=AFFINITY1), {}, None),
        (
            _pod(
                node_affinity={
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        _pref(0, _expr("a", "Exists"))
                    ]
                }
            ),
            {},
            None,
        ),
        (_pod(), {"addedAffinity": AFFINITY1}, None),
        (_pod(), _added_required(_term(_expr("a", "Exists"))), SKIP),
    ],
    ids=[
        "no_affinity",
        "required_only",
        "empty_preferred_list",
        "preferred_terms",
        "zero_weight_term_still_scores",
        "added_preferred_terms",
        "added_required_only",
    ],
)
def test_prescore_skip(pod, args, want) -> None:
    assert nodeaffinity.new(args, None).pre_score(CycleState(), pod, []) == want  # type: ignore[arg-type]


def test_pinned_daemonset_pod_narrows_to_its_node() -> None:
    pod = make_pod("ds").node_name_affinity("node-b").pod()
    plugin = nodeaffinity.NodeAffinity()
    result, status = plugin.pre_filter(CycleState(), pod, [])
    assert status is None
    assert result == PreFilterResult(frozenset({"node-b"}))


# -- batch paths == per-node paths ------------------------------------------------------

HOST = "kubernetes.io/hostname"
KEYS = ["zone", "gpu", "tier", HOST]
VALUES = ["a", "b", "1", "5"]
NODE_NAMES = [f"n{i}" for i in range(8)]

expr_st = st.one_of(
    st.builds(
        lambda k, op, vs: _expr(k, op, *vs),
        st.sampled_from(KEYS),
        st.sampled_from(["In", "NotIn"]),
        st.lists(st.sampled_from(VALUES + NODE_NAMES), min_size=1, max_size=2),
    ),
    st.builds(
        lambda k, op: _expr(k, op),
        st.sampled_from(KEYS),
        st.sampled_from(["Exists", "DoesNotExist"]),
    ),
    st.builds(
        lambda k, op, v: _expr(k, op, v),
        st.sampled_from(KEYS),
        st.sampled_from(["Gt", "Lt"]),
        st.sampled_from(["0", "3"]),
    ),
)
field_st = st.builds(
    lambda op, v: {"key": "metadata.name", "operator": op, "values": [v]},
    st.sampled_from(["In", "NotIn"]),
    st.sampled_from(NODE_NAMES),
)
term_st = st.builds(
    lambda exprs, fields: _term(*exprs, fields=fields or None),
    st.lists(expr_st, max_size=2),
    st.one_of(st.just([]), st.lists(field_st, min_size=1, max_size=1)),
)
pref_st = st.builds(
    lambda w, t: {"weight": w, "preference": t}, st.integers(min_value=0, max_value=100), term_st
)
labels_st = st.dictionaries(
    st.sampled_from(["zone", "gpu", "tier"]), st.sampled_from(VALUES), max_size=3
)


@settings(max_examples=150, deadline=None)
@given(
    node_labels=st.lists(labels_st, min_size=1, max_size=8),
    node_selector=st.one_of(st.none(), labels_st),
    required=st.one_of(st.none(), st.lists(term_st, max_size=2)),
    preferred=st.lists(pref_st, max_size=3),
    added_required=st.one_of(st.none(), st.lists(term_st, min_size=1, max_size=2)),
    added_preferred=st.lists(pref_st, max_size=2),
    hostname_label=st.booleans(),
)
def test_batch_equals_per_node(
    node_labels, node_selector, required, preferred, added_required, added_preferred, hostname_label
) -> None:
    nodes = []
    for i, labels in enumerate(node_labels):
        b = make_node(NODE_NAMES[i]).labels(labels)
        if not hostname_label:
            b.set("metadata.labels", dict(labels))
        nodes.append(b.node())
    na: dict[str, Any] = {}
    if required is not None:
        na["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": required}
    if preferred:
        na["preferredDuringSchedulingIgnoredDuringExecution"] = preferred
    pod = _pod(node_selector, na or None)
    added: dict[str, Any] = {}
    if added_required is not None:
        added["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": added_required
        }
    if added_preferred:
        added["preferredDuringSchedulingIgnoredDuringExecution"] = added_preferred
    snap = Snapshot(nodes)
    plugin = nodeaffinity.new({"addedAffinity": added} if added else {}, _Handle(snap))  # type: ignore[arg-type]
    infos = snap.node_info_list
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod, infos)
    want_filter = [plugin.filter(state, pod, ni) is None for ni in infos]
    assert plugin.filter_batch(state, pod, infos).tolist() == want_filter
    subset = list(reversed(infos))
    assert plugin.filter_batch(state, pod, subset).tolist() == want_filter[::-1]
    plugin.pre_score(state, pod, infos)
    want_score = [plugin.score(state, pod, ni) for ni in infos]
    assert plugin.score_batch(state, pod, infos).tolist() == want_score
    assert plugin.score_batch(state, pod, subset).tolist() == want_score[::-1]
