"""The preemption a what-if offers evicts the pods the engine's own preemption evicts.

On a node of more than 12 would-be victims of equal importance (same
priority, same start time), which one is left a victim depends on the order
Go's unstable sort leaves them in; the what-if must order them the same way.
"""

from __future__ import annotations

import random

from tests.engine.builders import cluster_objects, make_node, make_pod

from .support import by_kind, explained

STARTS = ("2026-11-30T10:00:00Z", "2026-11-30T11:00:00Z")


def _cluster(seed: int, policy: str) -> list[dict]:
    rng = random.Random(seed)
    k = rng.randint(13, 24)
    objs = [make_node("n1").cap(cpu=k, memory="64Gi")]
    for i in range(k):
        objs.append(
            make_pod(f"low-{i:02d}")
            .req(cpu=1)
            .priority(rng.choice((1, 2)))
            .node("n1")
            .set("status.startTime", rng.choice(STARTS))
        )
    objs.append(make_pod("urgent").req(cpu=1).priority(100).preemption_policy(policy))
    return cluster_objects(*objs)


def test_the_offered_victims_are_the_engines_victims() -> None:
    for seed in range(12):
        wanted = explained(_cluster(seed, "PreemptLowerPriority"), "default/urgent")
        offered = by_kind(explained(_cluster(seed, "Never"), "default/urgent"))["preemption"]
        assert [e["pod"] for e in offered["evict"]] == wanted["victims"], seed
