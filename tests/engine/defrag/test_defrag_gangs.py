"""A gang of 8-GPU pods: the plan frees a node for each member, and the gang then schedules."""

from __future__ import annotations

from scheduler_engine import build_cluster, default_registry, load_config, simulate
from scheduler_engine.whatif.defrag import plan_defragmentation
from scheduler_engine.whatif.moves import Scheduling, replaced, with_moves
from tests.engine.gangs.helpers import GANG_GATES, native_pod_group

from .helpers import gpu_node, owned, pending


def _member(name: str):
    obj = pending(name)
    obj["spec"]["schedulingGroup"] = {"podGroupName": "train"}
    return obj


def _objs(pdb_objs=()):
    # two nodes to free (n0, n4: two 2-GPU pods each); room for the four moved pods on
    # n1, n2 (2 free each) and n5 (4 free); n3's pods are bare
    return [
        *(gpu_node(f"n{i}") for i in range(6)),
        owned("a", "n0", 2),
        owned("b", "n0", 2),
        owned("c", "n1", 6),
        owned("d", "n2", 6),
        owned("e", "n3", 7, kind=None),
        owned("g", "n4", 2),
        owned("h", "n4", 2),
        owned("k", "n5", 4, kind=None),
        native_pod_group("train", min_count=2),
        _member("train-0"),
        _member("train-1"),
        *pdb_objs,
    ]


def test_a_gang_gets_a_node_freed_for_each_member():
    cluster = build_cluster(_objs())
    sched = Scheduling.with_defaults(simulate, feature_gates=GANG_GATES)
    plan = plan_defragmentation(cluster, "default/train-0", sched)
    assert plan is not None
    assert plan.pods == ("default/train-0", "default/train-1")
    assert len(plan.freed) == 2
    assert set(plan.placements) == {"default/train-0", "default/train-1"}
    assert set(plan.placements.values()) == set(plan.freed)
    moved = with_moves(cluster, plan.moves)
    only = replaced(moved, pods=[p for p in moved.pods if p.node_name or p.key in plan.pods])
    result = simulate(only, sched.config, registry=sched.registry)
    assert [r.status for r in result.results] == ["Scheduled", "Scheduled"]


def test_no_plan_when_only_one_member_can_get_a_node():
    objs = [o for o in _objs() if o["metadata"]["name"] not in ("g", "h")]
    objs += [owned("g", "n4", 2, kind=None), owned("h", "n4", 2, kind=None)]
    sched = Scheduling.with_defaults(simulate, feature_gates=GANG_GATES)
    assert plan_defragmentation(build_cluster(objs), "default/train-1", sched) is None


COSCHEDULING = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {
                "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                "queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]},
            },
        }
    ],
}


def test_a_coscheduling_gang_gets_a_node_freed_for_each_member():
    objs = [o for o in _objs() if o["kind"] != "PodGroup" and "train" not in o["metadata"]["name"]]
    objs.append(
        {
            "apiVersion": "scheduling.x-k8s.io/v1alpha1",
            "kind": "PodGroup",
            "metadata": {"name": "train", "namespace": "default"},
            "spec": {"minMember": 2},
        }
    )
    for name in ("train-0", "train-1"):
        obj = pending(name)
        obj["metadata"]["labels"] = {"scheduling.x-k8s.io/pod-group": "train"}
        objs.append(obj)
    registry = default_registry()
    config = load_config(COSCHEDULING, **registry.config_kwargs())
    sched = Scheduling(config, registry, 0, simulate)
    cluster = build_cluster(objs)
    plan = plan_defragmentation(cluster, "default/train-1", sched)
    assert plan is not None
    assert plan.pods == ("default/train-0", "default/train-1")
    assert set(plan.placements.values()) == set(plan.freed) and len(plan.freed) == 2
