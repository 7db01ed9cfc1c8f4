"""Preemption end to end, through the engine CLI's documented contract.

``python -m scheduler_engine simulate --snapshot FILE`` prints one JSON
document (the design's CLI contract); the ``FailedScheduling`` messages below
are the ones a real kube-scheduler v1.36 writes for these clusters (default
profile: DynamicResources' PostFilter speaks first, then DefaultPreemption).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .builders import make_node, make_pod

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("scheduler_engine.__main__") is None,
    reason="the simulate CLI is not there yet",
)

NOT_HELPFUL = "Preemption is not helpful for scheduling"


def simulate(tmp_path: Path, *items: Any) -> dict[str, dict[str, Any]]:
    snap = tmp_path / "cluster.json"
    snap.write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": [i.obj() for i in items]})
    )
    out = subprocess.run(
        [sys.executable, "-m", "scheduler_engine", "simulate", "--snapshot", str(snap)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return {r["pod"]: r for r in json.loads(out.stdout)["results"]}


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


def test_lower_priority_pod_is_evicted_for_a_higher_priority_one(tmp_path: Path) -> None:
    res = simulate(
        tmp_path,
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_pod("low").priority(10).req(cpu="2").node("n1"),
        make_pod("high").priority(1000).req(cpu="1"),
    )
    high = res["default/high"]
    assert high["victims"] == ["default/low"]
    _preempted_onto(high, "n1")


def test_request_above_every_node_is_not_helped_by_preemption(tmp_path: Path) -> None:
    res = simulate(
        tmp_path,
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


def test_preemption_policy_never_is_not_eligible(tmp_path: Path) -> None:
    res = simulate(
        tmp_path,
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


def test_no_lower_priority_pods_means_no_victims(tmp_path: Path) -> None:
    res = simulate(
        tmp_path,
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


def test_node_whose_victims_respect_pdbs_is_preferred(tmp_path: Path) -> None:
    res = simulate(
        tmp_path,
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


def test_node_with_the_lowest_priority_victims_is_chosen(tmp_path: Path) -> None:
    res = simulate(
        tmp_path,
        make_node("n1").cap(cpu="2", memory="4Gi"),
        make_node("n2").cap(cpu="2", memory="4Gi"),
        make_pod("mid").priority(100).req(cpu="2").node("n1"),
        make_pod("low").priority(10).req(cpu="2").node("n2"),
        make_pod("high").priority(1000).req(cpu="1"),
    )
    high = res["default/high"]
    assert high["victims"] == ["default/low"]
    _preempted_onto(high, "n2")


def test_only_as_many_victims_as_needed(tmp_path: Path) -> None:
    res = simulate(
        tmp_path,
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
