"""The objects benchmarks/mirror.py serves and benchmarks/engine_scale.py schedules.

A GPU fleet: ``make_node(i)`` (every fifth node CPU-only, the others 8 tainted
GPUs) and ``make_pod(i, nodes)`` (GPU training pods, priorities 0 to 3,000,
running on ``node-(i % nodes)`` or, with ``node=False``, pending). Plain dicts,
as the API server returns them; no Django.
"""

from __future__ import annotations


def make_node(i: int) -> dict:
    gpus = 8 if i % 5 else 0
    res = {"cpu": "96", "memory": "768Gi", "pods": "110", "ephemeral-storage": "1Ti"}
    if gpus:
        res["nvidia.com/gpu"] = str(gpus)
    name = f"node-{i:05d}"
    return {
        "kind": "Node",
        "apiVersion": "v1",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": f"zone-{i % 3}",
                "node.kubernetes.io/instance-type": "p4d.24xlarge" if gpus else "m6i.24xlarge",
            },
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}] if gpus else []},
        "status": {
            "capacity": res,
            "allocatable": res,
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
            "nodeInfo": {
                "kubeletVersion": "v1.36.0",
                "containerRuntimeVersion": "containerd://2.0",
            },
        },
    }


def make_pod(i: int, nodes: int, *, node: bool = True) -> dict:
    ns = f"team-{i % 50}"
    spec = {
        "schedulerName": "default-scheduler",
        "priority": (i % 4) * 1000,
        "containers": [
            {
                "name": "main",
                "image": "registry.example.com/train:1.2.3",
                "env": [{"name": "RANK", "value": str(i)}, {"name": "WORLD", "value": "64"}],
                "resources": {
                    "requests": {"cpu": "4", "memory": "32Gi"},
                    "limits": {"nvidia.com/gpu": str(1 + i % 4)},
                },
            }
        ],
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    if node:
        spec["nodeName"] = f"node-{i % nodes:05d}"
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": {
            "name": f"job-{i:06d}",
            "namespace": ns,
            "labels": {"app": "trainer", "job": f"job-{i // 64}"},
            "ownerReferences": [{"kind": "Job", "name": f"job-{i // 64}", "uid": f"uid-{i // 64}"}],
            "creationTimestamp": "2026-01-01T00:00:00Z",
        },
        "spec": spec,
        "status": {
            "phase": "Running" if node else "Pending",
            "conditions": [{"type": "PodScheduled", "status": "True" if node else "False"}],
        },
    }
