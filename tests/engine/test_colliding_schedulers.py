"""Two schedulers with their own caches double-book a node; the kubelet refuses the late pod."""

from __future__ import annotations

import json

import pytest

from scheduler_engine import build_cluster, load_config
from scheduler_engine.cli import main
from scheduler_engine.collisions import kubelet_admission, simulate_colliding
from scheduler_engine.errors import InputError
from scheduler_engine.framework.node_info import NodeInfo
from tests.engine.builders import GPU, cluster_objects, make_node, make_pod

TWO = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "batch-scheduler"}],
}


def _cluster(*extra):
    # one node with room for one 3-CPU pod; each scheduler has one such pod
    return build_cluster(
        cluster_objects(
            make_node("n1").cap(cpu="4", memory="16Gi", pods=110),
            make_pod("a").req(cpu="3", memory="1Gi").created("2024-01-01T00:00:01Z"),
            make_pod("b")
            .scheduler("batch-scheduler")
            .req(cpu="3", memory="1Gi")
            .created("2024-01-01T00:00:02Z"),
            *extra,
        )
    )


def test_a_lagging_cache_double_books_the_node_and_the_kubelet_refuses_the_second_pod():
    doc = simulate_colliding(_cluster(), load_config(TWO), lag_cycles=3)
    res = {r["pod"]: r for r in doc["results"]}
    assert (res["default/a"]["node"], res["default/a"]["kubelet"]) == ("n1", None)
    assert res["default/b"]["node"] == "n1"
    assert res["default/b"]["profile"] == "batch-scheduler"
    assert res["default/b"]["kubelet"] == {
        "reason": "OutOfcpu",
        "message": "Node didn't have enough resource: cpu, requested: 3000, used: 3000, "
        "capacity: 4000",
    }
    [refused] = doc["collisions"]["refused"]
    assert (refused["pod"], refused["node"], refused["unseen"]) == (
        "default/b",
        "n1",
        ["default/a"],
    )
    assert doc["collisions"]["doubleBookedNodes"] == [{"node": "n1", "refused": ["default/b"]}]
    assert doc["collisions"]["refusedByReason"] == {"OutOfcpu": 1}


def test_lag_zero_sees_every_binding_and_books_nothing_twice():
    doc = simulate_colliding(_cluster(), load_config(TWO), lag_cycles=0)
    res = {r["pod"]: r for r in doc["results"]}
    assert res["default/a"]["status"] == "Scheduled"
    assert res["default/b"]["status"] == "Unschedulable"
    assert "Insufficient cpu" in res["default/b"]["message"]
    assert doc["collisions"]["refused"] == []


def test_a_binding_arrives_after_exactly_the_lag():
    # a is bound in cycle 0 and b tried in cycle 1: lag 1 hides a from b
    assert simulate_colliding(_cluster(), load_config(TWO), lag_cycles=1)["collisions"]["refused"]
    # c, the batch scheduler's next pod, is tried in cycle 2: a is visible from cycle 0 + 1 + lag
    late = make_pod("c").scheduler("batch-scheduler").req(cpu="1").created("2024-01-01T00:00:03Z")
    doc = simulate_colliding(_cluster(late), load_config(TWO), lag_cycles=1)
    res = {r["pod"]: r for r in doc["results"]}
    assert res["default/c"]["status"] == "Unschedulable"
    # with lag 2 c does not see a, and fits next to it on the node the kubelet knows
    # (b was refused there, so it holds nothing)
    doc = simulate_colliding(_cluster(late), load_config(TWO), lag_cycles=2)
    res = {r["pod"]: r for r in doc["results"]}
    assert (res["default/c"]["node"], res["default/c"]["kubelet"]) == ("n1", None)
    assert res["default/c"]["cycle"] == 2


def test_gpus_double_booked_are_refused_as_out_of_nvidia_gpu():
    cluster = build_cluster(
        cluster_objects(
            make_node("g1").cap(cpu="32", memory="64Gi", pods=110, gpu=8),
            make_pod("train").req(cpu="1").gpu(6).created("2024-01-01T00:00:01Z"),
            make_pod("infer")
            .scheduler("batch-scheduler")
            .req(cpu="1")
            .gpu(4)
            .created("2024-01-01T00:00:02Z"),
        )
    )
    doc = simulate_colliding(cluster, load_config(TWO), lag_cycles=5)
    [refused] = doc["collisions"]["refused"]
    assert refused["pod"] == "default/infer"
    assert refused["reason"] == f"OutOf{GPU}"
    assert refused["message"] == (
        f"Node didn't have enough resource: {GPU}, requested: 4, used: 6, capacity: 8"
    )


def test_the_kubelet_counts_pods_first_and_skips_resources_the_node_lacks():
    node = make_node("n").cap(cpu="4", memory="4Gi", pods=1).node()
    ni = NodeInfo(node)
    assert (
        kubelet_admission(make_pod("x").req(cpu="1").res("example.com/fpga", 1).pod(), ni) is None
    )
    ni.add_pod(make_pod("y").req(cpu="1").pod())
    refusal = kubelet_admission(make_pod("z").req(cpu="8").pod(), ni)
    assert refusal is not None and refusal.reason == "OutOfpods"


def test_one_profile_or_a_negative_lag_is_refused_naming_the_field():
    with pytest.raises(InputError, match="profiles"):
        simulate_colliding(_cluster(), None, lag_cycles=1)
    with pytest.raises(InputError, match="lagCycles"):
        simulate_colliding(_cluster(), load_config(TWO), lag_cycles=-1)


def test_the_cli_reports_collisions(tmp_path, capsys):
    snap = tmp_path / "s.json"
    objs = cluster_objects(
        make_node("n1").cap(cpu="4", memory="16Gi", pods=110),
        make_pod("a").req(cpu="3", memory="1Gi").created("2024-01-01T00:00:01Z"),
        make_pod("b").scheduler("batch-scheduler").req(cpu="3").created("2024-01-01T00:00:02Z"),
    )
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps(TWO))
    argv = ["simulate", "--snapshot", str(snap), "--config", str(cfg), "--scheduler-lag", "2"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["pod"] for r in doc["collisions"]["refused"]] == ["default/b"]
    assert main([*argv, "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert "kubelet on n1 refuses default/b (batch-scheduler): OutOfcpu: Node didn't" in table
    # one profile: exit 2, one line naming the file and the field
    assert main(["simulate", "--snapshot", str(snap), "--scheduler-lag", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "profiles" in err[0]
