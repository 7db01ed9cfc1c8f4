"""Defragmentation plans on clusters whose cheapest plan is known by construction."""

from __future__ import annotations

import pytest

from scheduler_engine import build_cluster, simulate
from scheduler_engine.whatif.defrag import plan_defragmentation
from scheduler_engine.whatif.moves import Scheduling, replaced, with_moves

from .helpers import gpu_node, owned, pdb, pending


def _sched(seed=0):
    return Scheduling.with_defaults(simulate, seed=seed)


def _scattered(extra=()):
    """8 GPUs free over four nodes (4 + 2 + 2 + 1): moving a and b off n0 frees it whole.

    c and d (6 GPUs) have nowhere else to go, e and f are bare pods.
    """
    objs = [gpu_node(f"n{i}") for i in range(4)]
    objs += [
        owned("a", "n0", 2),
        owned("b", "n0", 2),
        owned("c", "n1", 6),
        owned("d", "n2", 6),
        owned("e", "n3", 4, kind=None),
        owned("f", "n3", 3, kind=None),
        pending(),
    ]
    return [*objs, *extra]


def _schedules_after(cluster, plan):
    moved = with_moves(cluster, plan.moves)
    only = replaced(moved, pods=[p for p in moved.pods if p.node_name or p.key in plan.pods])
    return [r.status for r in simulate(only).results]


def test_two_moves_free_a_whole_node():
    cluster = build_cluster(_scattered())
    plan = plan_defragmentation(cluster, "default/train", _sched())
    assert plan is not None
    assert [(m.pod, m.source) for m in plan.moves] == [("default/a", "n0"), ("default/b", "n0")]
    assert {m.target for m in plan.moves} == {"n1", "n2"}
    assert plan.freed == ("n0",)
    assert plan.gpus_disturbed == 4
    assert plan.placements == {"default/train": "n0"}
    assert _schedules_after(cluster, plan) == ["Scheduled"]


def test_the_plan_reads_as_a_move_fix():
    fix = plan_defragmentation(build_cluster(_scattered()), "default/train", _sched()).to_fix()
    assert fix["kind"] == "move"
    assert fix["verified"] is True and fix["patch"] is None
    assert [m["pod"] for m in fix["moves"]] == ["default/a", "default/b"]
    assert {m["from"] for m in fix["moves"]} == {"n0"}
    assert fix["summary"].startswith("move 2 pods (4 GPUs) to make room on n0: default/a n0 -> n")
    assert fix["cost"] > 0


def test_a_pdb_that_forbids_the_cheap_plan_gives_a_dearer_one():
    # n4: three 2-GPU pods; freeing it takes three moves
    n4 = [gpu_node("n4"), owned("g", "n4", 2), owned("h", "n4", 2), owned("i", "n4", 2)]
    cheap = plan_defragmentation(build_cluster(_scattered(n4)), "default/train", _sched())
    assert len(cheap.moves) == 2
    cluster = build_cluster(_scattered([*n4, pdb("a")]))
    plan = plan_defragmentation(cluster, "default/train", _sched())
    assert plan is not None
    assert sorted(m.pod for m in plan.moves) == ["default/g", "default/h", "default/i"]
    assert plan.freed == ("n4",)
    assert _schedules_after(cluster, plan) == ["Scheduled"]


def test_a_pdb_with_room_for_one_disruption_lets_the_plan_through():
    plan = plan_defragmentation(
        build_cluster(_scattered([pdb("a", allowed=1)])), "default/train", _sched()
    )
    assert plan is not None and len(plan.moves) == 2


def test_pdbs_on_every_way_give_no_plan():
    n4 = [gpu_node("n4"), owned("g", "n4", 2), owned("h", "n4", 2), owned("i", "n4", 2)]
    cluster = build_cluster(_scattered([*n4, pdb("a"), pdb("g")]))
    assert plan_defragmentation(cluster, "default/train", _sched()) is None


@pytest.mark.parametrize("kind", [None, "DaemonSet", "Node"], ids=["bare", "daemonset", "static"])
def test_pods_no_controller_recreates_elsewhere_are_never_moved(kind):
    objs = [o for o in _scattered() if o["metadata"]["name"] not in ("a", "b")]
    objs += [owned("a", "n0", 2, kind=kind), owned("b", "n0", 2, kind=kind)]
    assert plan_defragmentation(build_cluster(objs), "default/train", _sched()) is None


@pytest.mark.parametrize("kind", ["StatefulSet", "Job", "ReplicationController"])
def test_pods_of_other_recreating_controllers_move(kind):
    objs = [o for o in _scattered() if o["metadata"]["name"] not in ("a", "b")]
    objs += [owned("a", "n0", 2, kind=kind), owned("b", "n0", 2, kind=kind)]
    plan = plan_defragmentation(build_cluster(objs), "default/train", _sched())
    assert plan is not None and len(plan.moves) == 2


def test_no_plan_when_the_pod_fits_already():
    objs = [o for o in _scattered() if o["metadata"]["name"] != "train"] + [pending(gpus=4)]
    assert plan_defragmentation(build_cluster(objs), "default/train", _sched()) is None


def test_a_pod_that_is_not_pending_is_refused():
    with pytest.raises(KeyError):
        plan_defragmentation(build_cluster(_scattered()), "default/a", _sched())
