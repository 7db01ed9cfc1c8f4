"""Builders of GPU nodes and controller-owned pods for the defragmentation tests."""

from __future__ import annotations

from typing import Any

from tests.support.objects import node, pod

__all__ = ["gpu_node", "owned", "pdb", "pending"]


def gpu_node(name: str, gpus: int = 8) -> dict[str, Any]:
    return node(name, gpus=gpus, cpu="64", memory="512Gi")


def owned(name: str, where: str, gpus: int, kind: str | None = "ReplicaSet", **kw: Any):
    """A running pod of ``gpus`` GPUs, owned by a controller of ``kind`` (None: bare)."""
    obj = pod(name, node=where, gpus=gpus, **kw)
    obj["metadata"]["labels"] = {"app": name}
    obj["metadata"]["uid"] = f"uid-{name}"
    if kind is not None:
        obj["metadata"]["ownerReferences"] = [
            {
                "apiVersion": "batch/v1" if kind == "Job" else "apps/v1",
                "kind": kind,
                "name": f"{name}-owner",
                "uid": f"owner-{name}",
                "controller": True,
            }
        ]
    return obj


def pending(name: str = "train", gpus: int = 8) -> dict[str, Any]:
    obj = pod(name, gpus=gpus)
    obj["metadata"]["uid"] = f"uid-{name}"
    return obj


def pdb(app: str, allowed: int = 0) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": f"pdb-{app}", "namespace": "default"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": app}}},
        "status": {"disruptionsAllowed": allowed},
    }
