"""DefaultPreemption sorts would-be victims by a key when every pod has a start time;
the order must be go_sort_slice's with upstream's MoreImportantPod, ties included."""

from __future__ import annotations

import random

import pytest

from scheduler_engine.objects import parse_pod
from scheduler_engine.plugins.defaultpreemption import DefaultPreemption
from scheduler_engine.preemption import PodClock, go_sort_slice, more_important_pod
from tests.engine.builders import make_pod

STARTS = ("2026-01-01T00:00:00Z", "2026-01-01T00:00:05Z", "2026-02-01T00:00:00Z")


def _pods(rng: random.Random, n: int, with_start: bool = True) -> list:
    pods = []
    for i in range(n):
        obj = make_pod(f"p{i}").priority(rng.choice((0, 10, 100))).node("n").obj()
        if with_start or rng.random() < 0.5:
            obj.setdefault("status", {})["startTime"] = rng.choice(STARTS)
        pods.append(parse_pod(obj))
    return pods


def _plugin() -> DefaultPreemption:
    return DefaultPreemption({}, handle=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(40))
def test_the_key_sort_orders_as_go_sort_slice(seed: int) -> None:
    rng = random.Random(seed)
    pods = _pods(rng, rng.choice((2, 5, 12, 13, 30)))
    want = list(pods)
    go_sort_slice(want, lambda a, b: more_important_pod(a, b, PodClock(0.0)))
    got = list(pods)
    _plugin()._sort(got, lambda a, b: more_important_pod(a, b, PodClock(0.0)))
    assert [p.key for p in got] == [p.key for p in want]


def test_pods_without_a_start_time_keep_upstreams_comparisons() -> None:
    rng = random.Random(7)
    pods = _pods(rng, 10, with_start=False)
    assert any(p.start_ts is None for p in pods)
    calls: list[int] = []

    def less(a, b) -> bool:
        calls.append(1)
        return more_important_pod(a, b, PodClock(0.0))

    _plugin()._sort(list(pods), less)
    assert calls  # the comparison itself ran: its "now" readings are part of the order
