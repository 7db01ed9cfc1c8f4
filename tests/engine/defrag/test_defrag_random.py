"""Random fragmented GPU clusters: every plan reported, applied, makes the pod schedule."""

from __future__ import annotations

import random

import pytest

from scheduler_engine import build_cluster, simulate
from scheduler_engine.plugins.defaultpreemption import filter_pods_with_pdb_violation
from scheduler_engine.whatif.defrag import MAX_MOVES, plan_defragmentation
from scheduler_engine.whatif.moves import Scheduling, is_movable, replaced, with_moves

from .helpers import gpu_node, owned, pdb, pending

KINDS = ["ReplicaSet", "ReplicaSet", "StatefulSet", "Job", None, "DaemonSet"]
SEEDS = range(40)


def _sched(seed=0):
    return Scheduling.with_defaults(simulate, seed=seed)


def _cluster(seed: int):
    rng = random.Random(seed)
    objs = []
    for i in range(rng.randint(3, 7)):
        objs.append(gpu_node(f"n{i}"))
        used = 0
        target = rng.randint(3, 7)
        k = 0
        while used < target:
            size = rng.choice([s for s in (1, 1, 2, 2, 3, 4) if used + s <= target])
            objs.append(owned(f"p{i}-{k}", f"n{i}", size, kind=rng.choice(KINDS)))
            used += size
            k += 1
    apps = [o["metadata"]["name"] for o in objs if o["kind"] == "Pod"]
    for app in rng.sample(apps, k=min(2, len(apps))):
        objs.append(pdb(app, allowed=rng.choice([0, 0, 1])))
    objs.append(pending(gpus=rng.choice([5, 6, 7, 8])))
    return build_cluster(objs)


@pytest.fixture(scope="module")
def plans():
    out = []
    for seed in SEEDS:
        cluster = _cluster(seed)
        out.append((seed, cluster, plan_defragmentation(cluster, "default/train", _sched(seed))))
    return out


def test_every_plan_applied_makes_the_pod_schedule(plans):
    found = 0
    for seed, cluster, plan in plans:
        if plan is None:
            continue
        found += 1
        moved = with_moves(cluster, plan.moves)
        only = replaced(moved, pods=[p for p in moved.pods if p.node_name or p.key in plan.pods])
        result = simulate(only, seed=seed)
        assert [r.status for r in result.results] == ["Scheduled"], seed
        assert result.summary["evictions"] == 0, seed
    # the generator makes plans often enough for this test to mean something
    assert found >= 8


def test_plans_move_only_recreated_pods_within_their_budgets(plans):
    for seed, cluster, plan in plans:
        if plan is None:
            continue
        pods = {p.key: p for p in cluster.pods}
        moved = [pods[m.pod] for m in plan.moves]
        assert all(is_movable(p) for p in moved), seed
        violating, _ = filter_pods_with_pdb_violation(moved, cluster.pdbs)
        assert violating == [], seed
        assert 0 < len(plan.moves) <= MAX_MOVES, seed
        assert all(m.source != m.target for m in plan.moves), seed
        assert len({m.pod for m in plan.moves}) == len(plan.moves), seed


def test_a_pod_that_schedules_as_it_is_gets_no_plan(plans):
    fitting = 0
    for seed, cluster, plan in plans:
        pending_only = replaced(
            cluster, pods=[p for p in cluster.pods if p.node_name or p.key == "default/train"]
        )
        if simulate(pending_only, seed=seed).results[0].status == "Scheduled":
            fitting += 1
            assert plan is None, seed
    assert fitting >= 3


def test_plans_are_deterministic(plans):
    for seed, cluster, plan in plans[:10]:
        again = plan_defragmentation(cluster, "default/train", _sched(seed))
        assert (again and again.to_fix()) == (plan and plan.to_fix()), seed


def _works(cluster, node, pods, seed):
    """Brute force: evict ``pods`` from ``node`` (cordoned), reschedule them, then the pod."""
    from scheduler_engine.whatif.moves import Move, cordoned, recreated

    gone = {p.key for p in pods}
    run = [p for p in cluster.pods if p.node_name and p.key not in gone]
    run += [recreated(p, cluster) for p in pods]
    nodes = [cordoned(n) if n.name == node else n for n in cluster.nodes]
    res = simulate(replaced(cluster, pods=run, nodes=nodes), seed=seed)
    if res.summary["evictions"] or any(r.status != "Scheduled" for r in res.results):
        return False
    moves = [Move(r.pod, node, r.node, 0) for r in res.results]
    after = with_moves(cluster, moves)
    only = replaced(after, pods=[p for p in after.pods if p.node_name or p.key == "default/train"])
    res = simulate(only, seed=seed)
    return res.summary["evictions"] == 0 and res.results[0].status == "Scheduled"


def test_no_plan_with_fewer_moves_exists(plans):
    from itertools import combinations

    checked = 0
    for seed, cluster, plan in plans:
        if plan is None or len(plan.moves) < 2:
            continue
        checked += 1
        for node in cluster.nodes:
            movable = [
                p for p in cluster.running_pods if p.node_name == node.name and is_movable(p)
            ]
            for k in range(1, len(plan.moves)):
                for pods in combinations(movable, k):
                    if filter_pods_with_pdb_violation(list(pods), cluster.pdbs)[0]:
                        continue
                    assert not _works(cluster, node.name, pods, seed), (seed, node.name, pods)
    assert checked >= 5
