"""Preemption cascades: victims a controller owns come back, are scheduled and preempt in turn."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.objects.owners import owner_of
from scheduler_engine.simulate import simulate

from .builders import make_node, make_pdb, make_pod


def _nodes(*names: str) -> list[dict[str, Any]]:
    return [make_node(n).cap(cpu="4", memory="8Gi").labels(tier=n).obj() for n in names]


def _chain() -> list[dict[str, Any]]:
    """train → inference (StatefulSet) → monitor (Deployment) → batch (Job) → nowhere.

    Each tier can go only to its own node or the next one down, so each
    replacement preempts the tier below it.
    """
    return [
        *_nodes("a", "b", "c", "d"),
        make_pod("inference-0")
        .priority(1000)
        .req(cpu="4")
        .node("a")
        .node_affinity_in("tier", "a", "b")
        .owner("StatefulSet", "inference")
        .obj(),
        make_pod("monitor-5d8c7-x2x9q")
        .priority(100)
        .req(cpu="4")
        .node("b")
        .node_affinity_in("tier", "b", "c")
        .labels({"pod-template-hash": "5d8c7", "app": "monitor"})
        .owner("ReplicaSet", "monitor-5d8c7")
        .obj(),
        make_pod("batch-k2v8s")
        .priority(10)
        .req(cpu="4")
        .node("c")
        .node_affinity_in("tier", "c", "d")
        .owner("Job", "batch")
        .obj(),
        make_pod("scratch").priority(1).req(cpu="4").node("d").obj(),
        make_pod("train").priority(10000).req(cpu="4").node_affinity_in("tier", "a").obj(),
    ]


def _cascade(objects: list[dict[str, Any]], depth: int = 10) -> tuple[dict[str, Any], dict]:
    doc = simulate(build_cluster(objects), seed=1, cascade_depth=depth).to_dict()
    return doc["summary"]["cascade"], {r["pod"]: r for r in doc["results"]}


def _evicted(level: dict[str, Any]) -> list[str]:
    return [e["pod"] for e in level["evictions"]]


def test_each_replacement_preempts_the_tier_below_it_down_to_a_bare_pod() -> None:
    cascade, results = _cascade(_chain())
    assert cascade["depth"] == 4
    assert cascade["stoppedBy"] == "end"
    levels = cascade["levels"]
    assert [lv["depth"] for lv in levels] == [1, 2, 3, 4]
    assert [_evicted(lv) for lv in levels] == [
        ["default/inference-0"],
        ["default/monitor-5d8c7-x2x9q"],
        ["default/batch-k2v8s"],
        ["default/scratch"],
    ]
    first, second, third, fourth = (lv["evictions"][0] for lv in levels)
    assert first["by"] == "default/train" and first["node"] == "a"
    # a StatefulSet's pod comes back under its own name, and preempts the next tier
    assert first["cause"] == "StatefulSet"
    assert first["recreatedAs"] == "default/inference-0"
    assert first["outcome"]["node"] == "b"
    assert second["by"] == "default/inference-0"
    # a Deployment's pod comes back through its ReplicaSet, under a new name
    assert second["cause"] == "Deployment"
    assert second["owner"] == {
        "kind": "ReplicaSet",
        "name": "monitor-5d8c7",
        "deployment": "monitor",
    }
    assert second["recreatedAs"].startswith("default/monitor-5d8c7-")
    assert second["recreatedAs"] != "default/monitor-5d8c7-x2x9q"
    assert third["cause"] == "Job" and third["recreatedAs"].startswith("default/batch-")
    assert fourth["cause"] == "bare" and fourth["recreatedAs"] is None
    assert results[third["recreatedAs"]]["node"] == "d"
    assert [lv["priorityClasses"] for lv in levels] == [{"(none)": 1}] * 4
    assert cascade["totals"] == {
        "evictions": 4,
        "recreated": 3,
        "placed": 3,
        "nowhereToGo": 0,
        "notRecreated": 1,
        "pdbViolations": 0,
        "brokenGangs": 0,
    }


def test_the_depth_limit_stops_the_chain_and_says_so() -> None:
    cascade, results = _cascade(_chain(), depth=2)
    assert cascade["depth"] == 2
    assert cascade["stoppedBy"] == "depthLimit"
    assert [_evicted(lv) for lv in cascade["levels"]] == [
        ["default/inference-0"],
        ["default/monitor-5d8c7-x2x9q"],
    ]
    # the victims at the limit are not recreated: the chain is not followed further
    assert cascade["levels"][1]["evictions"][0]["recreatedAs"] is None
    assert "default/batch-k2v8s" not in results


def test_a_replacement_with_nowhere_to_go_is_reported_with_its_message() -> None:
    objects = [o for o in _chain() if o["metadata"]["name"] != "scratch"]
    # the Job's pod has no lower tier to preempt on d: it stays pending
    objects.insert(0, make_pod("keeper").priority(50).req(cpu="4").node("d").obj())
    cascade, results = _cascade(objects)
    last = cascade["levels"][-1]
    assert last["depth"] == 3
    assert _evicted(last) == ["default/batch-k2v8s"]
    (nowhere,) = last["nowhereToGo"]
    assert nowhere["replaces"] == "default/batch-k2v8s"
    assert nowhere["status"] == "Unschedulable"
    assert nowhere["message"] == results[nowhere["pod"]]["message"]
    assert nowhere["message"].startswith("0/4 nodes are available")
    assert cascade["totals"]["nowhereToGo"] == 1


def test_a_pdb_steers_preemption_to_a_bare_pod_and_the_cascade_stops() -> None:
    def objects(protected: bool) -> list[dict[str, Any]]:
        objs = [
            *_nodes("a", "b"),
            # on a: a Deployment's pod, the lower priority of the two victims
            make_pod("web-5d8c7-abcde")
            .priority(10)
            .req(cpu="4")
            .node("a")
            .labels({"app": "web", "pod-template-hash": "5d8c7"})
            .owner("ReplicaSet", "web-5d8c7")
            .obj(),
            # on b: a bare pod nobody recreates
            make_pod("debug").priority(20).req(cpu="4").node("b").obj(),
            make_pod("train").priority(1000).req(cpu="4").obj(),
        ]
        if protected:
            objs.append(make_pdb("web", {"app": "web"}, 0))
        return objs

    free, _ = _cascade(objects(protected=False))
    assert _evicted(free["levels"][0]) == ["default/web-5d8c7-abcde"]
    assert free["totals"]["recreated"] == 1
    # fewest PDB violations first (upstream's pickOneNodeForPreemption): the bare pod goes
    stopped, _ = _cascade(objects(protected=True))
    assert _evicted(stopped["levels"][0]) == ["default/debug"]
    assert stopped["levels"][0]["evictions"][0]["cause"] == "bare"
    assert stopped["totals"] == {**stopped["totals"], "recreated": 0, "pdbViolations": 0}
    assert stopped["depth"] == 1


def test_a_pdb_that_must_be_violated_is_reported_at_its_depth() -> None:
    objs = [
        *_nodes("a"),
        make_pod("web-5d8c7-abcde")
        .priority(10)
        .req(cpu="4")
        .node("a")
        .labels({"app": "web", "pod-template-hash": "5d8c7"})
        .owner("ReplicaSet", "web-5d8c7")
        .obj(),
        make_pod("train").priority(1000).req(cpu="4").obj(),
        make_pdb("web", {"app": "web"}, 0),
    ]
    cascade, _ = _cascade(objs)
    (violation,) = cascade["levels"][0]["pdbViolations"]
    assert violation == {
        "pdb": "default/web",
        "disruptionsAllowed": 0,
        "evicted": ["default/web-5d8c7-abcde"],
        "evictedSoFar": 1,
        "alreadyViolated": False,
    }
    assert cascade["totals"]["pdbViolations"] == 1


@pytest.mark.parametrize(
    ("kind", "name", "labels", "annotations", "cause", "same_name", "prefix"),
    [
        ("ReplicaSet", "api-7f9", {}, {}, "ReplicaSet", False, "api-7f9-"),
        (
            "ReplicaSet",
            "api-7f9",
            {"pod-template-hash": "7f9"},
            {},
            "Deployment",
            False,
            "api-7f9-",
        ),
        ("StatefulSet", "db", {}, {}, "StatefulSet", True, "victim"),
        ("Job", "train", {}, {}, "Job", False, "train-"),
        (
            "Job",
            "train",
            {},
            {"batch.kubernetes.io/job-completion-index": "3"},
            "Job",
            False,
            "train-3-",
        ),
        ("DaemonSet", "agent", {}, {}, "DaemonSet", False, "agent-"),
        ("ReplicationController", "legacy", {}, {}, "ReplicationController", False, "legacy-"),
    ],
)
def test_each_controller_recreates_its_pod_under_its_own_naming(
    kind: str,
    name: str,
    labels: dict[str, str],
    annotations: dict[str, str],
    cause: str,
    same_name: bool,
    prefix: str,
) -> None:
    victim = make_pod("victim").priority(10).req(cpu="4").node("a").labels(labels).owner(kind, name)
    if annotations:
        victim.set("metadata.annotations", annotations)
    cascade, results = _cascade(
        [*_nodes("a"), victim.obj(), make_pod("train").priority(1000).req(cpu="4").obj()]
    )
    (e,) = cascade["levels"][0]["evictions"]
    assert e["cause"] == cause
    new = e["recreatedAs"]
    assert (new == "default/victim") is same_name
    assert new.split("/")[1].startswith(prefix)
    if not same_name:
        assert len(new.split("/")[1]) == len(prefix) + 5
    # the replacement is pending again, with nowhere to go on the one full node
    assert results[new]["status"] == "Unschedulable"
    assert cascade["levels"][0]["nowhereToGo"][0]["pod"] == new


@pytest.mark.parametrize(
    ("owner", "cause"),
    [(None, "bare"), (("MyOperatorJob", "x"), "unknownController")],
)
def test_pods_nobody_recreates_stay_gone(owner: tuple[str, str] | None, cause: str) -> None:
    victim = make_pod("victim").priority(10).req(cpu="4").node("a")
    if owner is not None:
        victim.owner(*owner)
    cascade, results = _cascade(
        [*_nodes("a"), victim.obj(), make_pod("train").priority(1000).req(cpu="4").obj()]
    )
    (e,) = cascade["levels"][0]["evictions"]
    assert e["cause"] == cause
    assert e["recreatedAs"] is None
    assert cascade["totals"]["notRecreated"] == 1
    assert set(results) == {"default/train"}


def test_without_cascade_depth_nothing_is_recreated() -> None:
    doc = simulate(build_cluster(_chain()), seed=1).to_dict()
    assert "cascade" not in doc["summary"]
    assert [r["pod"] for r in doc["results"]] == ["default/train"]
    assert doc["summary"]["evictions"] == 1


def test_an_owner_reference_without_controller_is_not_an_owner() -> None:
    p = make_pod("p").owner("ReplicaSet", "rs").obj()
    p["metadata"]["ownerReferences"][0]["controller"] = False
    cluster = build_cluster([p])
    assert owner_of(cluster.pods[0]) is None


def _write(tmp_path: Any, objects: list[dict[str, Any]]) -> str:
    path = tmp_path / "snap.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return str(path)


def test_the_cli_follows_the_cascade_with_a_flag(tmp_path: Any) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "scheduler_engine",
            "simulate",
            "--snapshot",
            _write(tmp_path, _chain()),
            "--seed",
            "1",
            "--cascade",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    cascade = json.loads(out.stdout)["summary"]["cascade"]
    assert cascade["depthLimit"] == 3
    assert cascade["depth"] == 3
    assert cascade["stoppedBy"] == "depthLimit"


@pytest.mark.parametrize("bad", ["0", "x", "21"])
def test_the_cli_refuses_a_bad_depth_in_one_line(tmp_path: Any, bad: str) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "scheduler_engine",
            "simulate",
            "--snapshot",
            _write(tmp_path, _chain()),
            "--cascade",
            bad,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "argument --cascade: must be" in out.stderr


def test_a_gang_losing_a_member_is_reported_broken_at_its_depth() -> None:
    group = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "llm", "namespace": "default"},
        "spec": {"minMember": 2},
    }
    members = [
        make_pod(f"llm-{i}")
        .priority(10)
        .req(cpu="4")
        .node(n)
        .labels({"scheduling.x-k8s.io/pod-group": "llm"})
        .owner("Job", "llm")
        .obj()
        for i, n in enumerate(("a", "b"))
    ]
    objs = [*_nodes("a", "b"), group, *members]
    objs.append(make_pod("train").priority(1000).req(cpu="4").node_affinity_in("tier", "a").obj())
    cascade, _ = _cascade(objs)
    (broken,) = cascade["levels"][0]["brokenGangs"]
    assert broken["name"] == "default/llm"
    assert broken["evicted"] == ["default/llm-0"]
    assert (broken["minMember"], broken["remaining"], broken["belowMinMember"]) == (2, 1, True)
    assert cascade["totals"]["brokenGangs"] == 1
