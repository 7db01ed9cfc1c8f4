"""The events of every attempt, and the pods the scheduler never attempts.

Exact event lists for preemption with and without a PDB (the preemptor's
first ``FailedScheduling`` has no ``preemption:`` tail when a node is
nominated, its victims get ``Preempted`` naming the preemptor's UID, and the
later attempt binds it), for pods held back by PreEnqueue (``Skipped``, no
event, the ``PodScheduled`` condition's message or none), and random
clusters where the events must agree with the results they belong to.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_engine import build_cluster, simulate

from .builders import make_node, make_pod
from .randomgen import random_cluster


def run(*items: Any, seed: int = 1) -> dict[str, Any]:
    objs = [i if isinstance(i, dict) else i.obj() for i in items]
    return simulate(build_cluster(objs), seed=seed).to_dict()


def by_pod(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["pod"]: r for r in doc["results"]}


def failed(message: str) -> dict[str, str]:
    return {"type": "Warning", "reason": "FailedScheduling", "message": message}


def bound(pod: str, node: str) -> dict[str, str]:
    msg = f"Successfully assigned {pod} to {node}"
    return {"type": "Normal", "reason": "Scheduled", "message": msg}


def preempted(uid: str, node: str) -> dict[str, str]:
    msg = f"Preempted by pod {uid} on node {node}"
    return {"type": "Normal", "reason": "Preempted", "message": msg}


def pdb(name: str, labels: dict[str, str], allowed: int) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": labels}},
        "status": {"disruptionsAllowed": allowed},
    }


def test_preemptor_fails_once_without_preemption_tail_then_binds() -> None:
    doc = run(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_node("n2").cap(cpu="2", memory="4Gi"),
        make_pod("low").priority(10).req(cpu="2").node("n1"),
        make_pod("other").priority(500).req(cpu="2").node("n2"),
        make_pod("high").priority(1000).req(cpu="1").uid("8d1c-high"),
    )
    high = by_pod(doc)["default/high"]
    assert high["status"] == "Scheduled" and high["victims"] == ["default/low"]
    assert high["events"] == [
        failed("0/2 nodes are available: 2 Insufficient cpu."),
        bound("default/high", "n1"),
    ]
    # the victim is a running pod: its event is in the run's stream, before the bind
    assert doc["events"] == [
        {"pod": "default/high", **failed("0/2 nodes are available: 2 Insufficient cpu.")},
        {"pod": "default/low", **preempted("8d1c-high", "n1")},
        {"pod": "default/high", **bound("default/high", "n1")},
    ]


@pytest.mark.parametrize(
    ("allowed", "victim", "node"),
    [(0, "default/free", "b"), (1, "default/guarded", "a")],
    ids=["pdb-protects", "pdb-allows"],
)
def test_preemption_with_a_pdb(allowed: int, victim: str, node: str) -> None:
    doc = run(
        make_node("a").cap(cpu="2", memory="8Gi"),
        make_node("b").cap(cpu="2", memory="8Gi"),
        # the guarded victim has the lower priority: it goes first unless the PDB forbids
        make_pod("guarded").req(cpu="1500m").priority(1).labels(app="db").node("a"),
        make_pod("free").req(cpu="1500m").priority(2).labels(app="web").node("b"),
        make_pod("high").req(cpu="1").priority(100),
        pdb("db", {"app": "db"}, allowed),
    )
    high = by_pod(doc)["default/high"]
    assert high["victims"] == [victim]
    assert high["events"] == [
        failed("0/2 nodes are available: 2 Insufficient cpu."),
        bound("default/high", node),
    ]
    assert {"pod": victim, **preempted("uid-high", node)} in doc["events"]
    assert sum(e["reason"] == "Preempted" for e in doc["events"]) == 1


def test_unschedulable_pod_has_one_event_per_attempt_with_its_message() -> None:
    doc = run(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_pod("big").req(cpu="3"),
    )
    big = by_pod(doc)["default/big"]
    assert big["status"] == "Unschedulable"
    assert big["events"] == [failed(big["message"])]
    assert big["message"].startswith("0/1 nodes are available: 1 Insufficient cpu. ")


def test_gated_pod_is_skipped_with_the_api_servers_condition() -> None:
    doc = run(make_node("n").cap(cpu="1", memory="1Gi"), make_pod("p").gate("example.com/a"))
    r = by_pod(doc)["default/p"]
    assert r["status"] == "Skipped" and r["node"] is None and r["events"] == []
    assert r["message"] == "Scheduling is blocked due to non-empty scheduling gates"
    assert r["preEnqueue"] == {
        "plugin": "SchedulingGates",
        "reason": "waiting for scheduling gates: [example.com/a]",
    }
    assert doc["events"] == [] and doc["summary"]["attempts"] == 0


def test_a_condition_already_on_the_pod_is_kept() -> None:
    p = make_pod("p").gate("g").obj()
    cond = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "x"}
    p["status"] = {"conditions": [cond]}
    r = by_pod(run(make_node("n").cap(cpu="1", memory="1Gi"), p))["default/p"]
    assert r["status"] == "Skipped" and r["message"] == "x"


def test_pod_whose_template_claim_is_not_made_yet_is_skipped_without_message() -> None:
    p = make_pod("p").obj()
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
    r = by_pod(run(make_node("n").cap(cpu="1", memory="1Gi"), p))["default/p"]
    assert r["status"] == "Skipped" and r["message"] is None and r["events"] == []
    assert r["preEnqueue"]["plugin"] == "DynamicResources"


def test_pod_being_deleted_gets_the_skip_event() -> None:
    doc = run(make_node("n").cap(cpu="1", memory="1Gi"), make_pod("p").terminating())
    r = by_pod(doc)["default/p"]
    msg = "skip schedule deleting pod: default/p"
    assert r["status"] == "Skipped" and r["message"] == msg
    assert r["events"] == [failed(msg)]


def test_victim_already_being_deleted_gets_no_preempted_event() -> None:
    doc = run(
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_pod("low").priority(10).req(cpu="2").node("n1").terminating(),
        make_pod("high").priority(1000).req(cpu="1"),
    )
    assert [e["reason"] for e in doc["events"]] == ["FailedScheduling", "Scheduled"]


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_events_agree_with_results_on_random_clusters(seed: int) -> None:
    objs = random_cluster(random.Random(seed), max_nodes=12, max_running=20, max_pending=12)
    uids = {
        f"{o['metadata'].get('namespace', 'default')}/{o['metadata']['name']}": o["metadata"].get(
            "uid"
        )
        for o in objs
        if o.get("kind") == "Pod"
    }
    cluster = build_cluster(objs)
    sim = simulate(cluster, seed=seed)
    doc = sim.to_dict()
    attempts = {r.pod: r.attempts for r in sim.results}
    stream_by_pod: dict[str, list[dict[str, str]]] = {}
    for e in doc["events"]:
        stream_by_pod.setdefault(e["pod"], []).append({k: v for k, v in e.items() if k != "pod"})
    for r in doc["results"]:
        events = r["events"]
        assert stream_by_pod.get(r["pod"], []) == events
        own = [e for e in events if e["reason"] != "Preempted"]
        if r["status"] == "Skipped":
            assert not own or own == [failed(r["message"])]
            continue
        # one event per attempt, the last one says how the pod ended
        assert len(own) == attempts[r["pod"]]
        assert all(e["reason"] == "FailedScheduling" for e in own[:-1])
        if r["status"] == "Scheduled":
            assert own[-1] == bound(r["pod"], r["node"])
        else:
            assert own[-1] == failed(r["message"])
        assert all(len(e["message"]) <= 1024 for e in own)
        # every victim has its Preempted event naming this pod's UID
        uid = uids[r["pod"]] or r["pod"]
        for v in r["victims"]:
            assert any(
                e["pod"] == v and e["message"].startswith(f"Preempted by pod {uid} on node ")
                for e in doc["events"]
            )


# -- several pending pods and preemption ------------------------------------------------
NO_VICTIMS = "No preemption victims found for incoming pod"


def test_victims_still_terminate_while_the_rest_of_the_queue_is_scheduled() -> None:
    # A preempts v on n; upstream deletes v while B and L are tried, so L (lower than A,
    # counted with A's nomination) does not fit beside the terminating v.  Once v is
    # gone A binds, and B finds nothing of lower priority on n to preempt: L never got
    # there, so it is not a victim candidate (it was, when victims vanished at once).
    doc = run(
        make_node("n").cap(cpu="6", memory="8Gi"),
        make_pod("v").priority(100).req(cpu="4").node("n"),
        make_pod("a").priority(1000).req(cpu="4").uid("uid-a"),
        make_pod("b").priority(50).req(cpu="4"),
        make_pod("l").priority(10).req(cpu="2"),
    )
    res = by_pod(doc)
    assert res["default/a"]["node"] == "n" and res["default/a"]["victims"] == ["default/v"]
    assert res["default/l"]["node"] == "n"
    assert res["default/l"]["events"] == [
        failed(
            "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
            f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}."
        ),
        bound("default/l", "n"),
    ]
    b = res["default/b"]
    assert b["status"] == "Unschedulable" and b["victims"] == []
    assert b["message"] == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        f"preemption: 0/1 nodes are available: 1 {NO_VICTIMS}."
    )
    assert [e["pod"] for e in doc["events"] if e["reason"] == "Preempted"] == ["default/v"]


def test_a_later_preemptor_may_choose_victims_already_terminating() -> None:
    # both preemptors want n; the second finds the first's victim still terminating there,
    # counts it among its own candidates, and no second Preempted event is recorded for it
    doc = run(
        make_node("n").cap(cpu="4", memory="8Gi"),
        make_pod("v").priority(1).req(cpu="4").node("n"),
        make_pod("a").priority(1000).req(cpu="2"),
        make_pod("b").priority(900).req(cpu="2"),
    )
    res = by_pod(doc)
    assert {res["default/a"]["node"], res["default/b"]["node"]} == {"n"}
    assert [e["pod"] for e in doc["events"] if e["reason"] == "Preempted"] == ["default/v"]
