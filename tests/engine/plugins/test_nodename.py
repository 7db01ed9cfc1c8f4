"""NodeName (upstream nodename/node_name_test.go)."""

from __future__ import annotations

import numpy as np
import pytest

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import nodename
from tests.engine.builders import make_node, make_pod

MISMATCH = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match the requested node name"
)

CASES = [
    ("no_host_specified", make_pod("p"), "foo", None),
    ("host_matches", make_pod("p").set("spec.nodeName", "foo"), "foo", None),
    ("host_does_not_match", make_pod("p").set("spec.nodeName", "bar"), "foo", MISMATCH),
]


@pytest.mark.parametrize(("pod", "node", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filter(pod, node: str, want) -> None:
    plugin = nodename.new({}, None)  # type: ignore[arg-type]
    assert plugin.filter(CycleState(), pod.pod(), NodeInfo(make_node(node).node())) == want


def test_it_has_no_prefilter_in_v136() -> None:
    assert not hasattr(nodename.NodeName, "pre_filter")


@pytest.mark.parametrize("wanted", ["", "b", "zz"], ids=["unset", "one_node", "no_node"])
def test_filter_batch_equals_filter(wanted: str) -> None:
    plugin = nodename.NodeName()
    pod = make_pod("p").set("spec.nodeName", wanted).pod()
    infos = [NodeInfo(make_node(n).node(), i) for i, n in enumerate("abc")]
    state = CycleState()
    want = [plugin.filter(state, pod, ni) is None for ni in infos]
    assert np.array_equal(plugin.filter_batch(state, pod, infos), np.array(want))
