"""DefaultBinder: binding always succeeds and is recorded."""

from __future__ import annotations

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.plugins import defaultbinder
from tests.engine.builders import make_pod


def test_it_records_the_binding_and_succeeds() -> None:
    binder = defaultbinder.new({}, None)  # type: ignore[arg-type]
    pod = make_pod("foo").ns("ns").uid("u1").pod()
    assert binder.bind(CycleState(), pod, "foohost.kubernetes.mydomain.com") is None
    assert binder.bindings == [("ns/foo", "u1", "foohost.kubernetes.mydomain.com")]


def test_bindings_keep_their_order() -> None:
    binder = defaultbinder.DefaultBinder()
    for i in range(3):
        binder.bind(CycleState(), make_pod(f"p{i}").pod(), f"n{i}")
    assert [b[2] for b in binder.bindings] == ["n0", "n1", "n2"]
