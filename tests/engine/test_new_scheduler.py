"""new_scheduler: one configuration's context, frameworks and scheduler, as every run builds them."""

from __future__ import annotations

import random

import pytest

from scheduler_engine import build_cluster, load_config
from scheduler_engine.config import FEATURE_GATES
from scheduler_engine.errors import InputError
from scheduler_engine.features import resolve_feature_gates
from scheduler_engine.framework.recorder import Recorder
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.scheduler.build import new_scheduler, run_feature_gates
from tests.engine.builders import cluster_objects, make_node, make_pod
from tests.engine.gangs.test_coscheduling import CONFIG, REGISTRY, pod_group

TWO = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "parallelism": 4,
    "percentageOfNodesToScore": 30,
    "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "batch-scheduler"}],
}


def _cluster(*extra):
    return build_cluster(cluster_objects(make_node("n1").cap(cpu="4", memory="8Gi"), *extra))


def _build(config, **kw):
    cluster = _cluster()
    snapshot = Snapshot(cluster.nodes, ())
    return cluster, snapshot, new_scheduler(cluster, snapshot, config, REGISTRY, **kw)


def test_every_profile_gets_a_framework_over_one_shared_context():
    rng = random.Random(7)
    cluster, snapshot, sched = _build(load_config(TWO), rng=rng, clock=12.5)
    assert list(sched.frameworks) == ["default-scheduler", "batch-scheduler"]
    ctx = sched.ctx
    assert (ctx.cluster, ctx.snapshot, ctx.rng, ctx.clock) == (cluster, snapshot, rng, 12.5)
    assert ctx.parallelism == 4
    assert sched.percentage_of_nodes_to_score == 30
    for name, fwk in sched.frameworks.items():
        assert fwk.profile_name == name
        assert fwk.handle.ctx is ctx


def test_the_context_carries_every_gate_the_configuration_overrides_over_the_defaults():
    _, _, sched = _build(load_config(TWO), rng=random.Random(0))
    assert sched.ctx.feature_gates == dict(FEATURE_GATES)
    gates = resolve_feature_gates({"OpportunisticBatching": False, "GenericWorkload": True})
    config = load_config(TWO, feature_gates=gates)
    _, _, sched = _build(config, rng=random.Random(0))
    assert sched.ctx.feature_gates == run_feature_gates(config) == gates
    assert sched.ctx.feature_gates is not config.feature_gates


def test_only_the_profiles_given_are_built():
    config = load_config(TWO)
    _, _, sched = _build(config, rng=random.Random(0), profiles=config.profiles[1:])
    assert list(sched.frameworks) == ["batch-scheduler"]


def test_the_recorder_batch_and_explain_reach_the_frameworks_and_the_scheduler():
    recorder = Recorder()
    _, _, sched = _build(load_config(TWO), rng=random.Random(0), recorder=recorder, explain=True)
    assert sched.explain
    assert all(f.recorder is recorder and not f.batch for f in sched.frameworks.values())
    _, _, sched = _build(load_config(TWO), rng=random.Random(0), batch=False)
    assert not sched.explain
    assert all(f.recorder is None and not f.vectorise for f in sched.frameworks.values())


def test_loading_pod_groups_names_a_bad_one_before_any_pod_is_tried():
    bad = pod_group("g", 2)
    bad["spec"]["minMember"] = "many"
    cluster = build_cluster([*cluster_objects(make_pod("p")), bad])
    snapshot = Snapshot(cluster.nodes, ())
    new_scheduler(cluster, snapshot, CONFIG, REGISTRY, rng=random.Random(0))
    with pytest.raises(InputError):
        new_scheduler(
            cluster, snapshot, CONFIG, REGISTRY, rng=random.Random(0), load_pod_groups=True
        )
