"""The scheduling loop end to end through simulate(), with the in-tree plugins."""

from __future__ import annotations

import dataclasses
import random

import pytest

from scheduler_engine import build_cluster, default_config, default_registry, simulate
from scheduler_engine.config.types import PluginRef, SchedulerConfig
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.scheduler.schedule_one import num_feasible_nodes_to_find
from tests.engine.builders import cluster_objects, make_node, make_pod
from tests.engine.fakes import Fake

PREEMPTION_NOT_HELPFUL = (
    "no new claims to deallocate, preemption: 0/{n} nodes are available: "
    "{n} Preemption is not helpful for scheduling."
)


def run(*builders, **kw):
    return simulate(build_cluster(cluster_objects(*builders)), **kw)


@pytest.mark.parametrize(
    ("profile_pct", "global_pct", "nodes", "expected"),
    [
        (None, None, 50, 50),
        (None, None, 99, 99),
        (None, None, 100, 100),
        (None, None, 1000, 420),
        (None, None, 5000, 500),
        (None, None, 6000, 300),
        (None, None, 10000, 500),
        (None, 30, 1000, 300),
        (10, 30, 1000, 100),
        (1, None, 5000, 100),
        (0, 30, 1000, 420),
        (100, None, 5000, 5000),
    ],
    ids=[
        "few-nodes-all",
        "just-below-minimum",
        "at-minimum",
        "adaptive-1000",
        "adaptive-5000",
        "adaptive-floor-5-percent",
        "adaptive-10000",
        "global-percentage",
        "profile-overrides-global",
        "at-least-100",
        "profile-zero-is-adaptive",
        "all-nodes",
    ],
)
def test_num_feasible_nodes_to_find(profile_pct, global_pct, nodes, expected):
    assert num_feasible_nodes_to_find(profile_pct, global_pct, nodes) == expected


def test_issue_fact_messages_three_node_cluster():
    nodes = (
        make_node("cordoned").cap(cpu=4, memory="8Gi").unschedulable(),
        make_node("tainted").cap(cpu=4, memory="8Gi").taint("dedicated", "x"),
        make_node("plain").cap(cpu=1, memory="1Gi"),
    )
    r = run(
        *nodes,
        make_pod("big").req(cpu=2, memory="2Gi"),
        make_pod("aff").node_affinity_in("zone", "nope"),
    ).by_pod()
    assert r["default/big"].message == (
        "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
        "1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. "
        + PREEMPTION_NOT_HELPFUL.format(n=3)
    )
    assert r["default/aff"].message == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. "
        + PREEMPTION_NOT_HELPFUL.format(n=3)
    )


def test_each_decision_changes_what_the_next_pod_sees():
    r = run(
        make_node("n").cap(cpu=1, memory="4Gi"),
        make_pod("a").req(cpu="600m"),
        make_pod("b").req(cpu="600m"),
    ).by_pod()
    assert r["default/a"].status == "Scheduled"
    assert r["default/b"].status == "Unschedulable"
    assert r["default/b"].message.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_one_feasible_node_is_not_scored():
    r = run(
        make_node("a").cap(cpu=4, memory="8Gi"),
        make_node("b").cap(cpu=4, memory="8Gi").taint("t"),
        make_pod("p"),
        explain=True,
    ).results[0]
    assert (r.node, r.scores, r.plugin_scores) == ("a", {}, {})


def test_explain_records_scores_and_failures():
    r = run(
        make_node("a").cap(cpu=4, memory="8Gi"),
        make_node("b").cap(cpu=8, memory="8Gi"),
        make_node("c").cap(cpu=4, memory="8Gi").taint("t"),
        make_pod("p").req(cpu=1),
        explain=True,
    ).results[0]
    assert set(r.scores) == {"a", "b"}
    assert r.filter_failures == {
        "c": {"plugin": "TaintToleration", "reason": "node(s) had untolerated taint(s)"}
    }
    fit = r.plugin_scores["b"]["NodeResourcesFit"]
    assert fit["weighted"] == fit["normalized"] * 1
    assert r.scores["b"] == sum(v["weighted"] for v in r.plugin_scores["b"].values())
    assert r.node == max(r.scores, key=r.scores.get)


def _random_cluster(seed: int):
    rng = random.Random(seed)
    objs = []
    for i in range(rng.randint(3, 40)):
        b = make_node(f"n{i}").cap(cpu=rng.choice([1, 2, 4, 8]), memory=rng.choice(["2Gi", "8Gi"]))
        b.zone(rng.choice("abc"))
        if rng.random() < 0.15:
            b.taint("dedicated", "gpu")
        if rng.random() < 0.1:
            b.unschedulable()
        b.labels(tier=rng.choice(["x", "y"]))
        objs.append(b)
    for i in range(rng.randint(1, 60)):
        p = make_pod(f"p{i}").req(cpu=rng.choice(["100m", "500m", "1", "3"]), memory="256Mi")
        p.priority(rng.choice([0, 0, 10, 100])).labels(app=rng.choice(["w", "v"]))
        if rng.random() < 0.2:
            p.node_selector(tier="x")
        if rng.random() < 0.2:
            p.toleration("dedicated", "gpu", "NoSchedule")
        if rng.random() < 0.1:
            p.pod_anti_affinity({"app": "w"})
        if rng.random() < 0.1:
            p.spread(1, "topology.kubernetes.io/zone", {"app": "v"})
        objs.append(p)
    return build_cluster(cluster_objects(*objs))


def _decisions(result):
    return [
        (r.pod, r.status, r.node, r.message, r.nominated_node, r.victims) for r in result.results
    ]


@pytest.mark.parametrize("seed", range(12))
def test_fast_path_and_per_node_path_decide_identically(seed):
    cluster = _random_cluster(seed)
    fast = simulate(cluster, seed=seed)
    slow = simulate(cluster, seed=seed, batch=False)
    explained = simulate(cluster, seed=seed, explain=True)
    assert _decisions(fast) == _decisions(slow) == _decisions(explained)


@pytest.mark.parametrize("seed", range(8))
def test_all_nodes_tied_go_to_the_first_feasible_node(seed):
    """Upstream's heap over equal totals leaves the feasible list's first node at the root."""
    nodes = [make_node(f"n{i}").cap(cpu=4, memory="8Gi") for i in range(8)]
    assert run(*nodes, make_pod("p"), seed=seed).results[0].node == "n0"


@pytest.mark.parametrize("seed", range(8))
def test_all_nodes_tied_follow_the_rotating_start_index(seed):
    """Above 100 nodes the search stops early; the next pod's feasible list starts further on."""
    nodes = [make_node(f"n{i:03}").cap(cpu=4, memory="8Gi") for i in range(1000)]
    cfg = dataclasses.replace(default_config(), percentage_of_nodes_to_score=10)
    pods = [make_pod(f"p{i}").req(cpu="4") for i in range(3)]
    r = run(*nodes, *pods, config=cfg, seed=seed).by_pod()
    assert [r[f"default/p{i}"].node for i in range(3)] == ["n000", "n100", "n200"]


@pytest.mark.parametrize("seed", range(8))
def test_tied_top_nodes_go_where_the_heap_sifts_them(seed):
    """Totals [lower, lower, top, top]: heap.Init sifts the fourth node to the root, not the third."""
    nodes = [make_node(f"n{i}").cap(cpu=4, memory="8Gi") for i in range(4)]
    busy = [make_pod(f"b{i}").req(cpu="2", memory="4Gi").node(f"n{i}") for i in range(2)]
    r = run(*nodes, *busy, make_pod("p").req(cpu="1", memory="1Gi"), seed=seed).by_pod()
    assert r["default/p"].node == "n3"


def test_preemption_evicts_and_schedules_on_nominated_node():
    r = run(
        make_node("n").cap(cpu=2, memory="4Gi"),
        make_pod("low").req(cpu="1500m").priority(1).node("n"),
        make_pod("high").req(cpu="1").priority(100),
    ).by_pod()
    high = r["default/high"]
    # v1.36 clears nominatedNodeName at binding (ClearingNominatedNodeNameAfterBinding)
    assert (high.status, high.node, high.nominated_node) == ("Scheduled", "n", None)
    assert high.victims == ["default/low"]


def test_preemption_policy_never_is_reported():
    r = run(
        make_node("n").cap(cpu=2, memory="4Gi"),
        make_pod("low").req(cpu="1500m").priority(1).node("n"),
        make_pod("high").req(cpu="1").priority(100).preemption_policy("Never"),
    ).by_pod()
    assert r["default/high"].message == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: not eligible due to preemptionPolicy=Never."
    )


def test_unknown_scheduler_name_is_skipped():
    r = run(make_node("n").cap(cpu=1, memory="1Gi"), make_pod("p").scheduler("volcano")).results[0]
    assert r.status == "Skipped" and "volcano" in r.message


def test_gated_pod_is_reported_with_its_gate():
    r = run(
        make_node("n").cap(cpu=1, memory="1Gi"), make_pod("p").gate("example.com/wait")
    ).results[0]
    assert r.status == "Skipped" and r.events == []
    assert r.message == "Scheduling is blocked due to non-empty scheduling gates"
    assert r.pre_enqueue == {
        "plugin": "SchedulingGates",
        "reason": "waiting for scheduling gates: [example.com/wait]",
    }


def test_pod_whose_resource_claim_does_not_exist_is_held_back():
    r = run(make_node("n").cap(cpu=1, memory="1Gi"), make_pod("p").resource_claim("gpu")).results[0]
    assert r.status == "Skipped" and r.node is None and r.events == []
    assert r.message is None
    assert r.pre_enqueue is not None and r.pre_enqueue["plugin"] == "DynamicResources"
    assert "ResourceClaim" in r.pre_enqueue["reason"]


def test_input_cluster_is_not_changed():
    cluster = build_cluster(cluster_objects(make_node("n").cap(cpu=1, memory="1Gi"), make_pod("p")))
    simulate(cluster)
    assert cluster.pods[0].node_name == ""


def _with_extra(points: dict[str, list[str]], *fakes: Fake) -> tuple[SchedulerConfig, object]:
    cfg = default_config()
    prof = cfg.profiles[0]
    plugins = dict(prof.plugins)
    for point, names in points.items():
        plugins[point] = tuple(plugins.get(point, ())) + tuple(PluginRef(n) for n in names)
    cfg = dataclasses.replace(cfg, profiles=(dataclasses.replace(prof, plugins=plugins),))
    reg = default_registry()
    for f in fakes:
        reg.register(f.NAME, lambda a, h, f=f: f, type(f))
    return cfg, reg


def test_permit_wait_without_allow_times_out():
    gate = Fake("Gate", permit=(Status(Code.WAIT), 10.0))
    cfg, reg = _with_extra({"permit": ["Gate"]}, gate)
    r = run(make_node("n").cap(cpu=1, memory="1Gi"), make_pod("p"), config=cfg, registry=reg)
    res = r.results[0]
    assert res.status == "Unschedulable"
    assert res.message == (
        "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin Gate."
    )


def test_permit_rejection_unreserves_and_reports():
    gate = Fake("Gate", permit=(Status.unschedulable("not now"), 0))
    cfg, reg = _with_extra({"permit": ["Gate"]}, gate)
    r = run(make_node("n").cap(cpu=1, memory="1Gi"), make_pod("p"), config=cfg, registry=reg)
    assert r.results[0].message == "0/1 nodes are available: 1 not now."


def test_filter_exception_is_an_error_naming_the_plugin():
    def boom(*_):
        raise ValueError("bug")

    bad = Fake("Bad", filter=boom)
    cfg, reg = _with_extra({"filter": ["Bad"]}, bad)
    r = run(make_node("n").cap(cpu=1, memory="1Gi"), make_pod("p"), config=cfg, registry=reg)
    res = r.results[0]
    assert res.status == "Error"
    assert res.message == 'running "Bad" filter plugin: ValueError: bug'


def test_summary_counts_and_profiles():
    r = run(
        make_node("n").cap(cpu=1, memory="1Gi"),
        make_pod("a"),
        make_pod("b").scheduler("other"),
        seed=7,
    )
    s = r.to_dict()["summary"]
    assert s["counts"] == {"Scheduled": 1, "Unschedulable": 0, "Skipped": 1, "Error": 0}
    assert (s["nodes"], s["seed"], s["profiles"]) == (1, 7, ["default-scheduler"])


def test_an_error_on_the_nominated_node_falls_back_to_every_node():
    # schedule_one.go findNodesThatFitPod: a failed evaluation of the nominated
    # node is logged and the pod is tried on all nodes
    seen: list[str] = []

    def fails_once_on_n1(_state, _pod, node_info):
        seen.append(node_info.name)
        if seen == ["n1"]:
            raise ValueError("transient")
        return None

    flaky = Fake("Flaky", filter=fails_once_on_n1)
    cfg, reg = _with_extra({"filter": ["Flaky"]}, flaky)
    r = run(
        make_node("n1").cap(cpu=1, memory="1Gi"),
        make_node("n2").cap(cpu=1, memory="1Gi"),
        make_pod("p").nominated("n1"),
        config=cfg,
        registry=reg,
    )
    assert r.results[0].status == "Scheduled"
    assert seen[0] == "n1" and len(seen) > 1
