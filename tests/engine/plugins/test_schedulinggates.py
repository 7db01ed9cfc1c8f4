"""SchedulingGates (upstream schedulinggates/scheduling_gates_test.go)."""

from __future__ import annotations

import pytest

from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import schedulinggates
from tests.engine.builders import make_pod

CASES = [
    ("pod_without_gates_is_enqueued", make_pod("p"), None),
    (
        "pod_with_gates_waits_naming_them_as_a_go_slice",
        make_pod("p").gate("foo").gate("bar"),
        Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [foo bar]"),
    ),
    (
        "one_gate",
        make_pod("p").gate("example.com/quota"),
        Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "waiting for scheduling gates: [example.com/quota]"
        ),
    ),
]


@pytest.mark.parametrize(("builder", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pre_enqueue(builder, want) -> None:
    got = schedulinggates.new({}, None).pre_enqueue(builder.pod())  # type: ignore[arg-type]
    assert got == want


def test_empty_gate_list_is_no_gate() -> None:
    pod = make_pod("p").set("spec.schedulingGates", []).pod()
    assert schedulinggates.SchedulingGates().pre_enqueue(pod) is None
