"""A three-level preemption cascade on the demo cluster.

The demo's pods carry no ownerReferences; here its running workloads get the
controllers their names suggest (llm-serve a StatefulSet, the sweeps and
experiments Jobs), as a real cluster shows them. The workload added: a GPU
burn-in validator for a100-c-2 (the node with a failed GPU, 7 left), and a
CPU-heavy tokenizer on a100-c-1. The chain, with the demo's own priorities:
the validator evicts llm-serve-5 (inference-critical); its StatefulSet brings
it back, and it evicts a sweep pod (training-low) elsewhere, since a100-c-1
lacks the CPU for it; the sweep's Job brings that one back, and it evicts
notebook-alice (no priority class) and a worker of the demo's bert-finetune gang
(an ordinary pod without the workload gates) on a100-c-1; nobody recreates a
bare pod.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scheduler_engine.cluster import build_cluster
from scheduler_engine.documents import read_objects
from scheduler_engine.simulate import simulate

DEMO = Path(__file__).resolve().parents[2] / "scheduler_engine" / "demo" / "gpu-cluster.yaml"
OWNERS = {
    "llm-serve": ("StatefulSet", "llm-serve"),
    "sweep": ("Job", "sweep"),
    "experiment-7-worker": ("Job", "experiment-7"),
    "gpt-pretrain-worker": ("Job", "gpt-pretrain"),
}


def demo_with_owners() -> list[dict[str, Any]]:
    objects = read_objects(DEMO)
    for o in objects:
        if o.get("kind") != "Pod" or not (o.get("spec") or {}).get("nodeName"):
            continue
        base = o["metadata"]["name"].rsplit("-", 1)[0]
        if base in OWNERS:
            kind, name = OWNERS[base]
            o["metadata"]["ownerReferences"] = [
                {
                    "apiVersion": "apps/v1",
                    "kind": kind,
                    "name": name,
                    "uid": f"uid-{name}",
                    "controller": True,
                }
            ]
    return objects


def _pod(name: str, ns: str, pc: str, node: str, requests: dict[str, str]) -> dict[str, Any]:
    limits = {k: v for k, v in requests.items() if k == "nvidia.com/gpu"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "priorityClassName": pc,
            "nodeSelector": {"kubernetes.io/hostname": node},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}],
            "containers": [
                {"name": "c", "image": "x", "resources": {"requests": requests, "limits": limits}}
            ],
        },
    }


def workload() -> list[dict[str, Any]]:
    return [
        _pod(
            "gpu-validator",
            "kube-system",
            "system-cluster-critical",
            "a100-c-2",
            {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "7"},
        ),
        _pod(
            "tokenizer",
            "ml-inference",
            "inference-critical",
            "a100-c-1",
            {"cpu": "70", "memory": "64Gi"},
        ),
    ]


def _cascade(depth: int) -> dict[str, Any]:
    cluster = build_cluster(demo_with_owners() + workload())
    doc = simulate(cluster, seed=0, cascade_depth=depth, controllers=True).to_dict()
    return doc["summary"]["cascade"]


def _chain(cascade: dict[str, Any]) -> list[list[tuple[str, str, str]]]:
    return [
        [(e["pod"], e["by"], e["cause"]) for e in lv["evictions"] if e["pod"] != EXPERIMENT]
        for lv in cascade["levels"]
    ]


EXPERIMENT = "ml-training/experiment-7-worker-0"


def test_three_levels_inference_then_training_then_a_bare_notebook() -> None:
    cascade = _cascade(5)
    assert cascade["depth"] == 3 and cascade["stoppedBy"] == "end"
    (sweep,) = [e for e in cascade["levels"][1]["evictions"]]
    assert _chain(cascade) == [
        [("ml-inference/llm-serve-5", "kube-system/gpu-validator", "StatefulSet")],
        [(sweep["pod"], "ml-inference/llm-serve-5", "Job")],
        [
            ("ml-training/notebook-alice", sweep["recreatedAs"], "bare"),
            # the demo's bert-finetune gang: without the workload gates its workers are
            # ordinary bare pods of the lowest priority, and one sits on a100-c-1 too
            ("ml-training/bert-finetune-worker-0", sweep["recreatedAs"], "bare"),
        ],
    ]
    assert sweep["pod"].startswith("ml-training/sweep-")
    one, two, three = cascade["levels"]
    assert one["priorityClasses"] == {"inference-critical": 1, "training-low": 1}
    assert two["priorityClasses"] == {"training-low": 1}
    assert three["priorityClasses"] == {"(none)": 1, "research-opportunistic": 1}
    # llm-serve-5 is back on the sweep's node, the sweep's replacement on a100-c-1
    llm = one["evictions"][0]
    assert llm["recreatedAs"] == "ml-inference/llm-serve-5"
    assert llm["outcome"]["node"] == sweep["node"]
    assert sweep["outcome"]["node"] == "a100-c-1"
    assert {e["node"] for e in three["evictions"]} == {"a100-c-1"}
    # the demo's own pending gpt-finetune preempts experiment-7, whose Job's new pod
    # has nowhere to go (no 8 free GPUs, nothing lower to evict)
    (nowhere,) = one["nowhereToGo"]
    assert nowhere["replaces"] == EXPERIMENT
    assert "Insufficient nvidia.com/gpu" in nowhere["message"]
    assert cascade["totals"]["evictions"] == 5
    assert cascade["totals"]["nowhereToGo"] == 1
    # the gang lost a worker: the cascade names it among the broken gangs
    assert cascade["totals"]["brokenGangs"] == 1


def test_the_same_cascade_stops_at_a_depth_limit_of_two() -> None:
    cascade = _cascade(2)
    assert cascade["depth"] == 2 and cascade["stoppedBy"] == "depthLimit"
    assert cascade["levels"][1]["evictions"][0]["recreatedAs"] is None
