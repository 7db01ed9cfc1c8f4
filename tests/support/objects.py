"""Builders of named Kubernetes objects (nodes, pods, events, ...) as the API serves them."""

from __future__ import annotations

from typing import Any


def node(
    name: str,
    *,
    gpus: int = 0,
    cpu: str = "32",
    memory: str = "128Gi",
    gpu_key: str = "nvidia.com/gpu",
    ready: bool = True,
) -> dict[str, Any]:
    resources = {"cpu": cpu, "memory": memory, "pods": "110"}
    if gpus:
        resources[gpu_key] = str(gpus)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "spec": {},
        "status": {
            "capacity": dict(resources),
            "allocatable": dict(resources),
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def pod(
    name: str,
    *,
    namespace: str = "default",
    node: str | None = None,
    gpus: int = 0,
    cpu: str = "1",
    phase: str | None = None,
    priority: int | None = None,
    gpu_key: str = "nvidia.com/gpu",
) -> dict[str, Any]:
    requests: dict[str, str] = {"cpu": cpu, "memory": "1Gi"}
    limits: dict[str, str] = {}
    if gpus:
        limits[gpu_key] = str(gpus)
    spec: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "containers": [
            {
                "name": "main",
                "image": "busybox",
                "resources": {"requests": requests, "limits": limits},
            }
        ],
    }
    if node:
        spec["nodeName"] = node
    if priority is not None:
        spec["priority"] = priority
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "creationTimestamp": "2025-01-01T00:00:00Z",
        },
        "spec": spec,
        "status": {"phase": phase or ("Running" if node else "Pending")},
    }


def namespace(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name},
        "status": {"phase": "Active"},
    }


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }


def pdb(name: str, *, namespace: str = "default", min_available: int = 1) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": name}}},
        "status": {"disruptionsAllowed": 0},
    }


def event(
    name: str, *, pod_name: str, namespace: str = "default", reason: str = "FailedScheduling"
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": namespace},
        "involvedObject": {"kind": "Pod", "namespace": namespace, "name": pod_name},
        "reason": reason,
        "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
        "count": 2,
        "lastTimestamp": "2025-01-01T00:01:00Z",
    }
