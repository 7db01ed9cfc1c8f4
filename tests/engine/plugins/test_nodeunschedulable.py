"""NodeUnschedulable (upstream nodeunschedulable/node_unschedulable_test.go)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import nodeunschedulable
from tests.engine.builders import make_node, make_pod

UNSCHEDULABLE = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) were unschedulable")
TAINT = "node.kubernetes.io/unschedulable"


class _Handle:
    def __init__(self, snap: Snapshot) -> None:
        self._snap = snap

    def snapshot(self) -> Snapshot:
        return self._snap


CASES = [
    ("cordoned_node_rejects_pod", make_pod("p"), make_node("n").unschedulable(), UNSCHEDULABLE),
    ("normal_node_takes_pod", make_pod("p"), make_node("n").unschedulable(False), None),
    (
        "toleration_of_unschedulable_taint_lets_pod_in",
        make_pod("p").toleration(TAINT, effect="NoSchedule", operator="Equal"),
        make_node("n").unschedulable(),
        None,
    ),
    (
        "exists_everything_toleration_lets_pod_in",
        make_pod("p").toleration(operator="Exists"),
        make_node("n").unschedulable(),
        None,
    ),
    (
        "toleration_for_another_effect_does_not",
        make_pod("p").toleration(TAINT, effect="NoExecute", operator="Exists"),
        make_node("n").unschedulable(),
        UNSCHEDULABLE,
    ),
    (
        "toleration_with_a_value_does_not",
        make_pod("p").toleration(TAINT, value="x", effect="NoSchedule"),
        make_node("n").unschedulable(),
        UNSCHEDULABLE,
    ),
]


@pytest.mark.parametrize(("pod", "node", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filter(pod, node, want) -> None:
    plugin = nodeunschedulable.new({}, None)  # type: ignore[arg-type]
    ni = NodeInfo(node.node())
    got = plugin.filter(CycleState(), pod.pod(), ni)
    assert got == want
    if got is not None:
        assert got.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@settings(max_examples=60, deadline=None)
@given(
    flags=st.lists(st.booleans(), min_size=0, max_size=12),
    tolerate=st.sampled_from(["none", "exact", "exists_all", "other_key"]),
)
def test_filter_batch_equals_filter(flags: list[bool], tolerate: str) -> None:
    nodes = [make_node(f"n{i}").unschedulable(f).node() for i, f in enumerate(flags)]
    pod = make_pod("p")
    if tolerate == "exact":
        pod.toleration(TAINT, effect="NoSchedule", operator="Exists")
    elif tolerate == "exists_all":
        pod.toleration(operator="Exists")
    elif tolerate == "other_key":
        pod.toleration("other", effect="NoSchedule", operator="Exists")
    p = pod.pod()
    snap = Snapshot(nodes)
    plugin = nodeunschedulable.new({}, _Handle(snap))  # type: ignore[arg-type]
    state = CycleState()
    infos = snap.node_info_list
    want = np.array([plugin.filter(state, p, ni) is None for ni in infos], dtype=bool)
    assert np.array_equal(plugin.filter_batch(state, p, infos), want)
    subset = infos[::2]
    assert np.array_equal(plugin.filter_batch(state, p, subset), want[::2])
