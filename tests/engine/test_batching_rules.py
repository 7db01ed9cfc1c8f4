"""OpportunisticBatching's stored results and hints, as upstream's ``batch.go`` gives them.

The first table is upstream's ``TestBatchBasic`` (``framework/runtime/batch_test.go``,
v1.36), ported as facts: a filter lets a node hold one "blocking" pod, so a
blocking pod is rejected on the node the previous blocking pod took.
"""

from __future__ import annotations

import pytest

from scheduler_engine.scheduler.batching import MAX_BATCH_AGE, OpportunisticBatch


def rejected_when_both_block(first: str, second: str):
    """The previous pod sits on its node: the node rejects ``second`` when both block."""
    return lambda _node: first.startswith("b") and second.startswith("b")


def worst_first(best_first: list[str] | None) -> list[str] | None:
    return None if best_first is None else list(reversed(best_first))


CASES = [
    # name, first id, first sig, first scheduled, first chosen, first others (best first),
    # skipped pod between, second id, second sig, second chosen, hint, state left (best first)
    ("same-signature-gets-hint", "b-1", "sig", True, "n3", ["n1"], False, "b-2", "sig", "n1", "n1", None),
    ("different-signature-no-hint", "a-1", "sig", True, "n3", ["n1"], False, "a-2", "sig2", "n1", "", None),
    ("not-one-pod-per-node-no-hint", "a-1", "sig", True, "n3", ["n1"], False, "a-2", "sig", "n1", "", None),
    ("previous-pod-failed-no-hint", "b-1", "sig", False, "n3", ["n1"], False, "b-2", "sig", "n1", "", None),
    ("empty-list", "b-1", "sig", True, "n3", [], False, "b-2", "sig", "n4", "", None),
    ("nil-list", "b-1", "sig", True, "n3", None, False, "b-2", "sig", "n4", "", None),
    ("other-profile-pod-between-no-hint", "b-1", "sig", True, "n3", ["n1"], True, "b-2", "sig", "n1", "", None),
    ("hint-used-rest-left-for-next", "b-1", "sig", True, "n3", ["n1", "n2"], False, "b-2", "sig", "n1", "n1", ["n2"]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_upstream_batch_basic(case) -> None:
    (_, id1, sig1, ok1, chosen1, others1, skip, id2, sig2, chosen2, hint, left) = case
    b = OpportunisticBatch()
    assert b.node_hint(sig1, 1, 0.0, lambda _n: True) == ""
    if ok1:
        b.store(sig1, "", chosen1, worst_first(others1), 1, 0.0)
    cycle = 3 if skip else 2
    got = b.node_hint(sig2, cycle, 0.0, rejected_when_both_block(id1, id2))
    assert got == hint
    b.store(sig2, got, chosen2, None, cycle, 0.0)
    if left is None:
        assert b.state is None or not b.state.nodes
    else:
        assert b.state is not None
        assert b.state.signature == sig2
        assert b.state.nodes == worst_first(left)


def stored(others_best_first: list[str], now: float = 0.0) -> OpportunisticBatch:
    b = OpportunisticBatch()
    b.store("sig", "", "n0", worst_first(others_best_first), 1, now)
    return b


def test_a_list_older_than_500ms_gives_no_hint() -> None:
    b = stored(["n1"], now=10.0)
    assert b.node_hint("sig", 2, 10.0 + MAX_BATCH_AGE + 0.001, lambda _n: True) == ""
    assert b.last_refusal == "expired"


def test_a_list_500ms_old_still_gives_a_hint() -> None:
    b = stored(["n1"], now=10.0)
    assert b.node_hint("sig", 2, 10.0 + MAX_BATCH_AGE, lambda _n: True) == "n1"


def test_using_the_list_does_not_make_it_younger() -> None:
    b = stored(["n1", "n2", "n3"], now=0.0)
    assert b.node_hint("sig", 2, 0.3, lambda _n: True) == "n1"
    b.store("sig", "n1", "n1", None, 2, 0.3)
    assert b.node_hint("sig", 3, 0.6, lambda _n: True) == ""
    assert b.last_refusal == "expired"


def test_no_hint_when_the_previous_node_is_gone() -> None:
    b = stored(["n1"])
    assert b.node_hint("sig", 2, 0.0, lambda _n: None) == ""
    assert b.last_refusal == "node_missing"


def test_no_hint_when_the_pod_still_fits_the_previous_node() -> None:
    b = stored(["n1"])
    assert b.node_hint("sig", 2, 0.0, lambda _n: False) == ""
    assert b.last_refusal == "node_not_full"


def test_the_previous_node_is_checked_for_this_pod() -> None:
    b = stored(["n1"])
    asked: list[str] = []
    b.node_hint("sig", 2, 0.0, lambda n: asked.append(n) or True)
    assert asked == ["n0"]


def test_an_unsignable_pod_gets_no_hint_and_drops_the_list() -> None:
    b = stored(["n1", "n2"])
    assert b.node_hint(None, 2, 0.0, lambda _n: True) == ""
    b.store(None, "", "n5", ["n7"], 2, 0.0)
    assert b.state is None


def test_a_hint_not_taken_replaces_the_list() -> None:
    # the hinted node failed its filters: the full cycle's list is stored
    b = stored(["n1", "n2"])
    assert b.node_hint("sig", 2, 0.0, lambda _n: True) == "n1"
    b.store("sig", "n1", "n4", ["n6", "n5"], 2, 0.0)
    assert b.state is not None and b.state.nodes == ["n6", "n5"]
    assert b.batched_pods == 0


def test_one_feasible_node_stores_nothing() -> None:
    b = stored(["n1"])
    b.store("sig", "", "n9", None, 2, 0.0)
    assert b.state is None
    assert b.node_hint("sig", 3, 0.0, lambda _n: True) == ""


def test_each_hint_taken_counts_a_batched_pod() -> None:
    b = stored(["n1", "n2"])
    for cycle, want in ((2, "n1"), (3, "n2")):
        got = b.node_hint("sig", cycle, 0.0, lambda _n: True)
        assert got == want
        b.store("sig", got, got, None, cycle, 0.0)
    assert b.batched_pods == 2
    assert b.node_hint("sig", 4, 0.0, lambda _n: True) == ""
