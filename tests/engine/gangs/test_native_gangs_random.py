"""Random clusters whose pending pods form native pod groups, checked against rules of the v1.36 source.

Rules (schedule_one_podgroup.go, gangscheduling.go, topology_placement.go):

1. a member of a group with fewer than ``minCount`` pods, or without its
   PodGroup, is never attempted (PreEnqueue);
2. a gang is never partial: its members bound in the run plus those already
   running are zero new or at least ``minCount``;
3. a rejected gang's members that fit say ``pod group is unschedulable,
   waiting for minCount pods ...``; there are fewer of them than the quorum lacks;
4. every other unschedulable member has its own FailedScheduling message
   (``0/N nodes are available`` with N at most the cluster's nodes);
5. with a topology key every member (running or new) is in one domain, on
   nodes that carry the key;
6. no node holds more than its allocatable;
7. placements without a constraint change nothing; without the gates the
   scheduling group is ignored.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.simulate import simulate
from tests.engine.gangs.helpers import GANG_GATES, MSG_GROUP_WAITING, TAS_GATES, native_pod_group
from tests.engine.randomgen import GPU, ZONE, cpu_milli, mem_bytes, pod_requests, random_cluster

SEEDS = range(60)
PREFIXES = ("0/", "pod group is unschedulable", "no feasible placements found")


def gangify(rng: random.Random, objs: list[dict[str, Any]], topology: bool) -> dict[str, Any]:
    """Put pending (and a few running) pods into pod groups; return group → facts."""
    pods = [o for o in objs if o["kind"] == "Pod"]
    pending = [o for o in pods if not o["spec"].get("nodeName")]
    running = [o for o in pods if o["spec"].get("nodeName")]
    groups: dict[str, Any] = {}
    by_ns: dict[str, list[dict[str, Any]]] = {}
    for p in pending:
        by_ns.setdefault(p["metadata"]["namespace"], []).append(p)
    gi = 0
    for ns, ps in sorted(by_ns.items()):
        rng.shuffle(ps)
        while ps:
            take = ps[: rng.randint(1, 6)]
            ps = ps[len(take) :]
            if rng.random() < 0.15:
                continue
            name = f"g{gi}"
            gi += 1
            runs = [
                r
                for r in running
                if r["metadata"]["namespace"] == ns and "schedulingGroup" not in r["spec"]
            ]
            runs = runs[: rng.choice((0, 0, 0, 1))]
            size = len(take) + len(runs)
            mc = rng.choice((None, *range(1, size + 2)))
            key = rng.choice((None, ZONE, ZONE)) if topology else None
            missing = rng.random() < 0.08
            for p in (*take, *runs):
                p["spec"]["schedulingGroup"] = {"podGroupName": name}
            if not missing:
                objs.append(native_pod_group(name, mc, key, namespace=ns))
            groups[f"{ns}/{name}"] = {
                "min": mc,
                "key": key,
                "missing": missing,
                "pending": [f"{ns}/{p['metadata']['name']}" for p in take],
                "running": [(f"{ns}/{p['metadata']['name']}", p["spec"]["nodeName"]) for p in runs],
            }
    return groups


def check(objs: list[dict[str, Any]], groups: dict[str, Any], doc: dict[str, Any]) -> None:
    nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Node"}
    pods = {
        f"{o['metadata']['namespace']}/{o['metadata']['name']}": o
        for o in objs
        if o["kind"] == "Pod"
    }
    res = {r["pod"]: r for r in doc["results"]}
    victims = {v for r in doc["results"] for v in r["victims"]}
    served = {k for k, r in res.items() if "no scheduler profile" not in (r["message"] or "")}
    for gk, g in groups.items():
        members = [m for m in g["pending"] if m in served]
        running = [(k, n) for k, n in g["running"] if k not in victims]
        total = len(members) + len(g["running"])
        new = [m for m in members if res[m]["status"] == "Scheduled"]
        # 1. held back by PreEnqueue
        if g["missing"] or (g["min"] is not None and total < g["min"]):
            for m in members:
                assert res[m]["status"] == "Skipped", (gk, m, res[m])
                assert res[m]["preEnqueue"] is not None
            continue
        if g["min"] is not None:
            # 2. never partial
            assert not new or len(new) + len(running) >= g["min"], (
                gk,
                g,
                [res[m] for m in members],
            )
            # 3. a rejected gang's fitting members
            waiting = [m for m in members if res[m]["message"] == MSG_GROUP_WAITING]
            if waiting:
                assert not new
                assert len(waiting) + len(g["running"]) < g["min"]
        for m in members:
            r = res[m]
            if r["status"] == "Unschedulable":
                # 4. own messages
                assert r["message"].startswith(PREFIXES), r
                if r["message"].startswith("0/"):
                    assert int(r["message"][2:].split(" ")[0]) <= len(nodes)
        # 5. one domain
        if g["key"] is not None and (new or running):
            doms = {nodes[res[m]["node"]]["metadata"]["labels"].get(g["key"]) for m in new}
            doms |= {nodes[n]["metadata"]["labels"].get(g["key"]) for _, n in g["running"]}
            if new:
                assert None not in doms and len(doms) == 1, (gk, doms)
    # 6. capacity
    used: dict[str, Counter[str]] = {n: Counter() for n in nodes}
    for k, o in pods.items():
        node = o["spec"].get("nodeName") or (res[k]["node"] if k in res else None)
        if node and k not in victims:
            used[node].update(pod_requests(o))
            used[node]["pods"] += 1
    for n, u in used.items():
        alloc = nodes[n]["status"]["allocatable"]
        caps = {
            "cpu": cpu_milli(alloc["cpu"]),
            "memory": mem_bytes(alloc["memory"]),
            "pods": int(alloc["pods"]),
            GPU: int(alloc.get(GPU, 0)),
        }
        for rname, cap in caps.items():
            assert u[rname] <= cap, (n, rname, u[rname], cap)


def outcome(doc: dict[str, Any]) -> list[tuple[str, str, Any, str]]:
    return [(r["pod"], r["status"], r["node"], r["message"]) for r in doc["results"]]


@pytest.mark.parametrize("seed", SEEDS)
def test_native_gangs_follow_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    objs = random_cluster(rng, max_nodes=16, max_running=30, max_pending=24)
    topology = seed % 2 == 1
    groups = gangify(rng, objs, topology)
    gates = TAS_GATES if topology else GANG_GATES
    doc = simulate(build_cluster(objs), seed=seed, feature_gates=gates).to_dict()
    check(objs, groups, doc)
    if not topology:
        # 7. placements without constraints change nothing
        tas = simulate(build_cluster(objs), seed=seed, feature_gates=TAS_GATES).to_dict()
        assert outcome(tas) == outcome(doc)


@pytest.mark.parametrize("seed", range(10))
def test_without_the_gates_groups_are_ignored(seed: int) -> None:
    rng = random.Random(seed)
    objs = random_cluster(rng, max_nodes=10, max_running=20, max_pending=16)
    plain = simulate(build_cluster(objs), seed=seed).to_dict()
    gangify(rng, objs, False)
    grouped = simulate(build_cluster(objs), seed=seed).to_dict()
    assert outcome(grouped) == outcome(plain)
