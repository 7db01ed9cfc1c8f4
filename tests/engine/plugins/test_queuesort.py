"""PrioritySort (upstream queuesort/priority_sort_test.go)."""

from __future__ import annotations

import pytest

from scheduler_engine.framework.interfaces import QueuedPodInfo
from scheduler_engine.plugins import queuesort
from tests.engine.builders import make_pod

LOW, HIGH = 10, 100
T1, T2 = 1_000.0, 1_001.0


def _qpi(name: str, priority: int, ts: float) -> QueuedPodInfo:
    return QueuedPodInfo(make_pod(name).priority(priority).pod(), ts)


CASES = [
    ("p1_higher_priority_is_less", _qpi("p1", HIGH, T1), _qpi("p2", LOW, T2), True),
    ("p2_higher_priority_p1_is_not_less", _qpi("p1", LOW, T1), _qpi("p2", HIGH, T2), False),
    ("equal_priority_earlier_timestamp_is_less", _qpi("p1", HIGH, T1), _qpi("p2", HIGH, T2), True),
    (
        "equal_priority_later_timestamp_is_not_less",
        _qpi("p1", HIGH, T2),
        _qpi("p2", HIGH, T1),
        False,
    ),
    (
        "equal_priority_equal_timestamp_is_not_less",
        _qpi("p1", HIGH, T1),
        _qpi("p2", HIGH, T1),
        False,
    ),
]


@pytest.mark.parametrize(("a", "b", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_less(a: QueuedPodInfo, b: QueuedPodInfo, want: bool) -> None:
    assert queuesort.new({}, None).less(a, b) is want  # type: ignore[arg-type]


def test_pod_without_priority_counts_as_zero() -> None:
    no_priority = QueuedPodInfo(make_pod("p").pod(), T2)
    negative = _qpi("n", -1, T1)
    assert queuesort.PrioritySort().less(no_priority, negative)


def test_module_contract() -> None:
    assert queuesort.NAME == queuesort.PLUGIN.NAME == "PrioritySort"
