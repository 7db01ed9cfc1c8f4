"""A dry-run workload that is a gang: the PodGroup comes with its pods, and the engine places it whole."""

from __future__ import annotations

from dashboard.dryruns.services.workload import expand_workload
from scheduler_engine import build_cluster, simulate
from scheduler_engine.config import load_config
from scheduler_engine.framework.registry import default_registry
from tests.support.synthetic import node

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


def gang(name: str, replicas: int, gpus: int = 1) -> dict:
    return {
        "kind": "PodGroup",
        "name": name,
        "namespace": "train",
        "replicas": replicas,
        "podTemplate": {
            "spec": {
                "containers": [
                    {
                        "name": "w",
                        "image": "trainer",
                        "resources": {
                            "requests": {"cpu": "1", "nvidia.com/gpu": str(gpus)},
                            "limits": {"nvidia.com/gpu": str(gpus)},
                        },
                    }
                ]
            }
        },
    }


def test_a_pod_group_item_brings_its_pod_group():
    objs = expand_workload([gang("llm", 3)])
    kinds = [o["kind"] for o in objs]
    assert kinds == ["PodGroup", "Pod", "Pod", "Pod"]
    assert objs[0]["spec"] == {"minMember": 3}
    assert all(o["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] == "llm" for o in objs[1:])


def test_a_gang_workload_is_placed_whole_or_not_at_all():
    reg = default_registry()
    cfg = load_config(COSCHEDULING, **reg.config_kwargs())
    nodes = [node(i) for i in range(2)]
    fits = expand_workload([gang("fits", 16)])
    too_big = expand_workload([gang("too-big", 4, gpus=8)])
    res = simulate(build_cluster(nodes + fits + too_big), cfg, registry=reg).to_dict()
    status = {g["name"]: (g["status"], g["scheduled"]) for g in res["summary"]["gangs"]}
    assert status == {"train/fits": ("Scheduled", 16), "train/too-big": ("Unschedulable", 0)}


def _config(strategy: str) -> object:
    doc = {
        **COSCHEDULING,
        "profiles": [
            {
                **COSCHEDULING["profiles"][0],
                "pluginConfig": [
                    {
                        "name": "NodeResourcesFit",
                        "args": {
                            "scoringStrategy": {
                                "type": strategy,
                                "resources": [
                                    {"name": "cpu", "weight": 1},
                                    {"name": "nvidia.com/gpu", "weight": 3},
                                ],
                            }
                        },
                    }
                ],
            }
        ],
    }
    reg = default_registry()
    return load_config(doc, **reg.config_kwargs()), reg


def test_a_16_pod_gang_fits_only_after_a_bin_packing_profile():
    # 18 nodes of 8 GPUs; 16 one-GPU pods go first (higher priority), then a gang of
    # 16 pods that each need a whole node
    nodes = [node(i) for i in range(18)]
    small = expand_workload([{**gang("small", 16), "kind": "Job"}])
    for p in small:
        p["spec"]["priority"] = 1000
    big = expand_workload([gang("big", 16, gpus=8)])
    outcome = {}
    for strategy in ("LeastAllocated", "MostAllocated"):
        cfg, reg = _config(strategy)
        res = simulate(build_cluster(nodes + small + big), cfg, registry=reg).to_dict()
        (g,) = [g for g in res["summary"]["gangs"] if g["name"] == "train/big"]
        outcome[strategy] = (g["status"], g["scheduled"])
    assert outcome == {"LeastAllocated": ("Unschedulable", 0), "MostAllocated": ("Scheduled", 16)}


def _native_run(config) -> dict:
    from tests.support.gang_cluster import gang_objects

    reg = default_registry()
    return simulate(build_cluster(gang_objects()), config, registry=reg).to_dict()


def test_dry_runs_carry_the_deployments_feature_gates(settings):
    """With SCHEDLAB_FEATURE_GATES a dry-run schedules native gangs as groups; without, pod by pod."""
    from dashboard.dryruns.models import DryRun
    from dashboard.dryruns.services.runner import _config_for
    from tests.support.gang_cluster import GATES

    inline = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    for run in (DryRun(), DryRun(inline_config=inline)):
        settings.SCHEDLAB_FEATURE_GATES = ""
        plain = _native_run(_config_for(run))
        assert "gangs" not in plain["summary"]
        # pod by pod: two of big's four 8-GPU members would be bound without the gates
        bound = {r["pod"] for r in plain["results"] if r["status"] == "Scheduled"}
        assert len(bound) == 2
        settings.SCHEDLAB_FEATURE_GATES = GATES
        gangs = {g["name"]: g for g in _native_run(_config_for(run))["summary"]["gangs"]}
        assert {n: (g["status"], g["scheduled"]) for n, g in gangs.items()} == {
            "train/fits": ("Scheduled", 2),
            "train/big": ("Unschedulable", 0),
        }
