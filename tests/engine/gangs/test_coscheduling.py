"""scheduler-plugins' Coscheduling and its PodGroup (scheduling.x-k8s.io/v1alpha1), case by case and at random."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.config import load_config
from scheduler_engine.errors import ConfigError
from scheduler_engine.framework.registry import default_registry
from scheduler_engine.simulate import simulate
from tests.engine.builders import cluster_objects, make_node, make_pod
from tests.engine.randomgen import GPU, cpu_milli, mem_bytes, pod_requests, random_cluster

LABEL = "scheduling.x-k8s.io/pod-group"
REGISTRY = default_registry()


def config(args: dict[str, Any] | None = None) -> Any:
    prof: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {
            "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
            "queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]},
        },
    }
    if args is not None:
        prof["pluginConfig"] = [{"name": "Coscheduling", "args": args}]
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [prof],
    }
    return load_config(doc, **REGISTRY.config_kwargs())


CONFIG = config()


def pod_group(
    name: str, min_member: int, created: str = "2026-01-01T00:00:00Z", **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
        "spec": {"minMember": min_member, **spec},
    }


def members(group: str, n: int, cpu: str = "3") -> list:
    return [make_pod(f"{group}-{i}").req(cpu=cpu).labels({LABEL: group}) for i in range(n)]


def nodes(n: int) -> list:
    return [make_node(f"n{i}").cap(cpu="4", memory="8Gi").zone("z1") for i in range(n)]


def run(*objs: Any, cfg: Any = None, seed: int = 0) -> dict[str, Any]:
    return simulate(
        build_cluster(cluster_objects(*objs)), cfg or CONFIG, registry=REGISTRY, seed=seed
    ).to_dict()


def by_pod(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["pod"]: r for r in doc["results"]}


def test_a_group_that_fits_binds_whole() -> None:
    doc = run(*nodes(4), *members("a", 4), pod_group("a", 4))
    assert {r["status"] for r in doc["results"]} == {"Scheduled"}
    (g,) = doc["summary"]["gangs"]
    assert (g["api"], g["status"], g["summary"]) == (
        "scheduling.x-k8s.io/v1alpha1",
        "Scheduled",
        "4 of 4 fit, all in zone z1",
    )


def test_a_member_that_fits_nowhere_releases_the_waiting_ones() -> None:
    doc = run(*nodes(4), *members("a", 5), pod_group("a", 5))
    rs = by_pod(doc)
    assert not [r for r in rs.values() if r["status"] == "Scheduled"]
    for i in range(4):
        assert rs[f"default/a-{i}"]["message"] == (
            "0/1 nodes are available: 1 optimistic rejection in PostFilter."
        )
    first_failure = rs["default/a-4"]["events"][0]["message"]
    assert first_failure.endswith(
        "PodGroup default/a gets rejected due to Pod a-4 is unschedulable even after PostFilter"
    )
    (g,) = doc["summary"]["gangs"]
    assert g["status"] == "Unschedulable"
    assert g["scheduled"] == 0


def test_a_group_below_min_member_is_refused_in_prefilter() -> None:
    rs = by_pod(run(*nodes(4), *members("a", 3), pod_group("a", 4)))
    assert rs["default/a-0"]["message"].startswith(
        "0/4 nodes are available: pre-filter pod a-0 cannot find enough sibling pods, "
        "current pods number: 3, minMember of group: 4."
    )
    assert rs["default/a-0"]["gang"]["status"] == "QuorumNotReached"


def test_gated_members_keep_the_group_waiting() -> None:
    ms = members("a", 3)
    ms[2].gate("example.com/wait")
    rs = by_pod(run(*nodes(4), *ms, pod_group("a", 3)))
    assert rs["default/a-0"]["message"].startswith(
        "0/4 nodes are available: pre-filter pod a-0 cannot proceed due to gated pods in the same PodGroup."
    )


def test_min_resources_the_cluster_cannot_hold() -> None:
    rs = by_pod(run(*nodes(4), *members("a", 2), pod_group("a", 2, minResources={"cpu": "20"})))
    assert rs["default/a-0"]["message"].startswith(
        "0/4 nodes are available: resource gap: map[cpu:{{4000 -3} {<nil>}  DecimalSI}]."
    )


def test_min_resources_that_fit_let_the_group_through() -> None:
    doc = run(*nodes(4), *members("a", 2), pod_group("a", 2, minResources={"cpu": "8"}))
    assert {r["status"] for r in doc["results"]} == {"Scheduled"}


def test_the_group_timeout_wins_over_the_plugin_default() -> None:
    # 2 of 3 fit; nothing rejects the waiting two (the quorum gap is under the threshold
    # with podGroupRejectPercentage 50): they time out after the group's own timeout
    cfg = config({"podGroupRejectPercentage": 50})
    rs = by_pod(
        run(*nodes(2), *members("a", 3), pod_group("a", 3, scheduleTimeoutSeconds=5), cfg=cfg)
    )
    msgs = Counter(r["message"] for r in rs.values())
    assert (
        msgs[
            "0/1 nodes are available: 1 rejected due to timeout after waiting 5s at plugin Coscheduling."
        ]
        >= 1
    )
    assert not [r for r in rs.values() if r["status"] == "Scheduled"]


def test_the_queue_keeps_a_group_together() -> None:
    # b's PodGroup is older: its pods go first even though a's pods were created first
    a = [p.created("2026-01-01T00:00:01Z") for p in members("a", 2, cpu="1")]
    b = [p.created("2026-01-01T00:00:05Z") for p in members("b", 2, cpu="1")]
    doc = run(
        *nodes(2),
        *a,
        *b,
        pod_group("a", 2, created="2026-01-01T00:00:02Z"),
        pod_group("b", 2, created="2026-01-01T00:00:00Z"),
    )
    assert [r["pod"] for r in doc["results"]] == [
        "default/b-0",
        "default/b-1",
        "default/a-0",
        "default/a-1",
    ]


def test_ordinary_pods_take_what_a_failed_group_released() -> None:
    plain = make_pod("plain").req(cpu="3").created("2026-01-01T00:00:09Z")
    rs = by_pod(run(*nodes(2), *members("a", 3), pod_group("a", 3), plain))
    assert rs["default/plain"]["status"] == "Scheduled"
    assert not [r for k, r in rs.items() if k != "default/plain" and r["status"] == "Scheduled"]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"podGroupRejectPercentage": 101}, "podGroupRejectPercentage"),
        ({"permitWaitingTimeSeconds": -1}, "permitWaitingTimeSeconds"),
        ({"podGroupBackoffSeconds": -5}, "podGroupBackoffSeconds"),
    ],
)
def test_bad_args_are_refused(args: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError) as exc:
        config(args)
    assert field in str(exc.value)


# -- at random ------------------------------------------------------------------------------------


def grouped(rng: random.Random, objs: list[dict[str, Any]]) -> dict[str, int]:
    pending = [o for o in objs if o["kind"] == "Pod" and not o["spec"].get("nodeName")]
    mins: dict[str, int] = {}
    by_ns: dict[str, list[dict[str, Any]]] = {}
    for p in pending:
        by_ns.setdefault(p["metadata"]["namespace"], []).append(p)
    gi = 0
    for ns, ps in sorted(by_ns.items()):
        while ps:
            take = ps[: rng.randint(1, 6)]
            ps = ps[len(take) :]
            name = f"pg{gi}"
            gi += 1
            for p in take:
                p["metadata"].setdefault("labels", {})[LABEL] = name
            mm = rng.randint(1, len(take) + 1)
            objs.append({**pod_group(name, mm), "metadata": {"name": name, "namespace": ns}})
            mins[f"{ns}/{name}"] = mm
    return mins


@pytest.mark.parametrize("seed", range(40))
def test_coscheduled_groups_are_never_partial(seed: int) -> None:
    rng = random.Random(seed)
    objs = random_cluster(rng, max_nodes=12, max_running=20, max_pending=20)
    mins = grouped(rng, objs)
    doc = simulate(build_cluster(objs), CONFIG, registry=REGISTRY, seed=seed).to_dict()
    res = {r["pod"]: r for r in doc["results"]}
    victims = {v for r in doc["results"] for v in r["victims"]}
    bound: Counter[str] = Counter()
    for o in objs:
        if o["kind"] != "Pod":
            continue
        k = f"{o['metadata']['namespace']}/{o['metadata']['name']}"
        label = (o["metadata"].get("labels") or {}).get(LABEL)
        if label and k in res and res[k]["status"] == "Scheduled":
            bound[f"{o['metadata']['namespace']}/{label}"] += 1
    for g, mm in mins.items():
        assert bound[g] == 0 or bound[g] >= mm, (g, bound[g], mm)
    # nothing stays reserved: every node holds at most its allocatable
    nodes_ = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Node"}
    used: dict[str, Counter[str]] = {n: Counter() for n in nodes_}
    for o in objs:
        if o["kind"] != "Pod":
            continue
        k = f"{o['metadata']['namespace']}/{o['metadata']['name']}"
        node = o["spec"].get("nodeName") or (res[k]["node"] if k in res else None)
        if node and k not in victims:
            used[node].update(pod_requests(o))
    for n, u in used.items():
        alloc = nodes_[n]["status"]["allocatable"]
        assert u["cpu"] <= cpu_milli(alloc["cpu"])
        assert u["memory"] <= mem_bytes(alloc["memory"])
        assert u[GPU] <= int(alloc.get(GPU, 0))


@pytest.mark.parametrize(
    ("group", "flags", "error"),
    [
        (
            "apiVersion: scheduling.x-k8s.io/v1alpha1\n  kind: PodGroup\n"
            "  metadata: {name: a, namespace: default}\n  spec: {minMember: three}",
            ["--config", "COSCHED"],
            "PodGroup default/a: spec.minMember: must be a non-negative integer",
        ),
        (
            "apiVersion: scheduling.k8s.io/v1alpha2\n  kind: PodGroup\n"
            "  metadata: {name: b, namespace: default}\n"
            "  spec: {schedulingPolicy: {gang: {minCount: 0}}}",
            ["--feature-gates", "GenericWorkload=true"],
            "PodGroup default/b: spec.schedulingPolicy.gang.minCount: must be an integer of at least 1",
        ),
    ],
)
def test_a_bad_pod_group_exits_2_naming_it(
    group: str, flags: list[str], error: str, tmp_path, capsys
) -> None:
    from scheduler_engine.cli import main

    snap = tmp_path / "snap.yaml"
    snap.write_text(f"apiVersion: v1\nkind: List\nitems:\n- {group}\n")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: default-scheduler\n  plugins:\n"
        "    multiPoint: {enabled: [{name: Coscheduling}]}\n"
        "    queueSort: {enabled: [{name: Coscheduling}], disabled: [{name: '*'}]}\n"
    )
    argv = [
        "simulate",
        "--snapshot",
        str(snap),
        *[str(cfg) if f == "COSCHED" else f for f in flags],
    ]
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"{snap}: {error}"
