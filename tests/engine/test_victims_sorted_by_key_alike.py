"""Would-be victims sorted by a key are in the order upstream's pairwise sort gives.

``sort_by_importance`` (the fast dry run's sort) must put pods in exactly the
order of ``go_sort_slice`` with MoreImportantPod: random lists of up to 20
pods with few priorities and start times (ties of both, so a sort that is
not stable would reorder equal pods), some or all without a start time,
compared by identity.
"""

from __future__ import annotations

import random

import pytest

from scheduler_engine.objects import Pod
from scheduler_engine.objects.pod import parse_time
from scheduler_engine.preemption import PodClock, go_sort_slice, more_important, sort_by_importance

from .builders import make_pod

NOW = parse_time("2024-06-01T00:00:00Z")
assert NOW is not None


def _pods(rng: random.Random, without_start: float) -> list[Pod]:
    pods = []
    for i in range(rng.randint(0, 20)):
        b = make_pod(f"p{i}").priority(rng.choice([0, 100, 1000]))
        if rng.random() >= without_start:
            b = b.set("status.startTime", f"2024-01-01T00:00:{rng.randint(0, 3):02d}Z")
        pods.append(b.pod())
    return pods


def _pairwise(pods: list[Pod]) -> list[Pod]:
    out = list(pods)
    go_sort_slice(out, more_important(PodClock(NOW)))
    return out


@pytest.mark.parametrize("without_start", [0.0, 0.1, 1.0])
def test_victims_are_sorted_by_key_as_pairwise(without_start: float) -> None:
    rng = random.Random(7)
    ties_ordered = 0
    for _ in range(300):
        pods = _pods(rng, without_start)
        expected = _pairwise(pods)
        got = list(pods)
        sort_by_importance(got, PodClock(NOW))
        assert [id(p) for p in got] == [id(p) for p in expected]
        # the cases hold equal pods whose order a sort could get wrong
        key = lambda p: (-p.priority, p.start_ts or NOW)  # noqa: E731
        either = {
            tuple(map(id, sorted(pods, key=key))),
            tuple(map(id, sorted(pods[::-1], key=key))),
        }
        ties_ordered += len(either) == 2
    assert ties_ordered > 100
