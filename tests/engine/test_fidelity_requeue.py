"""Which unschedulable pods a real kube-scheduler tries again, and so which message stays.

Upstream (``backend/queue/scheduling_queue.go``, ``isPodWorthRequeuing``) moves
a pod out of the unschedulable pool only on a cluster event that one of its
rejecting plugins registered in ``EventsToRegister`` with a hint that says
Queue.  NodeResourcesFit registers pod *Delete* (``noderesources/fit.go``,
``isSchedulableAfterPodEvent``) but not pod *Add*: another pod binding can
never make room, so the pod keeps the ``FailedScheduling`` message of its
first attempt.  TaintToleration, NodeAffinity, NodeName and NodeUnschedulable
register node events only.  InterPodAffinity and PodTopologySpread register
pod Add and Delete; an eviction by preemption is a pod Delete.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.simulate import simulate

from .builders import make_node, make_pod

TAIL = (
    "no new claims to deallocate, preemption: 0/{n} nodes are available: "
    "{n} Preemption is not helpful for scheduling."
)


def _run(*items: Any) -> dict[str, dict[str, Any]]:
    doc = simulate(build_cluster([i.obj() for i in items]), seed=1).to_dict()
    return {r["pod"]: r for r in doc["results"]}


CASES = [
    (
        # a later pod's bind fills memory too; Fit ignores pod Add, so the first message stays
        "fit-rejected-pod-keeps-first-message-after-a-later-bind",
        [
            make_node("n1").cap(cpu="2", memory="2Gi"),
            make_pod("big").req(cpu="3", memory="1Gi"),
            make_pod("filler").req(cpu="100m", memory="2Gi"),
        ],
        "default/big",
        None,
        "0/1 nodes are available: 1 Insufficient cpu. " + TAIL.format(n=1),
    ),
    (
        # taints are node events only: a later bind does not retry the pod either
        "taint-and-fit-rejected-pod-keeps-first-message-after-a-later-bind",
        [
            make_node("n1").cap(cpu="2", memory="2Gi"),
            make_node("n2").cap(cpu="8", memory="8Gi").taint("k", "v", "NoSchedule"),
            make_pod("big").req(cpu="3", memory="1Gi"),
            make_pod("filler").req(cpu="100m", memory="2Gi"),
        ],
        "default/big",
        None,
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). "
        + TAIL.format(n=2),
    ),
    (
        # required pod affinity: the bind of a matching pod re-queues it, and it lands
        "affinity-rejected-pod-is-retried-after-a-matching-bind",
        [
            make_node("n1").cap(cpu="4", memory="4Gi").labels(zone="a"),
            make_pod("web").pod_affinity({"app": "db"}, "zone"),
            make_pod("db").labels(app="db"),
        ],
        "default/web",
        "n1",
        "Successfully assigned default/web to n1",
    ),
]


@pytest.mark.parametrize(
    ("objs", "pod", "node", "message"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_unschedulable_pods_are_retried_only_on_their_plugins_events(
    objs: list[Any], pod: str, node: str | None, message: str
) -> None:
    r = _run(*objs)[pod]
    assert r["node"] == node
    assert r["message"] == message


PREEMPTION_CASES = [
    (
        # upstream: the victim's Delete re-queues both pods (Fit registers pod Delete);
        # the higher-priority one pops first and ignores the lower-priority nomination
        # (framework.go addGENominatedPods counts only nominated pods of >= priority)
        "higher-priority-pod-takes-room-freed-for-a-lower-priority-preemptor",
        [
            make_node("n1").cap(cpu="2", memory="4Gi"),
            make_pod("low").priority(10).req(cpu="2").node("n1"),
            make_pod("vip").priority(100000).preemption_policy("Never").req(cpu="2"),
            make_pod("pre").priority(1000).req(cpu="2"),
        ],
        {
            "default/vip": ("n1", None, []),
            "default/pre": (None, None, ["default/low"]),
        },
    ),
    (
        # nothing else wants the room: the preemptor lands on its nominated node
        "preemptor-lands-on-its-nominated-node-when-retried",
        [
            make_node("n1").cap(cpu="2", memory="4Gi"),
            make_pod("low").priority(10).req(cpu="2").node("n1"),
            make_pod("pre").priority(1000).req(cpu="2"),
        ],
        # bound: the nomination is cleared at binding (ClearingNominatedNodeNameAfterBinding)
        {"default/pre": ("n1", None, ["default/low"])},
    ),
]


@pytest.mark.parametrize(
    ("objs", "want"),
    [c[1:] for c in PREEMPTION_CASES],
    ids=[c[0] for c in PREEMPTION_CASES],
)
def test_pods_requeued_by_a_preemptors_victims_go_in_priority_order(
    objs: list[Any], want: dict[str, tuple[str | None, str | None, list[str]]]
) -> None:
    res = _run(*objs)
    got = {k: (res[k]["node"], res[k]["nominatedNode"], res[k]["victims"]) for k in want}
    assert got == want
