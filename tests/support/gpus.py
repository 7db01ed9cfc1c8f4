"""Builders of GPU objects as a cluster publishes them: GFD-labelled nodes, NVIDIA DRA
ResourceSlices, allocated ResourceClaims and NodeResourceTopology objects.

Shapes follow NVIDIA's DRA driver (``gpu.nvidia.com``, device ``gpu-<index>``,
attributes ``type``, ``uuid``, ``index``, ``productName``, ``architecture``,
``resource.kubernetes.io/pcieRoot``, ``cliqueID``) and the NFD topology updater
(``topology.node.k8s.io/v1alpha2``, zones ``node-<n>``). The tests and the
benchmarks both build their clusters from these.
"""

from __future__ import annotations

from typing import Any

from . import objects

DRIVER = "gpu.nvidia.com"
PRODUCT = "NVIDIA H100 80GB HBM3"


def gpu_node(
    name: str,
    *,
    gpus: int = 8,
    gfd_count: int | None = None,
    product: str = PRODUCT,
    memory_mib: int = 81559,
    clique: str | None = None,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A node whose device plugin publishes ``gpus`` and GFD counts ``gfd_count`` (default: same)."""
    node = objects.node(name, gpus=gpus, cpu="96", memory="1024Gi")
    node["metadata"]["labels"].update(
        {
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.count": str(gpus if gfd_count is None else gfd_count),
            "nvidia.com/gpu.product": product.replace(" ", "-"),
            "nvidia.com/gpu.memory": str(memory_mib),
            **({"nvidia.com/gpu.clique": clique} if clique else {}),
            **(labels or {}),
        }
    )
    if not gpus:  # a DRA-only node: the device plugin publishes nothing
        for key in ("capacity", "allocatable"):
            node["status"][key].pop("nvidia.com/gpu", None)
    return node


def _uuid(node: str, index: int) -> str:
    n = sum(map(ord, node))
    return f"GPU-{n:08x}-{index:04x}-4000-8000-{n * 7919 + index:012x}"


def gpu_device(
    node: str,
    index: int,
    *,
    numa: int | None = None,
    clique: str | None = None,
    product: str = PRODUCT,
    memory: str = "80Gi",
) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "type": {"string": "gpu"},
        "uuid": {"string": _uuid(node, index)},
        "index": {"int": index},
        "productName": {"string": product},
        "architecture": {"string": "Hopper"},
        "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{0x10 + 0x20 * (index // 2):02x}"},
    }
    if numa is not None:
        attrs["numa"] = {"int": numa}
    if clique:
        attrs["cliqueID"] = {"string": clique}
    return {"name": f"gpu-{index}", "attributes": attrs, "capacity": {"memory": {"value": memory}}}


def mig_device(node: str, parent: int, start: int, *, numa: int | None = None) -> dict[str, Any]:
    """A 3g.40gb partition of GPU ``parent`` starting at memory slice ``start``."""
    attrs: dict[str, Any] = {
        "type": {"string": "mig"},
        "uuid": {"string": f"MIG-{_uuid(node, parent)[4:-4]}{start:04x}"},
        "parentUUID": {"string": _uuid(node, parent)},
        "profile": {"string": "3g.40gb"},
        "productName": {"string": PRODUCT},
        "resource.kubernetes.io/pcieRoot": {"string": f"pci0000:{0x10 + 0x20 * (parent // 2):02x}"},
    }
    if numa is not None:
        attrs["numa"] = {"int": numa}
    return {
        "name": f"gpu-{parent}-mig-9-{start}-4",
        "attributes": attrs,
        "capacity": {"memory": {"value": "40Gi"}},
    }


def gpu_slice(
    node: str,
    count: int = 8,
    *,
    numa_per: int | None = 4,
    clique: str | None = None,
    skip: tuple[int, ...] = (),
    devices: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The DRA driver's ResourceSlice of ``node``: GPUs 0..count-1 (``skip`` left out)."""
    if devices is None:
        devices = [
            gpu_device(node, i, numa=i // numa_per if numa_per else None, clique=clique)
            for i in range(count)
            if i not in skip
        ]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{DRIVER}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def allocated_claim(
    name: str,
    node: str,
    devices: list[str],
    *,
    pod: str | None = None,
    namespace: str = "default",
) -> dict[str, Any]:
    """A claim holding ``devices`` of ``node``'s pool, reserved for ``pod`` (uid ``uid-<pod>``)."""
    status: dict[str, Any] = {
        "allocation": {
            "devices": {
                "results": [
                    {"request": "gpu", "driver": DRIVER, "pool": node, "device": d} for d in devices
                ]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                ]
            },
        }
    }
    if pod:
        status["reservedFor"] = [{"resource": "pods", "name": pod, "uid": f"uid-{pod}"}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-claim-{name}"},
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {
                            "deviceClassName": DRIVER,
                            "allocationMode": "ExactCount",
                            "count": len(devices),
                        },
                    }
                ]
            }
        },
        "status": status,
    }


def claim_pod(name: str, node: str, claim: str, *, namespace: str = "default") -> dict[str, Any]:
    """A running pod that holds ``claim`` (uid ``uid-<name>``)."""
    pod = objects.pod(name, namespace=namespace, node=node)
    pod["metadata"]["uid"] = f"uid-{name}"
    pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": claim}]
    pod["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return pod


def nrt(
    node: str,
    gpus: list[tuple[int, int]],
    *,
    policy: str = "single-numa-node",
    scope: str = "container",
) -> dict[str, Any]:
    """The node's NodeResourceTopology: one NUMA zone per (GPU capacity, available)."""
    zones = []
    for z, (capacity, available) in enumerate(gpus):
        zones.append(
            {
                "name": f"node-{z}",
                "type": "Node",
                "costs": [
                    {"name": f"node-{o}", "value": 10 if o == z else 21} for o in range(len(gpus))
                ],
                "resources": [
                    {"name": "cpu", "capacity": "48", "allocatable": "47", "available": "40"},
                    {
                        "name": "memory",
                        "capacity": "512Gi",
                        "allocatable": "512Gi",
                        "available": "400Gi",
                    },
                    {
                        "name": "nvidia.com/gpu",
                        "capacity": str(capacity),
                        "allocatable": str(capacity),
                        "available": str(available),
                    },
                ],
            }
        )
    return {
        "apiVersion": "topology.node.k8s.io/v1alpha2",
        "kind": "NodeResourceTopology",
        "metadata": {"name": node},
        "topologyPolicies": ["SingleNUMANodeContainerLevel"],
        "attributes": [
            {"name": "topologyManagerPolicy", "value": policy},
            {"name": "topologyManagerScope", "value": scope},
        ],
        "zones": zones,
    }
