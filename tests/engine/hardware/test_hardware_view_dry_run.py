"""The hardware-view dry-run: GPUs that exist instead of nvidia.com/gpu, phantom placements."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

import scheduler_engine
from scheduler_engine import build_cluster, load_cluster
from scheduler_engine.cli import main
from scheduler_engine.hardware_view import (
    hardware_cluster,
    phantom_placements,
    simulate_hardware_view,
)
from scheduler_engine.simulate import simulate

from .test_gpu_views import gpu, node, slice_

DEMO = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"


def pending(name, gpus, minute=0):
    return {
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "creationTimestamp": f"2026-01-01T01:{minute:02d}:00Z",
        },
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "x",
                    "resources": {
                        "requests": {"nvidia.com/gpu": str(gpus)},
                        "limits": {"nvidia.com/gpu": str(gpus)},
                    },
                }
            ]
        },
    }


def test_counts_are_replaced_by_the_hardware_ones_only_where_they_differ():
    cluster = build_cluster(
        [
            node("lying", gpus=8, gfd=4),
            node("honest", gpus=8, gfd=8),
            node("dra", gpus=2),
            slice_("dra", [gpu(0), gpu(1), gpu(2)]),
            node("plain", gpus=2),
        ]
    )
    hw, changed = hardware_cluster(cluster)
    assert changed == [
        {"node": "lying", "allocatable": 8, "hardware": 4},
        {"node": "dra", "allocatable": 2, "hardware": 3},
    ]
    alloc = {n.name: n.allocatable.scalar.get("nvidia.com/gpu") for n in hw.nodes}
    assert alloc == {"lying": 4, "honest": 8, "dra": 3, "plain": 2}
    # the caller's state is left alone
    assert {n.name: n.allocatable.scalar.get("nvidia.com/gpu") for n in cluster.nodes}["lying"] == 8


def test_placements_beyond_the_hardware_are_reported_in_order():
    objs = [node("lying", gpus=8, gfd=4)] + [pending(f"p{i}", 2, i) for i in range(4)]
    cluster = build_cluster(objs)
    results = simulate(cluster).to_dict()["results"]
    assert [r["node"] for r in results] == ["lying"] * 4
    phantoms = phantom_placements(cluster, results)
    assert [(p["pod"], p["inUseBefore"], p["missing"]) for p in phantoms] == [
        ("default/p2", 4, 2),
        ("default/p3", 6, 2),
    ]
    doc = simulate_hardware_view(cluster)
    assert [r["status"] for r in doc["results"]] == ["Scheduled"] * 2 + ["Unschedulable"] * 2
    assert doc["results"][2]["message"].startswith(
        "0/1 nodes are available: 1 Insufficient nvidia.com/gpu"
    )
    assert [m["pod"] for m in doc["hardwareView"]["moved"]] == ["default/p2", "default/p3"]


def test_the_demo_notebook_lands_on_a_gpu_that_does_not_exist(capsys):
    assert main(["simulate", "--snapshot", str(DEMO), "--hardware-view"]) == 0
    doc = json.loads(capsys.readouterr().out)
    # the notebook takes the first GPU a100-c-1 does not have; the demo's
    # bert-finetune gang queues last (without the workload gates its workers are
    # ordinary pods) and its second worker takes the next one
    phantoms = doc["hardwareView"]["phantomPlacements"]
    assert [(p["pod"], p["node"], p["hardware"], p["inUseBefore"]) for p in phantoms] == [
        ("ml-training/notebook-alice", "a100-c-1", 4, 4),
        ("ml-training/bert-finetune-worker-1", "a100-c-1", 4, 5),
    ]
    by_pod = {r["pod"]: r for r in doc["results"]}
    assert by_pod["ml-training/notebook-alice"]["node"] == "a100-c-2"
    assert doc["hardwareView"]["moved"] == [
        {
            "pod": pod,
            "schedulerView": {"status": "Scheduled", "node": "a100-c-1"},
            "hardwareView": {"status": "Scheduled", "node": "a100-c-2"},
        }
        for pod in ("ml-training/notebook-alice", "ml-training/bert-finetune-worker-1")
    ]


def test_without_disagreements_the_views_agree():
    cluster = load_cluster(DEMO)
    honest = [o for o in yaml.safe_load(DEMO.read_text())["items"] if o["kind"] != "ResourceSlice"]
    for o in honest:
        if o["kind"] == "Node" and "nvidia.com/gpu" in o["status"]["allocatable"]:
            o["metadata"]["labels"]["nvidia.com/gpu.count"] = o["status"]["allocatable"][
                "nvidia.com/gpu"
            ]
    doc = simulate_hardware_view(build_cluster(honest))
    assert doc["hardwareView"] == {"nodes": [], "phantomPlacements": [], "moved": []}
    assert cluster.nodes  # the demo itself still loads
