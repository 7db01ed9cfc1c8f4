"""Preemption end to end, through the public ``simulate`` API.

``simulate(cluster).to_dict()`` is the JSON document of the engine CLI's
contract; the ``FailedScheduling`` messages below are the ones a real
kube-scheduler v1.36 writes for these clusters (default profile:
DynamicResources' PostFilter speaks first, then DefaultPreemption).
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster

from .builders import make_node, make_pod

simulate_api = pytest.importorskip("scheduler_engine.simulate")

NOT_HELPFUL = "Preemption is not helpful for scheduling"


def simulate(*items: Any) -> dict[str, dict[str, Any]]:
    cluster = build_cluster([i.obj() for i in items])
    doc = simulate_api.simulate(cluster, seed=1).to_dict()
    return {r["pod"]: r for r in doc["results"]}


def pdb(name: str, labels: dict[str, str], allowed: int) -> Any:
    class _Obj:
        def obj(self) -> dict[str, Any]:
            return {
                "apiVersion": "policy/v1",
                "kind": "PodDisruptionBudget",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {"selector": {"matchLabels": labels}},
                "status": {"disruptionsAllowed": allowed},
            }

    return _Obj()


def _preempted_onto(result: dict[str, Any], node: str) -> None:
    # once its victims are gone the pod either lands on the node or stays nominated there
    assert result["node"] == node or result["nominatedNode"] == node, result


def test_lower_priority_pod_is_evicted_for_a_higher_priority_one() -> None:
    res = simulate(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_pod("low").priority(10).req(cpu="2").node("n1"),
        make_pod("high").priority(1000).req(cpu="1"),
    )
    high = res["default/high"]
    assert high["victims"] == ["default/low"]
    _preempted_onto(high, "n1")


def test_request_above_every_node_is_not_helped_by_preemption() -> None:
    res = simulate(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_node("n2").cap(cpu="2", memory="4Gi"),
        make_node("n3").cap(cpu="2", memory="4Gi"),
        make_pod("low").priority(10).req(cpu="1").node("n1"),
        make_pod("big").priority(1000).req(cpu="3"),
    )
    big = res["default/big"]
    assert big["status"] == "Unschedulable"
    assert big["message"] == (
        "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, "
        f"preemption: 0/3 nodes are available: 3 {NOT_HELPFUL}."
    )
    assert not big["victims"]


def test_preemption_policy_never_is_not_eligible() -> None:
    res = simulate(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_pod("low").priority(10).req(cpu="2").node("n1"),
        make_pod("polite").priority(1000).req(cpu="1").preemption_policy("Never"),
    )
    polite = res["default/polite"]
    assert polite["status"] == "Unschedulable"
    assert polite["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: not eligible due to preemptionPolicy=Never."
    )
    assert not polite["victims"]


def test_no_lower_priority_pods_means_no_victims() -> None:
    res = simulate(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_pod("peer").priority(1000).req(cpu="2").node("n1"),
        make_pod("p").priority(1000).req(cpu="1"),
    )
    p = res["default/p"]
    assert p["status"] == "Unschedulable"
    assert p["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


def test_node_whose_victims_respect_pdbs_is_preferred() -> None:
    res = simulate(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_node("n2").cap(cpu="2", memory="4Gi"),
        make_pod("guarded").priority(10).req(cpu="2").labels(app="db").node("n1"),
        make_pod("free").priority(100).req(cpu="2").labels(app="web").node("n2"),
        pdb("db", {"app": "db"}, 0),
        make_pod("high").priority(1000).req(cpu="1"),
    )
    high = res["default/high"]
    assert high["victims"] == ["default/free"]
    _preempted_onto(high, "n2")


def test_node_with_the_lowest_priority_victims_is_chosen() -> None:
    res = simulate(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_node("n2").cap(cpu="2", memory="4Gi"),
        make_pod("mid").priority(100).req(cpu="2").node("n1"),
        make_pod("low").priority(10).req(cpu="2").node("n2"),
        make_pod("high").priority(1000).req(cpu="1"),
    )
    high = res["default/high"]
    assert high["victims"] == ["default/low"]
    _preempted_onto(high, "n2")


def test_only_as_many_victims_as_needed() -> None:
    res = simulate(
        make_node("n1").cap(cpu="4", memory="8Gi"),
        make_pod("a")
        .priority(10)
        .req(cpu="1")
        .node("n1")
        .set("status.startTime", "2024-01-01T00:00:01Z"),
        make_pod("b")
        .priority(20)
        .req(cpu="1")
        .node("n1")
        .set("status.startTime", "2024-01-01T00:00:02Z"),
        make_pod("c")
        .priority(30)
        .req(cpu="2")
        .node("n1")
        .set("status.startTime", "2024-01-01T00:00:03Z"),
        make_pod("high").priority(1000).req(cpu="2"),
    )
    high = res["default/high"]
    # c, the most important, is reprieved first and fits; then neither b nor a fits beside it
    assert sorted(high["victims"]) == ["default/a", "default/b"]
    _preempted_onto(high, "n1")
