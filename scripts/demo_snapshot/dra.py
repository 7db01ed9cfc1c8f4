"""A DRA GPU pool (dynamic resource allocation, ``resource.k8s.io/v1``).

``dra-gpu-1`` has eight L40S GPUs; ``dra-gpu-2`` eight A30s of which GPU 6
is split into two MIG partitions and GPU 7 is unhealthy, so the driver does
not publish it (GFD still counts eight).  One pending pod gets a device
through a claim made from a ResourceClaimTemplate; another asks for four
40Gi+ GPUs where only one node has such GPUs and most of them are taken:
``cannot allocate all claims``.  A claim still holds two A30s for a pod
that no longer exists.
"""

from __future__ import annotations

from typing import Any

from .objects import GPU_TAINT, GPU_TOLERATION, ZONES, gfd_labels, node, objects, on_node, pod

DRA_DRIVER = "gpu.nvidia.com"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
BIG_GPU = f'device.capacity["{DRA_DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0'
PRODUCTS = {
    "dra-gpu-1": ("NVIDIA L40S", "Ada Lovelace", "46068Mi", 46068, (8, 9)),
    "dra-gpu-2": ("NVIDIA A30", "Ampere", "24Gi", 24576, (8, 0)),
}


def build() -> None:
    """The nodes, device classes and slices, then the claims and the pods that use them."""
    for name, (product, arch, _memory, mib, compute) in PRODUCTS.items():
        node(
            name,
            ZONES[2],
            "64",
            "512Gi",
            instance="g6e.16xlarge" if name == "dra-gpu-1" else "g5.16xlarge",
            labels={
                "pool": "dra-gpu",
                **gfd_labels(product.replace(" ", "-"), 8, mib, arch.split()[0].lower(), compute),
            },
            taints=[dict(GPU_TAINT)],
        )
    for cls, kind in ((DRA_DRIVER, "gpu"), ("mig.nvidia.com", "mig")):
        expression = (
            f'device.driver == "{DRA_DRIVER}" && device.attributes["{DRA_DRIVER}"].type == "{kind}"'
        )
        objects.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": {"name": cls},
                "spec": {"selectors": [{"cel": {"expression": expression}}]},
            }
        )
    for name in PRODUCTS:
        resource_slice(name)
    claims_and_pods()


def resource_slice(name: str) -> None:
    product, arch, memory, _mib, _compute = PRODUCTS[name]
    if name == "dra-gpu-1":
        devices = [gpu_device(name, i, product, arch, memory) for i in range(8)]
    else:
        devices = [gpu_device(name, i, product, arch, memory) for i in range(6)]
        devices += [mig_device(name, 6, 5, 0, 2), mig_device(name, 6, 5, 2, 2)]
    objects.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"{name}-{DRA_DRIVER}"},
            "spec": {
                "driver": DRA_DRIVER,
                "nodeName": name,
                "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                "devices": devices,
            },
        }
    )


def claims_and_pods() -> None:
    # running: a visualisation stream holds six of the L40S GPUs through an allocated claim
    held = claim("ml-inference", "viz-stream-gpus", 6)
    held["status"] = allocated("dra-gpu-1", range(6), "ml-inference", "viz-stream-0")
    objects.append(held)
    dra_pod(
        "ml-inference",
        "viz-stream-0",
        "viz-stream",
        {"resourceClaimName": "viz-stream-gpus"},
        node_name="dra-gpu-1",
        cpu="8",
        memory="64Gi",
        minute=20,
    )
    # pending: one GPU through a template; the claim controller already made its claim
    objects.append(
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceClaimTemplate",
            "metadata": {"name": "single-big-gpu", "namespace": "ml-inference"},
            "spec": {"spec": claim_spec(1)},
        }
    )
    owner = {
        "apiVersion": "v1",
        "kind": "Pod",
        "name": "render-preview-0",
        "uid": "uid-ml-inference-render-preview-0",
        "controller": True,
        "blockOwnerDeletion": True,
    }
    annotations = {"resource.kubernetes.io/pod-claim-name": "gpu"}
    made = claim(
        "ml-inference",
        "render-preview-0-gpu-7xk2p",
        1,
        ownerReferences=[owner],
        annotations=annotations,
    )
    objects.append(made)
    preview = dra_pod(
        "ml-inference",
        "render-preview-0",
        "render-preview",
        {"resourceClaimTemplateName": "single-big-gpu"},
        cpu="4",
        memory="16Gi",
        minute=120,
    )
    preview["status"]["resourceClaimStatuses"] = [
        {"name": "gpu", "resourceClaimName": "render-preview-0-gpu-7xk2p"}
    ]
    # pending: four 40Gi+ GPUs; only the L40S node has them and just two are free
    objects.append(claim("ml-training", "finetune-gpus", 4))
    dra_pod(
        "ml-training",
        "finetune-l40s-0",
        "finetune",
        {"resourceClaimName": "finetune-gpus"},
        cpu="8",
        memory="32Gi",
        minute=121,
    )
    # allocated to a pod that no longer exists (deleted while its node was unreachable)
    orphan = claim("batch", "transcode-3-gpus", 2)
    orphan["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = []
    orphan["status"] = allocated("dra-gpu-2", (4, 5), "batch", "transcode-3")
    objects.append(orphan)


def dra_pod(
    ns: str,
    name: str,
    app: str,
    claim: dict[str, str],
    **resources: Any,
) -> dict[str, Any]:
    """A pod of the DRA pool whose claim ``gpu`` is ``claim`` (a claim's or a template's name)."""
    return pod(
        ns,
        name,
        labels={"app": app},
        resourceClaims=[{"name": "gpu", **claim}],
        nodeSelector={"pool": "dra-gpu"},
        tolerations=[GPU_TOLERATION],
        **resources,
    )


def claim_spec(count: int) -> dict[str, Any]:
    request = {
        "name": "gpu",
        "exactly": {
            "deviceClassName": DRA_DRIVER,
            "allocationMode": "ExactCount",
            "count": count,
            "selectors": [{"cel": {"expression": BIG_GPU}}],
        },
    }
    return {"devices": {"requests": [request]}}


def claim(ns: str, name: str, count: int, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}", **meta},
        "spec": claim_spec(count),
    }


def allocated(pool: str, devices: Any, ns: str, pod_name: str) -> dict[str, Any]:
    """A claim's status: ``devices`` of ``pool`` allocated, reserved for one pod."""
    results = [
        {"request": "gpu", "driver": DRA_DRIVER, "pool": pool, "device": f"gpu-{i}"}
        for i in devices
    ]
    return {
        "allocation": {"devices": {"results": results}, "nodeSelector": on_node(pool)},
        "reservedFor": [{"resource": "pods", "name": pod_name, "uid": f"uid-{ns}-{pod_name}"}],
    }


def _gpu_uuid(node_name: str, index: int) -> str:
    n = sum(map(ord, node_name))
    return f"GPU-{n:08x}-{index:04x}-4{index:03x}-8000-{n * 7919 + index:012x}"


def gpu_device(node_name: str, index: int, product: str, arch: str, memory: str) -> dict:
    """One GPU as NVIDIA's DRA driver publishes it (device name ``gpu-<minor>``)."""
    return {
        "name": f"gpu-{index}",
        "attributes": {
            "type": {"string": "gpu"},
            "uuid": {"string": _gpu_uuid(node_name, index)},
            "index": {"int": index},
            "minor": {"int": index},
            "productName": {"string": product},
            "brand": {"string": "Nvidia"},
            "architecture": {"string": arch},
            "cudaComputeCapability": {"version": "8.9.0" if arch == "Ada Lovelace" else "8.0.0"},
            "driverVersion": {"version": "570.86.15"},
            "cudaDriverVersion": {"version": "12.8.0"},
            "pcieBusID": {"string": f"0000:{0x17 + 0x20 * index:02x}:00.0"},
            PCIE_ROOT: {"string": f"pci0000:{0x10 + 0x20 * (index // 2):02x}"},
        },
        "capacity": {"memory": {"value": memory}},
    }


def mig_device(node_name: str, parent: int, profile_id: int, start: int, size: int) -> dict:
    """A MIG partition (2g.12gb on an A30) as NVIDIA's DRA driver publishes it."""
    gpu = gpu_device(node_name, parent, "NVIDIA A30", "Ampere", "24Gi")
    attrs = {
        k: v for k, v in gpu["attributes"].items() if k not in ("index", "minor", "uuid", "type")
    }
    capacity = {
        "multiprocessors": {"value": "28"},
        "copyEngines": {"value": "2"},
        "decoders": {"value": "2"},
        "encoders": {"value": "0"},
        "jpegEngines": {"value": "1"},
        "ofaEngines": {"value": "0"},
        "memory": {"value": "11968Mi"},
        **{f"memorySlice{i}": {"value": "1"} for i in range(start, start + size)},
    }
    return {
        "name": f"gpu-{parent}-mig-{profile_id}-{start}-{size}",
        "attributes": {
            "type": {"string": "mig"},
            "uuid": {"string": f"MIG-{_gpu_uuid(node_name, parent)[4:-4]}{start:04x}"},
            "parentUUID": {"string": gpu["attributes"]["uuid"]["string"]},
            "profile": {"string": "2g.12gb"},
            **attrs,
        },
        "capacity": capacity,
    }
