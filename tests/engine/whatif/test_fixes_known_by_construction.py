"""Each case has one smallest change known by construction; the engine must find and verify it."""

from __future__ import annotations

from tests.engine.builders import GPU, cluster_objects, make_node, make_pod

from .support import by_kind, explained, status_after

ZONE = "topology.kubernetes.io/zone"


def _pdb(name: str, app: str, allowed: int) -> dict:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": app}}, "minAvailable": 1},
        "status": {"disruptionsAllowed": allowed},
    }


def test_one_taint_names_the_taint_and_the_exact_toleration():
    objs = cluster_objects(
        make_node("gpu").cap(cpu=8, memory="32Gi", gpu=8).taint("nvidia.com/gpu", "present"),
        make_node("cpu").cap(cpu=8, memory="32Gi"),
        make_pod("train").req(cpu=1).gpu(2),
    )
    r = explained(objs, "default/train")
    assert r["status"] == "Unschedulable"
    first = r["nearest"][0]
    assert first["node"] == "gpu"
    assert first["failures"] == [
        {"plugin": "TaintToleration", "reason": "node(s) had untolerated taint(s)"}
    ]
    want = {
        "key": "nvidia.com/gpu",
        "operator": "Equal",
        "value": "present",
        "effect": "NoSchedule",
    }
    assert first["taints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule", "toleration": want}
    ]
    # the CPU node lacks the GPUs entirely: farther than the tainted GPU node
    cpu = next(n for n in r["nearest"] if n["node"] == "cpu")
    assert cpu["lacking"] == [GPU] and cpu["distance"] > first["distance"]
    fix = by_kind(r)["toleration"]
    assert r["fixes"][0] is not None and r["fixes"][0]["kind"] == "toleration"
    assert fix["patch"] == {"spec": {"tolerations": [want]}} and fix["verified"] is True
    assert status_after(objs, "default/train", fix)["node"] == "gpu"


def test_one_request_is_lowered_to_what_the_node_has_free():
    objs = cluster_objects(
        make_node("n").cap(cpu=4, memory="32Gi"),
        make_pod("busy").req(cpu=3).node("n"),
        make_pod("web").req(cpu=2, memory="1Gi"),
    )
    r = explained(objs, "default/web")
    assert r["nearest"][0]["shortfall"] == {"cpu": "1"}
    fix = by_kind(r)["requests"]
    assert fix["patch"] == {
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}
    }
    assert status_after(objs, "default/web", fix)["status"] == "Scheduled"


def test_one_spread_term_is_relaxed_to_the_skew_the_node_would_reach():
    objs = cluster_objects(
        make_node("a").cap(cpu=8, memory="32Gi").zone("a"),
        make_node("b").cap(cpu=1, memory="32Gi").zone("b"),
        make_pod("x1").labels(app="x").req(cpu=1).node("a"),
        make_pod("x2").labels(app="x").req(cpu=1).node("a"),
        make_pod("filler").req(cpu=1).node("b"),
        make_pod("x3").labels(app="x").req(cpu=1).spread(1, ZONE, {"app": "x"}),
    )
    r = explained(objs, "default/x3")
    a = next(n for n in r["nearest"] if n["node"] == "a")
    assert a["terms"] == [
        {
            "kind": "topologySpread",
            "term": 0,
            "topologyKey": ZONE,
            "domain": "a",
            "maxSkew": 1,
            "skew": 3,
        }
    ]
    fix = by_kind(r)["spread"]
    assert fix["patch"]["spec"]["topologySpreadConstraints"][0]["maxSkew"] == 3
    assert status_after(objs, "default/x3", fix)["node"] == "a"


def test_one_anti_affinity_term_names_the_pod_and_is_dropped():
    objs = cluster_objects(
        make_node("n").cap(cpu=8, memory="32Gi"),
        make_pod("db-0").labels(app="db").node("n"),
        make_pod("db-1").labels(app="db").pod_anti_affinity({"app": "db"}),
    )
    r = explained(objs, "default/db-1")
    (term,) = r["nearest"][0]["terms"]
    assert term["kind"] == "podAntiAffinity" and term["pods"] == ["default/db-0"]
    fix = by_kind(r)["affinity"]
    anti = fix["patch"]["spec"]["affinity"]["podAntiAffinity"]
    assert anti == {"requiredDuringSchedulingIgnoredDuringExecution": None}
    assert status_after(objs, "default/db-1", fix)["status"] == "Scheduled"


def _preemption_cluster(with_free_node: bool) -> list[dict]:
    objs = [
        make_node("guarded").cap(cpu=2, memory="32Gi"),
        make_pod("protected").labels(app="db").req(cpu=2).priority(1).node("guarded"),
        _pdb("db", "db", 0),
        make_pod("urgent").req(cpu=2).priority(100).preemption_policy("Never"),
    ]
    if with_free_node:
        objs[2:2] = [
            make_node("open").cap(cpu=2, memory="32Gi"),
            make_pod("batch").labels(app="batch").req(cpu=2).priority(1).node("open"),
        ]
    return cluster_objects(*objs)


def test_preemption_frees_the_node_whose_victims_break_no_budget():
    objs = _preemption_cluster(with_free_node=True)
    r = explained(objs, "default/urgent")
    fix = by_kind(r)["preemption"]
    assert fix["node"] == "open"
    assert [e["pod"] for e in fix["evict"]] == ["default/batch"]
    assert fix["patch"] == {"spec": {"preemptionPolicy": "PreemptLowerPriority"}}
    assert status_after(objs, "default/urgent", fix)["node"] == "open"


def test_preemption_blocked_by_a_budget_is_not_offered():
    r = explained(_preemption_cluster(with_free_node=False), "default/urgent")
    assert r["status"] == "Unschedulable"
    assert "preemption" not in by_kind(r) and "priority" not in by_kind(r)


def test_a_new_node_is_shaped_like_a_node_that_has_the_resource():
    objs = cluster_objects(
        make_node("cpu").cap(cpu=64, memory="256Gi"),
        make_node("gpu").cap(cpu=16, memory="64Gi", gpu=8),
        make_pod("busy").req(cpu=1).gpu(8).node("gpu"),
        make_pod("train").req(cpu=1).gpu(8),
    )
    r = explained(objs, "default/train")
    fix = by_kind(r)["node"]
    assert fix["like"] == "gpu"
    assert fix["patch"]["status"]["allocatable"][GPU] == "8"
    assert status_after(objs, "default/train", fix)["node"] == fix["node"]


def test_a_shape_no_node_has_gets_no_node_fix():
    objs = cluster_objects(
        make_node("cpu").cap(cpu=64, memory="256Gi"),
        make_node("gpu").cap(cpu=16, memory="64Gi", gpu=8),
        make_pod("huge").req(cpu=1).gpu(16),
    )
    r = explained(objs, "default/huge")
    assert r["status"] == "Unschedulable"
    assert "node" not in by_kind(r)
    assert all(GPU in n["lacking"] for n in r["nearest"])


def test_a_scheduled_pod_carries_no_what_if():
    objs = cluster_objects(make_node("n").cap(cpu=4, memory="8Gi"), make_pod("p").req(cpu=1))
    r = explained(objs, "default/p")
    assert r["status"] == "Scheduled" and "nearest" not in r and "fixes" not in r


def test_a_change_on_a_tainted_node_carries_the_toleration_it_also_needs():
    objs = cluster_objects(
        make_node("gpu").cap(cpu=16, memory="64Gi", gpu=8).taint("nvidia.com/gpu", "present"),
        make_pod("busy").req(cpu=1).gpu(6).node("gpu").toleration("nvidia.com/gpu"),
        make_pod("train").req(cpu=1).gpu(4),
    )
    r = explained(objs, "default/train")
    assert "toleration" not in by_kind(r)  # a toleration alone does not make it fit
    fix = by_kind(r)["requests"]
    assert fix["patch"]["spec"]["tolerations"][0]["key"] == "nvidia.com/gpu"
    assert "add the toleration(s) nvidia.com/gpu=present:NoSchedule" in fix["summary"]
    assert status_after(objs, "default/train", fix)["node"] == "gpu"
