"""NodeResourceTopologies: what the NFD topology updater publishes per GPU node.

Two NUMA zones per GPU node; device-plugin GPUs split between them.  Running
GPU pods hold their devices on the first zone with room, as the kubelet's
topology manager aligned them; CPUs and memory of the running (Burstable)
pods come from the shared pool, so zones show them available.
"""

from __future__ import annotations

from typing import Any

from .objects import objects

NRT_POLICIES = {
    # pool → (topologyManagerPolicy, topologyManagerScope, legacy topologyPolicies value)
    "a100": ("single-numa-node", "container", "SingleNUMANodeContainerLevel"),
    "h100": ("best-effort", "pod", "BestEffortPodLevel"),
    "dra-gpu": ("single-numa-node", "pod", "SingleNUMANodePodLevel"),
}


def build() -> None:
    nodes = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Node"}
    used: dict[str, list[int]] = {}
    for o in objects:
        if o["kind"] != "Pod" or not o["spec"].get("nodeName"):
            continue
        gpus = int(o["spec"]["containers"][0]["resources"]["requests"].get("nvidia.com/gpu", 0))
        if gpus:
            used.setdefault(o["spec"]["nodeName"], []).append(gpus)
    for name, n in nodes.items():
        if n["metadata"]["labels"].get("pool") in NRT_POLICIES:
            node_topology(n, used.get(name, []))


def free_gpus(zone_gpus: list[int], used: list[int]) -> list[int]:
    """The GPUs left in each NUMA zone once the running pods' GPUs are placed."""
    free = list(zone_gpus)
    for want in used:
        for z in (0, 1):  # the topology manager's preferred (lowest) NUMA node first
            if free[z] >= want:
                free[z] -= want
                break
        else:  # spread over both zones (pod larger than one zone, or best-effort)
            take = min(free[0], want)
            free[0] -= take
            free[1] = max(0, free[1] - (want - take))
    return free


def numa_zone(z: int, cpu: int, mem: str, gpus: int | None, free: int) -> dict[str, Any]:
    reserved = 1 if z == 0 else 0
    resources = [
        {
            "name": "cpu",
            "capacity": str(cpu),
            "allocatable": str(cpu - reserved),
            "available": str(cpu - reserved),
        },
        {"name": "memory", "capacity": mem, "allocatable": mem, "available": mem},
    ]
    if gpus is not None:
        resources.append(
            {
                "name": "nvidia.com/gpu",
                "capacity": str(gpus),
                "allocatable": str(gpus),
                "available": str(free),
            }
        )
    return {
        "name": f"node-{z}",
        "type": "Node",
        "costs": [
            {"name": "node-0", "value": 10 if z == 0 else 21},
            {"name": "node-1", "value": 21 if z == 0 else 10},
        ],
        "resources": resources,
    }


def node_topology(n: dict[str, Any], used: list[int]) -> None:
    name = n["metadata"]["name"]
    policy, scope, legacy = NRT_POLICIES[n["metadata"]["labels"]["pool"]]
    alloc = n["status"]["allocatable"]
    cpu = int(alloc["cpu"]) // 2
    mem = f"{int(alloc['memory'].removesuffix('Gi')) // 2}Gi"
    total_gpus = int(alloc.get("nvidia.com/gpu", 0))
    zone_gpus = [min(4, total_gpus), max(0, total_gpus - 4)]
    free = free_gpus(zone_gpus, used)
    zones = [numa_zone(z, cpu, mem, zone_gpus[z] if total_gpus else None, free[z]) for z in (0, 1)]
    fingerprint = f"pfp0v001{sum(map(ord, name)) * 2654435761 % 16**16:016x}"
    objects.append(
        {
            "apiVersion": "topology.node.k8s.io/v1alpha2",
            "kind": "NodeResourceTopology",
            "metadata": {
                "name": name,
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "Node", "name": name, "uid": f"uid-{name}"}
                ],
            },
            "topologyPolicies": [legacy],
            "attributes": [
                {"name": "topologyManagerPolicy", "value": policy},
                {"name": "topologyManagerScope", "value": scope},
                {"name": "nodeTopologyPodsFingerprint", "value": fingerprint},
            ],
            "zones": zones,
        }
    )
