"""Preemption details found in an adversarial review against upstream v1.36.

Each case cites the upstream function whose behaviour it pins:

* ``preemption/executor.go`` ``prepareCandidateAsync`` (SchedulerAsyncPreemption
  is beta and on in v1.36): victims already being deleted get no API call, and
  when *every* victim is already being deleted the function returns before
  clearing the nominations of lower-priority pods on the chosen node; with at
  least one live victim they are cleared.
* ``defaultpreemption.SelectVictimsOnNode``: all lower-priority pods are
  removed before the first filter run, so a required pod affinity to a victim
  fails there (``UnschedulableAndUnresolvable``, re-checked reason in the
  preemption part); a node without a spread constraint's topology key says
  ``missing required label`` in the preemption part.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.simulate import simulate

from .builders import make_node, make_pod

HOST = "kubernetes.io/hostname"


def _run(*items: Any) -> dict[str, dict[str, Any]]:
    doc = simulate(build_cluster([i.obj() for i in items]), seed=1).to_dict()
    return {r["pod"]: r for r in doc["results"]}


NOMINATION_CASES = [
    (
        # executor.go prepareCandidateAsync: len(victimPods) == 0 -> return before
        # clearNominatedNodeName
        "all-victims-terminating-keeps-lower-priority-nomination",
        [
            make_node("n1").cap(cpu="2", memory="4Gi"),
            make_pod("t").priority(1).req(cpu="2").node("n1").terminating(),
            make_pod("q").priority(50).preemption_policy("Never").req(cpu="1").nominated("n1"),
            make_pod("p").priority(100).req(cpu="2"),
        ],
        "default/q",
        "n1",
    ),
    (
        # executor.go prepareCandidateAsync: one live victim -> the goroutine clears them
        "a-live-victim-clears-lower-priority-nomination",
        [
            make_node("n1").cap(cpu="2", memory="4Gi"),
            make_pod("t").priority(1).req(cpu="1").node("n1").terminating(),
            make_pod("u").priority(1).req(cpu="1").node("n1"),
            make_pod("q").priority(50).preemption_policy("Never").req(cpu="1").nominated("n1"),
            make_pod("p").priority(100).req(cpu="2"),
        ],
        "default/q",
        None,
    ),
]


@pytest.mark.parametrize(
    ("objs", "pod", "want"),
    [c[1:] for c in NOMINATION_CASES],
    ids=[c[0] for c in NOMINATION_CASES],
)
def test_lower_priority_nominations_after_preemption(
    objs: list[Any], pod: str, want: str | None
) -> None:
    assert _run(*objs)[pod]["nominatedNode"] == want


MESSAGE_CASES = [
    (
        # SelectVictimsOnNode: every potential victim is removed first, the affinity
        # target with them; InterPodAffinity then says UnschedulableAndUnresolvable
        "affinity-to-a-victim-is-not-helped",
        [
            make_node("n1").cap(cpu="2", memory="4Gi").labels(**{HOST: "n1"}),
            make_pod("t").labels(app="db").priority(1).req(cpu="2").node("n1"),
            make_pod("p").priority(100).req(cpu="1").pod_affinity({"app": "db"}, HOST),
        ],
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 node(s) didn't match pod affinity rules.",
    ),
    (
        # NodeResourcesFit rejects first (Unschedulable), the dry run re-checks and
        # PodTopologySpread's missing key is the reason reported
        "spread-missing-label-reported-by-the-dry-run",
        [
            make_node("n1").cap(cpu="2", memory="4Gi").labels(**{HOST: "n1"}),
            make_node("n2").cap(cpu="2", memory="4Gi").labels(**{HOST: "n2"}),
            make_pod("t").labels(app="x").priority(1).req(cpu="2").node("n1"),
            make_pod("t2").labels(app="x").priority(1).req(cpu="2").node("n2"),
            make_pod("p")
            .labels(app="x")
            .priority(100)
            .req(cpu="1")
            .spread(1, "zone", {"app": "x"}),
        ],
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/2 nodes are available: 2 node(s) didn't match pod topology "
        "spread constraints (missing required label).",
    ),
]


@pytest.mark.parametrize(
    ("objs", "want"), [c[1:] for c in MESSAGE_CASES], ids=[c[0] for c in MESSAGE_CASES]
)
def test_preemption_part_of_the_message(objs: list[Any], want: str) -> None:
    r = _run(*objs)["default/p"]
    assert (r["status"], r["message"], r["victims"]) == ("Unschedulable", want, [])
