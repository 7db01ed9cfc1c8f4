"""The objects being built, and builders for the kinds every part of the demo uses."""

from __future__ import annotations

from typing import Any

ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]
T0 = "2026-11-20T08:00:00Z"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
PYTORCH_IMAGE = "nvcr.io/nvidia/pytorch:24.10-py3"

objects: list[dict[str, Any]] = []


def gfd_labels(
    product: str, count: int, memory_mib: int, family: str, compute: tuple[int, int]
) -> dict[str, str]:
    """The labels GPU Feature Discovery puts on a GPU node."""
    return {
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.product": product,
        "nvidia.com/gpu.count": str(count),
        "nvidia.com/gpu.memory": str(memory_mib),
        "nvidia.com/gpu.family": family,
        "nvidia.com/gpu.compute.major": str(compute[0]),
        "nvidia.com/gpu.compute.minor": str(compute[1]),
        "nvidia.com/cuda.driver.major": "570",
        "nvidia.com/mig.capable": "true" if compute in ((8, 0), (9, 0)) else "false",
    }


def ts(minute: int) -> str:
    return f"2026-11-20T{8 + minute // 60:02d}:{minute % 60:02d}:00Z"


def namespace(name: str, team: str) -> None:
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": name,
                "labels": {"kubernetes.io/metadata.name": name, "team": team},
            },
        }
    )


def priority_class(name: str, value: int, description: str, never: bool = False) -> None:
    pc: dict[str, Any] = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "description": description,
        "preemptionPolicy": "Never" if never else "PreemptLowerPriority",
    }
    objects.append(pc)


def node(name: str, zone: str, cpu: str, memory: str, pods: int = 110, **extra: Any) -> None:
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": zone,
        "node.kubernetes.io/instance-type": extra.pop("instance", "m6i.8xlarge"),
        **extra.pop("labels", {}),
    }
    alloc = {"cpu": cpu, "memory": memory, "pods": str(pods), "ephemeral-storage": "400Gi"}
    alloc.update(extra.pop("resources", {}))
    spec: dict[str, Any] = {}
    if extra.get("taints"):
        spec["taints"] = extra.pop("taints")
    if extra.pop("cordoned", False):
        spec["unschedulable"] = True
        spec.setdefault("taints", []).append(
            {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": T0}
        )
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "labels": labels,
                "creationTimestamp": T0,
                "uid": f"uid-{name}",
            },
            "spec": spec,
            "status": {
                "capacity": dict(alloc),
                "allocatable": alloc,
                "conditions": [{"type": "Ready", "status": "True"}],
                "images": extra.pop("images", []),
            },
        }
    )


def _container(image: str, cpu: str, memory: str, gpus: int) -> dict[str, Any]:
    requests: dict[str, Any] = {"cpu": cpu, "memory": memory}
    container: dict[str, Any] = {
        "name": "main",
        "image": image,
        "resources": {"requests": requests},
    }
    if gpus:
        requests["nvidia.com/gpu"] = str(gpus)
        container["resources"]["limits"] = {"nvidia.com/gpu": str(gpus)}
    return container


def pod(
    ns: str,
    name: str,
    *,
    node_name: str | None = None,
    cpu: str = "500m",
    memory: str = "1Gi",
    gpus: int = 0,
    labels: dict[str, str] | None = None,
    priority_class: str | None = None,
    minute: int = 0,
    image: str = "registry.example.com/app:1.0",
    gpu_toleration: bool = True,
    **spec_extra: Any,
) -> dict[str, Any]:
    """A pod, running on ``node_name`` or Pending without one; returned to be adjusted.

    A pod asking for GPUs tolerates the GPU taint unless ``gpu_toleration`` is False.
    """
    spec: dict[str, Any] = {
        "containers": [_container(image, cpu, memory, gpus)],
        "schedulerName": "default-scheduler",
    }
    if gpus and gpu_toleration:
        spec["tolerations"] = [GPU_TOLERATION]
    if priority_class:
        spec["priorityClassName"] = priority_class
    if node_name:
        spec["nodeName"] = node_name
    spec.update(spec_extra)
    status: dict[str, Any] = {"phase": "Running" if node_name else "Pending"}
    if node_name:
        status["startTime"] = ts(minute)
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": ns,
            "uid": f"uid-{ns}-{name}",
            "labels": labels or {},
            "creationTimestamp": ts(minute),
        },
        "spec": spec,
        "status": status,
    }
    objects.append(obj)
    return obj


def pdb(ns: str, name: str, labels: dict[str, str], allowed: int, min_available: int) -> None:
    objects.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": labels}},
            "status": {"disruptionsAllowed": allowed, "currentHealthy": min_available + allowed},
        }
    )


def on_node(name: str) -> dict[str, Any]:
    """A node selector that matches one node by name (a DRA allocation's, a PV's)."""
    return {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}
        ]
    }


def match_in(key: str, values: list[str]) -> dict[str, Any]:
    """A node selector with one ``key In values`` expression."""
    return {
        "nodeSelectorTerms": [
            {"matchExpressions": [{"key": key, "operator": "In", "values": values}]}
        ]
    }
