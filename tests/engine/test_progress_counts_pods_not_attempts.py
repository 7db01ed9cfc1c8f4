"""``simulate``'s progress counts pods tried at least once, out of the pods queued.

A pod that preempts is tried again in a later round: that retry is no further
progress. Before, the count went on past the total (``done`` counted attempts,
``total`` the first round's pods), and a dry-run showed more pods done than it
had, and a percentage past 100.
"""

from __future__ import annotations

from scheduler_engine.cluster import build_cluster
from scheduler_engine.simulate import simulate

from .builders import make_node, make_pod


def test_a_retried_pod_does_not_count_twice() -> None:
    cluster = build_cluster(
        [
            make_node("n1").cap(cpu="2", memory="4Gi").obj(),
            make_pod("low").priority(10).req(cpu="2").node("n1").obj(),
            make_pod("high").priority(1000).req(cpu="1").obj(),
            make_pod("other").priority(10).req(cpu="4").obj(),
        ]
    )
    calls: list[tuple[int, int]] = []
    simulate(cluster, seed=1, progress=lambda done, total: calls.append((done, total)))
    assert len(calls) > 2, "no pod was tried twice: the case does not test retries"
    assert all(done <= total for done, total in calls), calls
    assert [d for d, _ in calls] == sorted(d for d, _ in calls), calls
    assert calls[-1] == (2, 2)
