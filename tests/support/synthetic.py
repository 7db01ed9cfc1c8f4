"""Numbered synthetic GPU fleets (node-0.., pod-0..) for tests and the benchmarks."""

from __future__ import annotations

from typing import Any


def node(i: int, zones: int = 3, gpus: int = 8) -> dict[str, Any]:
    alloc = {"cpu": "64", "memory": "512Gi", "pods": "110", "nvidia.com/gpu": str(gpus)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": f"node-{i}",
            "uid": f"node-uid-{i}",
            "labels": {
                "kubernetes.io/hostname": f"node-{i}",
                "topology.kubernetes.io/zone": f"zone-{i % zones}",
            },
        },
        "status": {
            "capacity": alloc,
            "allocatable": alloc,
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod(i: int, node_name: str = "", gpus: int = 0, cpu: str = "1") -> dict[str, Any]:
    requests: dict[str, str] = {"cpu": cpu, "memory": "2Gi"}
    resources: dict[str, Any] = {"requests": requests}
    if gpus:
        # the API server requires an extended resource's limit, equal to its request
        requests["nvidia.com/gpu"] = str(gpus)
        resources["limits"] = {"nvidia.com/gpu": str(gpus)}
    spec: dict[str, Any] = {
        "containers": [{"name": "main", "image": "app:1", "resources": resources}]
    }
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"pod-{i}",
            "namespace": "default",
            "uid": f"pod-uid-{i}",
            "creationTimestamp": "2025-03-01T10:00:00Z",
        },
        "spec": spec,
        "status": {"phase": "Running" if node_name else "Pending"},
    }


def fleet(nodes: int, running: int = 0, pending: int = 0) -> list[dict[str, Any]]:
    objs = [node(i) for i in range(nodes)]
    objs += [pod(i, node_name=f"node-{i % nodes}") for i in range(running)]
    objs += [pod(running + i) for i in range(pending)]
    return objs


def job(name: str, replicas: int, gpus: int = 1) -> dict[str, Any]:
    requests = {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": str(gpus)}
    return {
        "kind": "Job",
        "name": name,
        "namespace": "default",
        "replicas": replicas,
        "podTemplate": {
            "metadata": {"labels": {"job": name}},
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "image": "train:1",
                        "resources": {
                            "requests": requests,
                            "limits": {"nvidia.com/gpu": str(gpus)},
                        },
                    }
                ]
            },
        },
    }
