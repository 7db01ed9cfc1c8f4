"""The framework runtime: upstream's semantics per extension point."""

from __future__ import annotations

import numpy as np
import pytest

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.handle import FrameworkHandle
from scheduler_engine.framework.interfaces import (
    Handle,
    NodeToStatus,
    NominatingInfo,
    PodBlindFilterPlugin,
    PostFilterResult,
    PreFilterResult,
)
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.gocompat import go_duration
from tests.engine.builders import make_node, make_pod
from tests.engine.fakes import Fake, build_framework

NODES = [make_node(f"n{i}").cap(cpu=4, memory="8Gi").obj() for i in range(3)]
POD = make_pod("p").pod()


def _raise(*_: object) -> None:
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("results", "code", "message", "skipped"),
    [
        ([(None, None), (None, None)], None, "", set()),
        ([(None, Status(Code.SKIP)), (None, None)], None, "", {"A"}),
        (
            [(None, Status.unresolvable("nope")), (None, None)],
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "nope",
            set(),
        ),
        (
            [(None, Status.unschedulable("later")), (None, None)],
            Code.UNSCHEDULABLE,
            "later",
            set(),
        ),
        (
            [
                (PreFilterResult(frozenset({"n0"})), None),
                (PreFilterResult(frozenset({"n1"})), None),
            ],
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "node(s) didn't satisfy plugin(s) [A B] simultaneously",
            set(),
        ),
        (
            [(PreFilterResult(frozenset()), None), (None, None)],
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "node(s) didn't satisfy plugin A",
            set(),
        ),
        (
            [(None, Status(Code.ERROR, "bad")), (None, None)],
            Code.ERROR,
            'running PreFilter plugin "A": bad',
            set(),
        ),
    ],
    ids=[
        "all-succeed",
        "skip-marks-filter-skipped",
        "unresolvable-stops",
        "unschedulable-keeps-running",
        "disjoint-node-sets",
        "one-plugin-narrows-to-nothing",
        "error-is-wrapped",
    ],
)
def test_pre_filter_merges_and_stops_like_upstream(results, code, message, skipped):
    a = Fake("A", pre_filter=results[0], pre_filter_extensions=None)
    b = Fake("B", pre_filter=results[1], pre_filter_extensions=None)
    fwk, _ = build_framework({"preFilter": ["A", "B"]}, [a, b], NODES)
    state = CycleState()
    _, s, _ = fwk.run_pre_filter_plugins(state, POD)
    assert (s.code if s else None) == code
    assert (s.message() if s else "") == message
    assert state.skip_filter_plugins == skipped
    if code == Code.UNSCHEDULABLE:
        assert [c for c, _ in b.calls] == ["pre_filter"]


def test_pre_filter_unschedulable_names_the_plugin():
    a = Fake("A", pre_filter=(None, Status.unschedulable("x")), pre_filter_extensions=None)
    fwk, _ = build_framework({"preFilter": ["A"]}, [a], NODES)
    _, s, _ = fwk.run_pre_filter_plugins(CycleState(), POD)
    assert s.plugin == "A"


def test_filter_stops_at_first_rejection_in_plugin_order():
    a = Fake("A", filter=Status.unschedulable("a-no"))
    b = Fake("B", filter=Status.unschedulable("b-no"))
    fwk, ctx = build_framework({"filter": ["A", "B"]}, [a, b], NODES)
    s = fwk.run_filter_plugins(CycleState(), POD, ctx.snapshot.node_info_list[0])
    assert (s.plugin, s.message()) == ("A", "a-no")
    assert b.calls == []


def test_filter_explained_runs_every_plugin_and_records_all():
    a = Fake("A", filter=Status.unschedulable("a-no"))
    b = Fake("B", filter=Status.unresolvable("b-no"))
    fwk, ctx = build_framework({"filter": ["A", "B"]}, [a, b], NODES, explain=True)
    s = fwk.run_filter_plugins(CycleState(), POD, ctx.snapshot.node_info_list[0])
    assert s.plugin == "A"
    rec = fwk.recorder.get(POD.key, "filter")["n0"]
    assert rec["A"]["reasons"] == ["a-no"] and rec["B"]["code"] == "UnschedulableAndUnresolvable"


def test_filter_skipped_plugin_is_not_called():
    a = Fake(
        "A",
        pre_filter=(None, Status(Code.SKIP)),
        pre_filter_extensions=None,
        filter=Status.unschedulable("x"),
    )
    fwk, ctx = build_framework({"preFilter": ["A"], "filter": ["A"]}, [a], NODES)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, POD)
    assert fwk.run_filter_plugins(state, POD, ctx.snapshot.node_info_list[0]) is None


def test_plugin_exception_becomes_error_naming_plugin():
    a = Fake("A", filter=_raise)
    fwk, ctx = build_framework({"filter": ["A"]}, [a], NODES)
    s = fwk.run_filter_plugins(CycleState(), POD, ctx.snapshot.node_info_list[0])
    assert s.code == Code.ERROR and s.plugin == "A"
    assert s.message() == 'running "A" filter plugin: RuntimeError: boom'


def test_filter_returning_wait_is_an_error():
    a = Fake("A", filter=Status(Code.WAIT, "w"))
    fwk, ctx = build_framework({"filter": ["A"]}, [a], NODES)
    s = fwk.run_filter_plugins(CycleState(), POD, ctx.snapshot.node_info_list[0])
    assert s.code == Code.ERROR and s.message() == 'running "A" filter plugin: w'


def test_nominated_pods_of_higher_priority_count_in_first_pass():
    seen = []

    def filt(state, pod, ni):
        seen.append(len(ni.pods))
        return None if len(ni.pods) == 0 else Status.unschedulable("full")

    a = Fake("A", filter=filt)
    fwk, ctx = build_framework({"filter": ["A"]}, [a], NODES)
    ni = ctx.snapshot.node_info_list[0]
    high = make_pod("high").priority(10).pod()
    low = make_pod("low").priority(-1).pod()
    ctx.nominate(low, "n0")
    assert fwk.run_filter_plugins_with_nominated_pods(CycleState(), POD, ni) is None
    ctx.nominate(high, "n0")
    s = fwk.run_filter_plugins_with_nominated_pods(CycleState(), POD, ni)
    assert s.message() == "full"
    assert len(ni.pods) == 0  # the snapshot's node info is never changed


def test_nominated_two_passes_both_must_pass():
    def filt(state, pod, ni):  # passes only with the nominated pod present
        return None if ni.pods else Status.unschedulable("needs company")

    a = Fake("A", filter=filt)
    fwk, ctx = build_framework({"filter": ["A"]}, [a], NODES)
    ctx.nominate(make_pod("buddy").pod(), "n0")
    s = fwk.run_filter_plugins_with_nominated_pods(
        CycleState(), POD, ctx.snapshot.node_info_list[0]
    )
    assert s.message() == "needs company"


class _Extensions:
    """PreFilter extensions that fail the pod ``p`` added or removed after the first ``ok`` calls."""

    def __init__(self, ok: int) -> None:
        self.ok = ok

    def add_pod(self, state, pod, other, ni):
        self.ok -= 1
        return None if self.ok >= 0 else Status(Code.ERROR, f"cannot add {other.name}")

    remove_pod = add_pod


def test_pre_filter_extensions_run_in_plugin_order_skipped_ones_left_out():
    a = Fake("A", pre_filter=(None, Status(Code.SKIP)), pre_filter_extensions=_Extensions(0))
    b = Fake("B", pre_filter=(None, None), pre_filter_extensions=None)
    c = Fake("C", pre_filter=(None, None), pre_filter_extensions=_Extensions(1))
    fwk, ctx = build_framework({"preFilter": ["A", "B", "C"]}, [a, b, c], NODES)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, POD)
    ni = ctx.snapshot.node_info_list[0]
    other = make_pod("o").pod()
    assert fwk.run_pre_filter_extension_add_pod(state, POD, other, ni) is None
    s = fwk.run_pre_filter_extension_remove_pod(state, POD, other, ni)
    assert s.code == Code.ERROR and s.plugin == "C"
    assert s.message() == 'running RemovePod on PreFilter plugin "C": cannot add o'
    # each cycle asks the plugins again: A is not skipped any more
    a.pre_filter = lambda *args: (None, None)
    fwk.run_pre_filter_plugins(state, POD)
    s = fwk.run_pre_filter_extension_add_pod(state, POD, other, ni)
    assert s.plugin == "A" and s.message() == 'running AddPod on PreFilter plugin "A": cannot add o'


def test_pre_filter_extensions_that_raise_fail_each_call_in_their_turn():
    a = Fake("A", pre_filter=(None, None), pre_filter_extensions=_raise)
    fwk, ctx = build_framework({"preFilter": ["A"]}, [a], NODES)
    state = CycleState()
    fwk.run_pre_filter_plugins(state, POD)
    ni, other = ctx.snapshot.node_info_list[0], make_pod("o").pod()
    for _ in range(2):
        s = fwk.run_pre_filter_extension_add_pod(state, POD, other, ni)
        assert s.code == Code.ERROR and s.plugin == "A"
        assert s.message() == 'running AddPod on PreFilter plugin "A": RuntimeError: boom'


def test_a_plugins_handle_runs_the_frameworks_filter_helpers():
    a = Fake(
        "A",
        pre_filter=(None, None),
        pre_filter_extensions=_Extensions(-1),
        filter=Status.unschedulable("no"),
    )
    fwk, ctx = build_framework({"preFilter": ["A"], "filter": ["A"]}, [a], NODES)
    handle, state = fwk.handle, CycleState()
    fwk.run_pre_filter_plugins(state, POD)
    ni, other = ctx.snapshot.node_info_list[0], make_pod("o").pod()
    assert handle.has_pre_filter_extensions(state)
    for run in (
        handle.run_filter_plugins,
        handle.run_filter_plugins_with_nominated_pods,
        handle.refilter_with_nominated_pods,
    ):
        assert run(state, POD, ni).message() == "no"
    s = handle.run_pre_filter_extension_add_pod(state, POD, other, ni)
    assert s.message() == 'running AddPod on PreFilter plugin "A": cannot add o'
    s = handle.run_pre_filter_extension_remove_pod(state, POD, other, ni)
    assert s.message() == 'running RemovePod on PreFilter plugin "A": cannot add o'


def test_the_handle_protocol_declares_every_helper_the_handle_binds():
    declared = {name for name in vars(Handle) if not name.startswith("_")}
    assert set(FrameworkHandle.__annotations__) <= declared
    assert declared <= set(vars(FrameworkHandle)) | set(FrameworkHandle.__annotations__)


def test_refilter_leaves_out_filters_that_ignore_the_nodes_pods():
    blind = Fake("Blind", filter=None)
    blind.filter_reads_no_pods = True
    seeing = Fake(
        "Seeing", filter=lambda state, pod, ni: None if ni.pods else Status.unschedulable("alone")
    )
    fwk, ctx = build_framework({"filter": ["Blind", "Seeing"]}, [blind, seeing], NODES)
    ni, state = ctx.snapshot.node_info_list[0], CycleState()
    ctx.nominate(make_pod("buddy").priority(10).pod(), "n0")
    assert fwk.run_filter_plugins_with_nominated_pods(state, POD, ni).message() == "alone"
    # two passes: with the nominated pod (both pass), then without it
    assert len(blind.calls) == 2 and len(seeing.calls) == 2
    assert fwk.refilter_with_nominated_pods(state, POD, ni).message() == "alone"
    assert len(blind.calls) == 2 and len(seeing.calls) == 4


def test_the_pod_blind_marker_is_read_from_its_protocol_and_must_be_true():
    unmarked, declined, truthy = (
        Fake("U", filter=None),
        Fake("D", filter=None),
        Fake("T", filter=None),
    )
    declined.filter_reads_no_pods = False
    truthy.filter_reads_no_pods = 1  # a promise must be said with True, not a truthy value
    blind = Fake("B", filter=None)
    blind.filter_reads_no_pods = True
    plugins = [unmarked, declined, truthy, blind]
    fwk, _ = build_framework({"filter": ["U", "D", "T", "B"]}, plugins, NODES)
    assert [isinstance(p, PodBlindFilterPlugin) for p in plugins] == [False, True, True, True]
    assert fwk._reads_no_pods == {"U": False, "D": False, "T": False, "B": True}


@pytest.mark.parametrize(
    ("first", "second", "code", "msg", "second_called"),
    [
        (
            Status.unschedulable("no new claims to deallocate"),
            Status.unschedulable(
                "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
            ),
            Code.UNSCHEDULABLE,
            "no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            True,
        ),
        (None, Status.unschedulable("x"), Code.SUCCESS, "", False),
        (
            Status.unresolvable("stop"),
            Status.unschedulable("x"),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "stop",
            False,
        ),
        (
            Status(Code.ERROR, "not found"),
            Status.unschedulable("x"),
            Code.ERROR,
            "not found",
            False,
        ),
    ],
    ids=["reasons-joined-in-order", "success-stops", "unresolvable-stops", "error-stops"],
)
def test_post_filter_combines_like_upstream(first, second, code, msg, second_called):
    a = Fake("A", post_filter=(None, first))
    b = Fake("B", post_filter=(None, second))
    fwk, _ = build_framework({"postFilter": ["A", "B"]}, [a, b], NODES)
    _, s = fwk.run_post_filter_plugins(CycleState(), POD, NodeToStatus())
    assert (s.code, s.message()) == (code, msg)
    assert bool(b.calls) == second_called


def test_post_filter_keeps_last_non_noop_nomination():
    r = PostFilterResult(NominatingInfo("n1"))
    a = Fake("A", post_filter=(r, Status.unschedulable("a")))
    b = Fake("B", post_filter=(None, Status.unschedulable("b")))
    fwk, _ = build_framework({"postFilter": ["A", "B"]}, [a, b], NODES)
    res, s = fwk.run_post_filter_plugins(CycleState(), POD, NodeToStatus())
    assert res is r and s.plugin == "A"


def _norm(values):
    def normalize(state, pod, scores):
        for sc, v in zip(scores, values, strict=True):
            sc.score = v

    return normalize


def test_score_normalize_weight_and_totals():
    a = Fake("A", score=lambda s, p, ni: int(ni.name[1]) * 10, score_extensions=None)
    ext = Fake("ext", normalize_score=_norm([100, 50, 0]))
    b = Fake("B", score=7, score_extensions=ext)
    fwk, ctx = build_framework({"score": [("A", 2), ("B", 3)]}, [a, b], NODES, explain=True)
    nodes = ctx.snapshot.node_info_list
    res, s = fwk.run_score_plugins(CycleState(), POD, nodes)
    assert s is None
    assert res.totals.tolist() == [0 + 300, 20 + 150, 40 + 0]
    assert fwk.recorder.get(POD.key, "score")["n1"]["B"] == {
        "raw": 7,
        "normalized": 50,
        "weighted": 150,
    }


def test_score_skipped_by_pre_score_does_not_score():
    a = Fake("A", pre_score=Status(Code.SKIP), score=_raise, score_extensions=None)
    fwk, ctx = build_framework({"preScore": ["A"], "score": [("A", 1)]}, [a], NODES)
    state = CycleState()
    assert fwk.run_pre_score_plugins(state, POD, ctx.snapshot.node_info_list) is None
    res, s = fwk.run_score_plugins(state, POD, ctx.snapshot.node_info_list)
    assert s is None and res.totals.tolist() == [0, 0, 0]


def test_score_out_of_range_after_normalize_is_an_error():
    a = Fake("A", score=101, score_extensions=None)
    fwk, ctx = build_framework({"score": [("A", 1)]}, [a], NODES)
    _, s = fwk.run_score_plugins(CycleState(), POD, ctx.snapshot.node_info_list)
    assert s.code == Code.ERROR
    assert s.message() == (
        'applying score defaultWeights on Score plugins: plugin "A" returns an invalid score 101, '
        "it should in the range of [0, 100] after normalizing"
    )


def test_score_batch_agrees_with_per_node():
    class Batchy:
        NAME = "A"

        def score(self, state, pod, ni):
            return ni.index * 3

        def score_batch(self, state, pod, nodes):
            return np.array([ni.index * 3 for ni in nodes], dtype=np.int64)

        def score_extensions(self):
            return None

    from scheduler_engine.framework.registry import Registry
    from scheduler_engine.framework.runtime import Framework
    from tests.engine.fakes import profile_of

    _, ctx = build_framework({}, [], NODES)
    reg = Registry()
    reg.register("A", lambda a, h: Batchy(), Batchy)
    fwk = Framework(profile_of({"score": [("A", 1)]}), reg, None)
    nodes = ctx.snapshot.node_info_list
    r1, _ = fwk.run_score_plugins(CycleState(), POD, nodes, batch=True)
    r2, _ = fwk.run_score_plugins(CycleState(), POD, nodes, batch=False)
    assert r1.totals.tolist() == r2.totals.tolist() == [0, 3, 6]


def test_unreserve_runs_in_reverse_order():
    order = []
    a = Fake("A", reserve=None, unreserve=lambda *a: order.append("A"))
    b = Fake("B", reserve=Status.unschedulable("no"), unreserve=lambda *a: order.append("B"))
    fwk, _ = build_framework({"reserve": ["A", "B"]}, [a, b], NODES)
    s = fwk.run_reserve_plugins_reserve(CycleState(), POD, "n0")
    assert (s.plugin, s.message()) == ("B", "no")
    fwk.run_reserve_plugins_unreserve(CycleState(), POD, "n0")
    assert order == ["B", "A"]


def test_permit_wait_collects_timeouts_and_reject_wins():
    a = Fake("A", permit=(Status(Code.WAIT), 10.0))
    b = Fake("B", permit=(None, 0))
    fwk, _ = build_framework({"permit": ["A", "B"]}, [a, b], NODES)
    s, waits = fwk.run_permit_plugins(CycleState(), POD, "n0")
    assert s.code == Code.WAIT and waits == {"A": 10.0}
    assert s.message() == "one or more plugins asked to wait and no plugin rejected pod"
    c = Fake("C", permit=(Status.unschedulable("nope"), 0))
    fwk, _ = build_framework({"permit": ["A", "C"]}, [a, c], NODES)
    s, _ = fwk.run_permit_plugins(CycleState(), POD, "n0")
    assert (s.code, s.plugin) == (Code.UNSCHEDULABLE, "C")


def test_permit_timeout_is_capped_at_fifteen_minutes():
    a = Fake("A", permit=(Status(Code.WAIT), 3600.0))
    fwk, _ = build_framework({"permit": ["A"]}, [a], NODES)
    _, waits = fwk.run_permit_plugins(CycleState(), POD, "n0")
    assert waits == {"A": 900.0}


def test_bind_skip_passes_to_next_binder():
    a = Fake("A", bind=Status(Code.SKIP))
    b = Fake("B", bind=None)
    fwk, _ = build_framework({"bind": ["A", "B"]}, [a, b], NODES)
    assert fwk.run_bind_plugins(CycleState(), POD, "n0") is None
    assert b.calls


@pytest.mark.parametrize(
    ("point", "run", "label"),
    [
        ("reserve", "run_reserve_plugins_reserve", "Reserve"),
        ("preBind", "run_pre_bind_plugins", "PreBind"),
        ("bind", "run_bind_plugins", "Bind"),
    ],
)
@pytest.mark.parametrize(
    ("answer", "code", "message"),
    [
        (Status(Code.UNSCHEDULABLE, "no room", plugin="Other"), Code.UNSCHEDULABLE, "no room"),
        (Status(Code.PENDING, "later"), Code.PENDING, "later"),
        (Status(Code.ERROR, "bad"), Code.ERROR, 'running {label} plugin "A": bad'),
        (Status(Code.WAIT, "hold"), Code.ERROR, 'running {label} plugin "A": hold'),
    ],
    ids=["rejection", "pending", "error", "wait"],
)
def test_reserve_prebind_and_bind_name_a_rejection_and_wrap_the_rest(
    point, run, label, answer, code, message
):
    method = {"reserve": "reserve", "preBind": "pre_bind", "bind": "bind"}[point]
    a = Fake("A", **{method: answer}, unreserve=None)
    fwk, _ = build_framework({point: ["A"]}, [a], NODES)
    s = getattr(fwk, run)(CycleState(), POD, "n0")
    assert (s.code, s.plugin, s.message()) == (code, "A", message.format(label=label))


def test_bind_without_binders_is_skip():
    fwk, _ = build_framework({}, [], NODES)
    assert fwk.run_bind_plugins(CycleState(), POD, "n0").code == Code.SKIP


def test_missing_plugins_are_listed_not_fatal():
    fwk, _ = build_framework({"filter": ["Ghost"]}, [], NODES)
    assert fwk.missing_plugins == ["Ghost"] and not fwk.has_filter_plugins()


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(10, "10s"), (90, "1m30s"), (0.5, "500ms"), (900, "15m0s"), (3600, "1h0m0s"), (1.5, "1.5s")],
)
def test_go_duration_prints_like_go(seconds, text):
    assert go_duration(seconds) == text


@pytest.mark.parametrize(
    "score, want",
    [
        # a Success status counts as 0, as upstream's per-node loop
        (lambda s, p, ni: Status(Code.SUCCESS) if ni.name == "n1" else 9, ([9, 0, 9], None)),
        (
            lambda s, p, ni: Status(Code.ERROR, "bad") if ni.name == "n1" else 9,
            (None, 'running Score plugins: plugin "A" failed with: bad'),
        ),
        (_raise, (None, 'running Score plugins: plugin "A" failed with: RuntimeError: boom')),
        (lambda s, p, ni: -1, (None, "invalid score -1")),
    ],
    ids=["success-status-is-zero", "error-status", "exception", "below-range"],
)
def test_score_per_node_values_and_failures(score, want):
    a = Fake("A", score=score, score_extensions=None)
    fwk, ctx = build_framework({"score": [("A", 1)]}, [a], NODES)
    res, s = fwk.run_score_plugins(CycleState(), POD, ctx.snapshot.node_info_list)
    totals, message = want
    if totals is not None:
        assert s is None and res.totals.tolist() == totals
    else:
        assert res is None and s.code == Code.ERROR and s.plugin == "A"
        assert message in s.message()


def test_normalize_exception_names_the_plugin():
    ext = Fake("ext", normalize_score=_raise)
    a = Fake("A", score=1, score_extensions=ext)
    fwk, ctx = build_framework({"score": [("A", 1)]}, [a], NODES)
    _, s = fwk.run_score_plugins(CycleState(), POD, ctx.snapshot.node_info_list)
    assert s.message() == (
        'running Normalize on Score plugins: plugin "A" failed with: RuntimeError: boom'
    )


def test_vectorised_methods_are_found_by_their_protocols():
    from scheduler_engine.framework.interfaces import (
        BatchFilterPlugin,
        BatchScoreExtensions,
        BatchScorePlugin,
    )

    plain = Fake("A", filter=None, score=1, score_extensions=None)
    batchy = Fake(
        "B",
        filter=None,
        filter_batch=lambda s, p, nodes: np.ones(len(nodes), dtype=bool),
        score=1,
        score_batch=lambda s, p, nodes: np.ones(len(nodes), dtype=np.int64),
        score_extensions=None,
        normalize_score=None,
        normalize_score_batch=None,
    )
    assert not isinstance(plain, BatchFilterPlugin | BatchScorePlugin)
    assert isinstance(batchy, BatchFilterPlugin) and isinstance(batchy, BatchScorePlugin)
    assert isinstance(batchy, BatchScoreExtensions)
    fwk, ctx = build_framework(
        {"filter": ["A", "B"], "score": [("A", 1), ("B", 1)]}, [plain, batchy], NODES
    )
    nodes = ctx.snapshot.node_info_list
    found = fwk.find_nodes_that_pass_filters(CycleState(), POD, nodes, 1, 2)
    assert [ni.name for ni in found.feasible] == ["n1", "n2"] and found.examined == 2
    res, _ = fwk.run_score_plugins(CycleState(), POD, nodes)
    assert res.totals.tolist() == [2, 2, 2]
    assert [c for c, _ in batchy.calls].count("score") == 0


def test_node_local_markers_are_read_from_their_protocols_and_optional():
    def ones(s, p, nodes):
        return np.ones(len(nodes), dtype=np.int64)

    def batchy(name):
        return Fake(
            name, filter=None, filter_batch=ones, score=1, score_batch=ones, score_extensions=None
        )

    unmarked, local, declined = batchy("A"), batchy("B"), batchy("C")
    local.node_local_filter = local.node_local_score = True
    declined.node_local_filter = declined.node_local_score = False
    plugins = [unmarked, local, declined]
    fwk, ctx = build_framework(
        {"filter": ["A", "B", "C"], "score": [("A", 1), ("B", 1), ("C", 1)]}, plugins, NODES
    )
    assert set(fwk.plugins) == {"A", "B", "C"}
    assert list(fwk._memo_filters) == ["B"] and list(fwk._memo_scores) == ["B"]
    nodes = ctx.snapshot.node_info_list
    found = fwk.find_nodes_that_pass_filters(CycleState(), POD, nodes, 0, 3)
    assert [ni.name for ni in found.feasible] == ["n0", "n1", "n2"]


def test_filter_errors_read_the_same_batched_or_not():
    a = Fake("A", filter=Status(Code.WAIT, "w"), filter_batch=_raise)
    for explain in (False, True):
        fwk, ctx = build_framework({"filter": ["A"]}, [a], NODES, explain=explain)
        found = fwk.find_nodes_that_pass_filters(
            CycleState(), POD, ctx.snapshot.node_info_list, 0, 3
        )
        assert found.error.plugin == "A" and found.feasible == []
        assert found.error.message().startswith('running "A" filter plugin: ')
