"""The scheduling queue: QueueSort order, arrival order for ties."""

from __future__ import annotations

import pytest

from scheduler_engine.framework.interfaces import QueuedPodInfo
from scheduler_engine.plugins.queuesort import PrioritySort
from scheduler_engine.scheduler.queue import ActiveQueue
from tests.engine.builders import make_pod


def _drain(pods):
    q = ActiveQueue(PrioritySort().less)
    for seq, (name, prio, ts) in enumerate(pods):
        q.push(QueuedPodInfo(make_pod(name).priority(prio).pod(), ts), seq)
    out = []
    while q:
        out.append(q.pop()[0].pod.name)
    return out


@pytest.mark.parametrize(
    ("pods", "order"),
    [
        ([("a", 0, 1.0), ("b", 10, 2.0)], ["b", "a"]),
        ([("a", 5, 2.0), ("b", 5, 1.0)], ["b", "a"]),
        ([("a", 5, 1.0), ("b", 5, 1.0), ("c", 5, 1.0)], ["a", "b", "c"]),
        ([("a", -5, 0.0), ("b", 0, 9.0), ("c", 1000, 5.0)], ["c", "b", "a"]),
    ],
    ids=["priority-first", "older-first", "ties-keep-snapshot-order", "negative-priority-last"],
)
def test_active_queue_order(pods, order):
    assert _drain(pods) == order


def test_a_queued_pod_starts_unattempted_and_is_told_apart_by_identity():
    pod = make_pod("p").pod()
    a, b = QueuedPodInfo(pod, 1.0), QueuedPodInfo(pod, 1.0)
    assert (a.pod, a.timestamp, a.initial_attempt_ts, a.attempts, a.gated) == (
        pod,
        1.0,
        None,
        0,
        False,
    )
    a.unschedulable_plugins.add("NodeAffinity")
    assert b.unschedulable_plugins == set()
    assert a != b
    assert len({a, b}) == 2
