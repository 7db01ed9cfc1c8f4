"""The worked example: GPUMemoryScore scores free GPU memory and normalizes it to 0-100."""

from __future__ import annotations

import pytest

from examples.plugins.gpu_memory_score import GPUMemoryScore, GPUMemoryScoreArgs
from scheduler_engine import build_cluster, load_config, simulate
from scheduler_engine.plugin_loader import build_registry

SPEC = "examples.plugins.gpu_memory_score:GPUMemoryScore"


def node(name, gpus=None, mib=None):
    labels = {"kubernetes.io/hostname": name}
    if mib:
        labels["nvidia.com/gpu.memory"] = str(mib)
    alloc = {"cpu": "32", "memory": "128Gi", "pods": "110"}
    if gpus is not None:
        alloc["nvidia.com/gpu"] = str(gpus)
    return {
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": alloc},
    }


def pod(name, gpus=0, node_name=None, claim=None):
    req = {"cpu": "1"}
    if gpus:
        req["nvidia.com/gpu"] = str(gpus)
    resources = {"requests": req}
    if gpus:
        resources["limits"] = {"nvidia.com/gpu": str(gpus)}
    spec = {"containers": [{"name": "c", "image": "x", "resources": resources}]}
    if node_name:
        spec["nodeName"] = node_name
    if claim:
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"u-{name}"},
        "spec": spec,
    }


def dra_slice(node_name, memories):
    return {
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpus"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"gpu-{i}",
                    "attributes": {"type": {"string": "gpu"}},
                    "capacity": {"memory": {"value": m}},
                }
                for i, m in enumerate(memories)
            ],
        },
    }


def allocated_claim(name, node_name, devices):
    return {
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default", "uid": f"u-{name}"},
        "spec": {
            "devices": {
                "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com"}}]
            }
        },
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {
                            "request": "gpu",
                            "driver": "gpu.nvidia.com",
                            "pool": node_name,
                            "device": d,
                        }
                        for d in devices
                    ]
                }
            }
        },
    }


PROFILE = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [
        {
            "schedulerName": "default-scheduler",
            "plugins": {"multiPoint": {"enabled": [{"name": "GPUMemoryScore", "weight": 5}]}},
        }
    ],
}


def run(objs):
    reg = build_registry([SPEC])
    cfg = load_config(PROFILE, **reg.config_kwargs())
    return {
        r["pod"]: r
        for r in simulate(build_cluster(objs), cfg, registry=reg, explain=True).to_dict()["results"]
    }


def test_device_plugin_nodes_score_label_mib_times_free_gpus():
    res = run(
        [
            node("big", gpus=8, mib=81920),
            node("small", gpus=8, mib=40960),
            node("busy", gpus=8, mib=81920),
            pod("hog", gpus=7, node_name="busy"),
            pod("want", gpus=1),
        ]
    )
    scores = res["default/want"]["pluginScores"]
    assert {n: s["GPUMemoryScore"]["raw"] for n, s in scores.items()} == {
        "big": 8 * 81920,
        "small": 8 * 40960,
        "busy": 1 * 81920,
    }
    assert {n: s["GPUMemoryScore"]["normalized"] for n, s in scores.items()} == {
        "big": 100,
        "small": 50,
        "busy": 12,
    }
    assert res["default/want"]["node"] == "big"


def test_dra_nodes_score_the_memory_of_devices_no_claim_holds():
    res = run(
        [
            node("dra-a"),
            node("dra-b"),
            dra_slice("dra-a", ["48Gi", "48Gi"]),
            dra_slice("dra-b", ["80Gi", "80Gi"]),
            allocated_claim("taken", "dra-b", ["gpu-0", "gpu-1"]),
            allocated_claim("half", "dra-a", ["gpu-1"]),
            {**pod("want", gpus=0), "spec": {**pod("want")["spec"], "resourceClaims": []}},
        ]
    )
    # a pod without GPUs is not scored: PreScore says Skip
    assert all("GPUMemoryScore" not in s for s in res["default/want"]["pluginScores"].values())


def test_dra_free_memory_counts_for_pods_asking_for_gpus():
    objs = [
        node("dra-a", gpus=1, mib=1),
        node("dra-b", gpus=1, mib=1),
        dra_slice("dra-a", ["48Gi", "48Gi"]),
        dra_slice("dra-b", ["80Gi", "80Gi"]),
        allocated_claim("taken", "dra-b", ["gpu-0", "gpu-1"]),
        allocated_claim("half", "dra-a", ["gpu-1"]),
        pod("want", gpus=1),
    ]
    scores = run(objs)["default/want"]["pluginScores"]
    assert scores["dra-a"]["GPUMemoryScore"]["raw"] == 1 + 48 * 1024
    assert scores["dra-b"]["GPUMemoryScore"]["raw"] == 1


def test_no_free_memory_anywhere_leaves_zeros():
    plugin = GPUMemoryScore(GPUMemoryScoreArgs(), None)
    from scheduler_engine.plugin_api import NodeScore

    scores = [NodeScore("a", 0), NodeScore("b", 0)]
    assert plugin.normalize_score(None, None, scores) is None
    assert [s.score for s in scores] == [0, 0]


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"resourceName": ""}, "resourceName"),
        ({"draDrivers": [""]}, "draDrivers[0]"),
        ({"draDrivers": "gpu.nvidia.com"}, "draDrivers"),
        ({"memoryLabels": "x"}, "memoryLabels"),
    ],
)
def test_args_problems_name_the_field(raw, field):
    args, problems = GPUMemoryScoreArgs.parse(raw)
    assert problems and problems[0][0] == field
