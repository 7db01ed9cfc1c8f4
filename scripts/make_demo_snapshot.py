"""Writes scheduler_engine/demo/gpu-cluster.yaml, the bundled demo cluster.

A GPU training and inference cluster of a realistic shape: three zones, CPU
nodes, tainted 8-GPU A100 and H100 pools labelled the way GPU Feature
Discovery labels them, running workloads with priorities and PDBs, and
pending pods that show a wide range of scheduling outcomes.  Run it again
after changing it: ``python scripts/make_demo_snapshot.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

OUT = Path(__file__).resolve().parent.parent / "scheduler_engine" / "demo" / "gpu-cluster.yaml"
ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]
T0 = "2026-11-20T08:00:00Z"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
objects: list[dict[str, Any]] = []
# Nodes whose device plugin (nvidia.com/gpu allocatable) and GPU Feature Discovery
# (nvidia.com/gpu.count) disagree: (device-plugin count, GFD count).
GPU_FAULTS = {
    # four GPUs fell off the bus; the device plugin was not restarted and still
    # advertises eight, so the scheduler places pods on GPUs that do not exist
    "a100-c-1": (8, 4),
    # the device plugin marked one GPU unhealthy (Xid 79)
    "a100-c-2": (7, 8),
    # an NVSwitch fault: four GPUs unhealthy, yet a running pod holds six
    "h100-b-1": (4, 8),
}


NVLINK_CLUSTER = "7c1b3a2e-5d4f-4e8a-9b6c-0d1e2f3a4b5c"


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
    **spec_extra: Any,
) -> None:
    requests: dict[str, Any] = {"cpu": cpu, "memory": memory}
    limits: dict[str, Any] = {}
    if gpus:
        requests["nvidia.com/gpu"] = str(gpus)
        limits["nvidia.com/gpu"] = str(gpus)
    container: dict[str, Any] = {
        "name": "main",
        "image": image,
        "resources": {"requests": requests},
    }
    if limits:
        container["resources"]["limits"] = limits
    spec: dict[str, Any] = {"containers": [container], "schedulerName": "default-scheduler"}
    if gpus:
        spec["tolerations"] = [GPU_TOLERATION]
    if priority_class:
        spec["priorityClassName"] = priority_class
    if node_name:
        spec["nodeName"] = node_name
    spec.update(spec_extra)
    status: dict[str, Any] = {"phase": "Running" if node_name else "Pending"}
    if node_name:
        status["startTime"] = ts(minute)
    objects.append(
        {
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
    )


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


def build() -> None:
    for ns, team in [
        ("ml-training", "research"),
        ("ml-inference", "serving"),
        ("data", "platform"),
        ("web", "product"),
        ("batch", "platform"),
    ]:
        namespace(ns, team)
    priority_class("inference-critical", 1_000_000, "Online inference; may preempt training.")
    priority_class("training-high", 100_000, "Foundation-model training runs.")
    priority_class("training-low", 1_000, "Preemptible experiments and sweeps.")
    priority_class("batch-no-preempt", 50_000, "Batch work that never preempts.", never=True)

    # CPU pool: 3 nodes per zone, one cordoned for maintenance.
    for z, zone in enumerate(ZONES):
        for i in range(1, 4):
            node(
                f"cpu-{zone[-1]}-{i}",
                zone,
                "32",
                "128Gi",
                labels={"pool": "cpu"},
                cordoned=(z == 2 and i == 3),
                images=[{"names": ["registry.example.com/app:1.0"], "sizeBytes": 250_000_000}],
            )
    # A100 pool: two 8-GPU nodes per zone.  Two of them disagree with their hardware
    # (see GPU_FAULTS): the views the resource-view checks compare.
    for zone in ZONES:
        for i in range(1, 3):
            name = f"a100-{zone[-1]}-{i}"
            plugin_count, gfd_count = GPU_FAULTS.get(name, (8, 8))
            # a100-c-1 is a p4d with 40 GB A100s that has the notebook image cached:
            # the default profile prefers it, GPUMemoryScore does not (docs/plugins.md)
            small = name == "a100-c-1"
            images = [{"names": ["nvcr.io/nvidia/pytorch:24.10-py3"], "sizeBytes": 9_800_000_000}]
            if small:
                images.append({"names": ["registry.example.com/app:1.0"], "sizeBytes": 250_000_000})
            node(
                name,
                zone,
                "96",
                "1000Gi",
                instance="p4d.24xlarge",
                labels={
                    "pool": "a100",
                    **gfd_labels(
                        "NVIDIA-A100-SXM4-40GB" if small else "NVIDIA-A100-SXM4-80GB",
                        gfd_count,
                        40960 if small else 81920,
                        "ampere",
                        (8, 0),
                    ),
                },
                resources={"nvidia.com/gpu": str(plugin_count)},
                taints=[dict(GPU_TAINT)],
                images=images,
            )
    # H100 pool: three 8-GPU nodes in two zones, reserved for training.
    for name, zone in [("h100-a-1", ZONES[0]), ("h100-a-2", ZONES[0]), ("h100-b-1", ZONES[1])]:
        node(
            name,
            zone,
            "192",
            "2000Gi",
            instance="p5.48xlarge",
            labels={
                "pool": "h100",
                **gfd_labels(
                    "NVIDIA-H100-80GB-HBM3",
                    GPU_FAULTS.get(name, (8, 8))[1],
                    81559,
                    "hopper",
                    (9, 0),
                ),
                # an NVLink Switch System joins nodes into NVLink domains (cliques)
                "nvidia.com/gpu.clique": f"{NVLINK_CLUSTER}.{1 if zone == ZONES[0] else 2}",
            },
            resources={"nvidia.com/gpu": str(GPU_FAULTS.get(name, (8, 8))[0])},
            taints=[dict(GPU_TAINT), {"key": "pool", "value": "h100", "effect": "NoSchedule"}],
            images=[{"names": ["nvcr.io/nvidia/pytorch:24.10-py3"], "sizeBytes": 9_800_000_000}],
        )
    h100_tol = [
        GPU_TOLERATION,
        {"key": "pool", "operator": "Equal", "value": "h100", "effect": "NoSchedule"},
    ]
    h100_aff = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {
                                "key": "nvidia.com/gpu.product",
                                "operator": "In",
                                "values": ["NVIDIA-H100-80GB-HBM3"],
                            }
                        ]
                    }
                ]
            }
        }
    }

    # --- running workloads ---------------------------------------------------
    # Inference replicas, 4 GPUs each, on the A100 pool, protected by a PDB.
    a100 = [f"a100-{z[-1]}-{i}" for z in ZONES for i in (1, 2)]
    for i, n in enumerate(a100):
        pod(
            "ml-inference",
            f"llm-serve-{i}",
            node_name=n,
            cpu="16",
            memory="128Gi",
            gpus=4,
            labels={"app": "llm-serve"},
            priority_class="inference-critical",
            minute=i,
            image="nvcr.io/nvidia/pytorch:24.10-py3",
        )
    pdb("ml-inference", "llm-serve", {"app": "llm-serve"}, allowed=1, min_available=5)
    # Preemptible sweeps fill the other half of four A100 nodes.
    for i, n in enumerate(a100[:4]):
        pod(
            "ml-training",
            f"sweep-{i}",
            node_name=n,
            cpu="8",
            memory="64Gi",
            gpus=4,
            labels={"job": "sweep", "team": "research"},
            priority_class="training-low",
            minute=20 + i,
            image="nvcr.io/nvidia/pytorch:24.10-py3",
        )
    # A low-priority experiment holds a whole H100 node; a high-priority run holds another.
    pod(
        "ml-training",
        "experiment-7-worker-0",
        node_name="h100-a-1",
        cpu="64",
        memory="512Gi",
        gpus=8,
        labels={"job": "experiment-7"},
        priority_class="training-low",
        minute=30,
        tolerations=h100_tol,
    )
    pod(
        "ml-training",
        "gpt-pretrain-worker-0",
        node_name="h100-a-2",
        cpu="64",
        memory="512Gi",
        gpus=8,
        labels={"job": "gpt-pretrain"},
        priority_class="training-high",
        minute=10,
        tolerations=h100_tol,
    )
    pod(
        "ml-training",
        "gpt-pretrain-worker-1",
        node_name="h100-b-1",
        cpu="64",
        memory="512Gi",
        gpus=6,
        labels={"job": "gpt-pretrain"},
        priority_class="training-high",
        minute=10,
        tolerations=h100_tol,
    )
    pdb("ml-training", "gpt-pretrain", {"job": "gpt-pretrain"}, allowed=0, min_available=2)
    # CPU services: redis with anti-affinity, web front ends, data pipelines.
    for i, n in enumerate(["cpu-a-1", "cpu-b-1"]):
        pod(
            "data",
            f"redis-{i}",
            node_name=n,
            cpu="2",
            memory="8Gi",
            labels={"app": "redis"},
            minute=i,
        )
    for i in range(6):
        zone = "a" if i < 4 else "b"
        pod(
            "web",
            f"frontend-{i}",
            node_name=f"cpu-{zone}-{1 + i % 2}",
            cpu="2",
            memory="4Gi",
            labels={"app": "frontend"},
            minute=40 + i,
        )
    for i in range(3):
        pod(
            "data",
            f"etl-{i}",
            node_name=f"cpu-c-{1 + i % 2}",
            cpu="12",
            memory="48Gi",
            labels={"app": "etl"},
            minute=50 + i,
        )

    # --- pending pods ----------------------------------------------------------
    # Fits: more frontend and a small GPU notebook.
    pod("web", "frontend-6", cpu="2", memory="4Gi", labels={"app": "frontend"}, minute=90)
    pod(
        "ml-training",
        "notebook-alice",
        cpu="4",
        memory="32Gi",
        gpus=1,
        labels={"app": "notebook"},
        minute=91,
    )
    # Needs a whole H100 node at high priority: preempts the low-priority experiment.
    pod(
        "ml-training",
        "gpt-finetune-worker-0",
        cpu="64",
        memory="512Gi",
        gpus=8,
        labels={"job": "gpt-finetune"},
        priority_class="training-high",
        minute=92,
        tolerations=h100_tol,
        affinity=h100_aff,
    )
    # Asks for 16 GPUs in one pod: no node has that many, preemption cannot help.
    pod(
        "ml-training",
        "bad-request-16gpu",
        cpu="8",
        memory="64Gi",
        gpus=16,
        labels={"job": "oops"},
        minute=93,
        priority_class="training-high",
    )
    # Requests a GPU but forgot the toleration.
    objects_before = len(objects)
    pod(
        "ml-inference",
        "no-toleration-gpu",
        cpu="2",
        memory="8Gi",
        gpus=1,
        labels={"app": "embedder"},
        minute=94,
    )
    objects[objects_before]["spec"].pop("tolerations")
    # Pinned to a zone that does not exist.
    pod(
        "data",
        "zone-d-cache",
        cpu="2",
        memory="8Gi",
        labels={"app": "cache"},
        minute=95,
        nodeSelector={"topology.kubernetes.io/zone": "us-east-1d"},
    )
    # Third redis replica: anti-affinity keeps it off nodes with redis.
    pod(
        "data",
        "redis-2",
        cpu="2",
        memory="8Gi",
        labels={"app": "redis"},
        minute=96,
        affinity={
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": {"app": "redis"}},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        },
    )
    # Spread evenly across zones (frontends are skewed to zone a).
    pod(
        "web",
        "frontend-7",
        cpu="2",
        memory="4Gi",
        labels={"app": "frontend"},
        minute=97,
        topologySpreadConstraints=[
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "frontend"}},
            }
        ],
    )
    # Too much memory for any node.
    pod("batch", "giant-sort", cpu="8", memory="4Ti", labels={"app": "sort"}, minute=98)
    # Batch that may not preempt, needing a whole A100 node.
    pod(
        "batch",
        "render-farm-0",
        cpu="32",
        memory="256Gi",
        gpus=8,
        labels={"app": "render"},
        minute=99,
        priority_class="batch-no-preempt",
    )
    # Held back by a scheduling gate (e.g. a quota controller).
    pod(
        "ml-training",
        "queued-job-0",
        cpu="4",
        memory="16Gi",
        gpus=2,
        labels={"job": "queued"},
        minute=100,
        schedulingGates=[{"name": "kueue.x-k8s.io/admission"}],
    )
    # Handled by another scheduler.
    pod(
        "batch",
        "volcano-job-0",
        cpu="2",
        memory="4Gi",
        labels={"app": "volcano"},
        minute=101,
        schedulerName="volcano",
    )


# --- gangs (the native workload API, scheduling.k8s.io/v1alpha2) -------------------
# Three training jobs that start all of their workers or none. kube-scheduler
# schedules them as groups only with its alpha gates on (`make run` turns them
# on, docs/gangs.md says why); without them they are ordinary pods.  They run
# at a negative priority, as opportunistic research jobs do, so every other
# pending pod (and any dry-run workload) is queued before them and keeps the
# outcome it has without them.

GANG_CLASS = "research-opportunistic"


def gang(
    name: str,
    workers: int,
    *,
    cpu: str,
    memory: str,
    gpus: int = 0,
    minute: int,
    topology_key: str | None = None,
) -> None:
    """A Workload, the PodGroup a controller stamps from it, and its pending workers."""
    template: dict[str, Any] = {
        "name": "workers",
        "schedulingPolicy": {"gang": {"minCount": workers}},
    }
    if topology_key:
        template["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    objects.append(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "Workload",
            "metadata": {"name": name, "namespace": "ml-training", "creationTimestamp": ts(minute)},
            "spec": {"podGroupTemplates": [template]},
        }
    )
    spec: dict[str, Any] = {
        "podGroupTemplateRef": {
            "workload": {"workloadName": name, "podGroupTemplateName": "workers"}
        },
        "schedulingPolicy": template["schedulingPolicy"],
    }
    if topology_key:
        spec["schedulingConstraints"] = template["schedulingConstraints"]
    objects.append(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ml-training", "creationTimestamp": ts(minute)},
            "spec": spec,
        }
    )
    for i in range(workers):
        pod(
            "ml-training",
            f"{name}-worker-{i}",
            cpu=cpu,
            memory=memory,
            gpus=gpus,
            labels={"job": name},
            priority_class=GANG_CLASS,
            minute=minute,
            image="nvcr.io/nvidia/pytorch:24.10-py3",
            schedulingGroup={"podGroupName": name},
        )


def gangs() -> None:
    priority_class(GANG_CLASS, -100, "Research jobs that wait for free capacity; never preempt.")
    # fits: two 1-GPU workers on the A100s of zone c
    gang("bert-finetune", 2, cpu="4", memory="32Gi", gpus=1, minute=110)
    # blocked by GPUs: four workers of a whole 8-GPU node each; no node has eight free
    gang("llama-pretrain", 4, cpu="48", memory="512Gi", gpus=8, minute=111)
    # blocked by topology: four 16-CPU workers that must share a zone; the CPU pool
    # has room for seven, but no zone for more than three
    gang(
        "xgb-train",
        4,
        cpu="16",
        memory="32Gi",
        minute=112,
        topology_key="topology.kubernetes.io/zone",
    )


# --- storage (VolumeBinding, VolumeZone, NodeVolumeLimits) ----------------------


def storage() -> None:
    """Storage classes, zonal PVs, claims, CSINode limits and two pending pods with claims."""
    ebs = "ebs.csi.aws.com"
    objects.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "gp3"},
            "provisioner": ebs,
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowedTopologies": [
                {
                    "matchLabelExpressions": [
                        {"key": "topology.kubernetes.io/zone", "values": ZONES[:2]}
                    ]
                }
            ],
        }
    )
    objects.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "local-nvme"},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
        }
    )
    # every CPU node runs the EBS CSI driver, which attaches at most 25 volumes
    for zone in ZONES:
        for i in range(1, 4):
            name = f"cpu-{zone[-1]}-{i}"
            objects.append(
                {
                    "apiVersion": "storage.k8s.io/v1",
                    "kind": "CSINode",
                    "metadata": {"name": name},
                    "spec": {
                        "drivers": [
                            {
                                "name": ebs,
                                "nodeID": f"i-{name}",
                                "topologyKeys": ["topology.kubernetes.io/zone"],
                                "allocatable": {"count": 25},
                            }
                        ]
                    },
                }
            )

    def pv(name: str, cls: str, size: str, zone: str, claim: tuple[str, str] | None) -> None:
        spec: dict[str, Any] = {
            "capacity": {"storage": size},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": cls,
            "persistentVolumeReclaimPolicy": "Delete",
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "topology.kubernetes.io/zone",
                                    "operator": "In",
                                    "values": [zone],
                                }
                            ]
                        }
                    ]
                }
            },
        }
        if cls == "gp3":
            spec["csi"] = {"driver": ebs, "volumeHandle": f"vol-{name}", "fsType": "ext4"}
        else:
            spec["local"] = {"path": f"/mnt/nvme/{name}"}
        if claim:
            spec["claimRef"] = {
                "kind": "PersistentVolumeClaim",
                "namespace": claim[0],
                "name": claim[1],
            }
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
                "spec": spec,
                "status": {"phase": "Bound" if claim else "Available"},
            }
        )

    def pvc(ns: str, name: str, cls: str, size: str, volume: str = "") -> None:
        meta: dict[str, Any] = {"name": name, "namespace": ns, "uid": f"uid-{ns}-{name}"}
        spec: dict[str, Any] = {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": cls,
            "resources": {"requests": {"storage": size}},
            "volumeMode": "Filesystem",
        }
        status = {"phase": "Pending"}
        if volume:
            meta["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
            spec["volumeName"] = volume
            status = {"phase": "Bound", "capacity": {"storage": size}}
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": meta,
                "spec": spec,
                "status": status,
            }
        )

    def claim_volume(claim: str) -> list[dict[str, Any]]:
        return [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]

    # a running database on an EBS volume in zone b
    pv("pvc-postgres-0", "gp3", "200Gi", ZONES[1], ("data", "postgres-0"))
    pvc("data", "postgres-0", "gp3", "200Gi", volume="pvc-postgres-0")
    pod(
        "data",
        "postgres-0",
        node_name="cpu-b-1",
        cpu="4",
        memory="16Gi",
        labels={"app": "postgres"},
        minute=5,
        volumes=claim_volume("postgres-0"),
    )
    # local NVMe dataset caches: one per zone, 1.5Ti each
    for zone in ZONES:
        pv(f"nvme-cache-{zone[-1]}", "local-nvme", "1536Gi", zone, None)
    # pending: binds the zone-a cache (WaitForFirstConsumer picks its zone)
    pvc("ml-training", "dataset-cache-0", "local-nvme", "1Ti")
    pod(
        "ml-training",
        "dataset-prep-0",
        cpu="8",
        memory="32Gi",
        labels={"app": "dataset-prep"},
        priority_class="training-low",
        minute=110,
        volumes=claim_volume("dataset-cache-0"),
        nodeSelector={"topology.kubernetes.io/zone": ZONES[0]},
    )
    # pending: asks for more local NVMe than any cache volume has
    pvc("ml-training", "dataset-cache-huge", "local-nvme", "4Ti")
    pod(
        "ml-training",
        "dataset-prep-huge",
        cpu="8",
        memory="32Gi",
        labels={"app": "dataset-prep"},
        priority_class="training-low",
        minute=111,
        volumes=claim_volume("dataset-cache-huge"),
        nodeSelector={"pool": "cpu"},
    )
    # pending: a replica pinned to zone a whose claim's volume lives in zone b
    pod(
        "data",
        "postgres-0-debug",
        cpu="1",
        memory="2Gi",
        labels={"app": "postgres-debug"},
        minute=112,
        volumes=claim_volume("postgres-0"),
        nodeSelector={"pool": "cpu", "topology.kubernetes.io/zone": ZONES[0]},
    )


# --- DRA GPU pool (dynamic resource allocation) ------------------------------------
DRA_DRIVER = "gpu.nvidia.com"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"


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


def dra() -> None:
    """A DRA GPU pool: DeviceClasses, ResourceSlices on two nodes, claims and pods.

    ``dra-gpu-1`` has eight L40S GPUs; ``dra-gpu-2`` eight A30s of which GPU 6
    is split into two MIG partitions and GPU 7 is unhealthy, so the driver does
    not publish it (GFD still counts eight).  One pending pod gets a device
    through a claim made from a ResourceClaimTemplate; another asks for four
    40Gi+ GPUs where only one node has such GPUs and most of them are taken:
    ``cannot allocate all claims``.  A claim still holds two A30s for a pod
    that no longer exists.
    """
    products = {
        "dra-gpu-1": ("NVIDIA L40S", "Ada Lovelace", "46068Mi", 46068, (8, 9)),
        "dra-gpu-2": ("NVIDIA A30", "Ampere", "24Gi", 24576, (8, 0)),
    }
    for name, (product, arch, _memory, mib, compute) in products.items():
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
    for name, (product, arch, memory, _mib, _compute) in products.items():
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
    big_gpu = f'device.capacity["{DRA_DRIVER}"].memory.compareTo(quantity("40Gi")) >= 0'

    def claim_spec(count: int) -> dict[str, Any]:
        request = {
            "name": "gpu",
            "exactly": {
                "deviceClassName": DRA_DRIVER,
                "allocationMode": "ExactCount",
                "count": count,
                "selectors": [{"cel": {"expression": big_gpu}}],
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

    # running: a visualisation stream holds six of the L40S GPUs through an allocated claim
    held = claim("ml-inference", "viz-stream-gpus", 6)
    held["status"] = {
        "allocation": {
            "devices": {
                "results": [
                    {
                        "request": "gpu",
                        "driver": DRA_DRIVER,
                        "pool": "dra-gpu-1",
                        "device": f"gpu-{i}",
                    }
                    for i in range(6)
                ]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["dra-gpu-1"]}
                        ]
                    }
                ]
            },
        },
        "reservedFor": [
            {"resource": "pods", "name": "viz-stream-0", "uid": "uid-ml-inference-viz-stream-0"}
        ],
    }
    objects.append(held)
    pod(
        "ml-inference",
        "viz-stream-0",
        node_name="dra-gpu-1",
        cpu="8",
        memory="64Gi",
        labels={"app": "viz-stream"},
        minute=20,
        resourceClaims=[{"name": "gpu", "resourceClaimName": "viz-stream-gpus"}],
        nodeSelector={"pool": "dra-gpu"},
        tolerations=[GPU_TOLERATION],
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
    objects.append(
        claim(
            "ml-inference",
            "render-preview-0-gpu-7xk2p",
            1,
            ownerReferences=[
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "name": "render-preview-0",
                    "uid": "uid-ml-inference-render-preview-0",
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
            annotations={"resource.kubernetes.io/pod-claim-name": "gpu"},
        )
    )
    pod(
        "ml-inference",
        "render-preview-0",
        cpu="4",
        memory="16Gi",
        labels={"app": "render-preview"},
        minute=120,
        resourceClaims=[{"name": "gpu", "resourceClaimTemplateName": "single-big-gpu"}],
        nodeSelector={"pool": "dra-gpu"},
        tolerations=[GPU_TOLERATION],
    )
    objects[-1]["status"]["resourceClaimStatuses"] = [
        {"name": "gpu", "resourceClaimName": "render-preview-0-gpu-7xk2p"}
    ]
    # pending: four 40Gi+ GPUs; only the L40S node has them and just two are free
    objects.append(claim("ml-training", "finetune-gpus", 4))
    pod(
        "ml-training",
        "finetune-l40s-0",
        cpu="8",
        memory="32Gi",
        labels={"app": "finetune"},
        minute=121,
        resourceClaims=[{"name": "gpu", "resourceClaimName": "finetune-gpus"}],
        nodeSelector={"pool": "dra-gpu"},
        tolerations=[GPU_TOLERATION],
    )
    # allocated to a pod that no longer exists (deleted while its node was unreachable)
    orphan = claim("batch", "transcode-3-gpus", 2)
    orphan["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = []
    orphan["status"] = {
        "allocation": {
            "devices": {
                "results": [
                    {
                        "request": "gpu",
                        "driver": DRA_DRIVER,
                        "pool": "dra-gpu-2",
                        "device": f"gpu-{i}",
                    }
                    for i in (4, 5)
                ]
            },
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {
                        "matchFields": [
                            {"key": "metadata.name", "operator": "In", "values": ["dra-gpu-2"]}
                        ]
                    }
                ]
            },
        },
        "reservedFor": [
            {"resource": "pods", "name": "transcode-3", "uid": "uid-batch-transcode-3"}
        ],
    }
    objects.append(orphan)


# --- NodeResourceTopology (what the NFD topology updater publishes per GPU node) --------
NRT_POLICIES = {
    # pool → (topologyManagerPolicy, topologyManagerScope, legacy topologyPolicies value)
    "a100": ("single-numa-node", "container", "SingleNUMANodeContainerLevel"),
    "h100": ("best-effort", "pod", "BestEffortPodLevel"),
    "dra-gpu": ("single-numa-node", "pod", "SingleNUMANodePodLevel"),
}


def topologies() -> None:
    """Two NUMA zones per GPU node; device-plugin GPUs split between them.

    Running GPU pods hold their devices on the first zone with room, as the
    kubelet's topology manager aligned them; CPUs and memory of the running
    (Burstable) pods come from the shared pool, so zones show them available.
    """
    nodes = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Node"}
    used: dict[str, list[int]] = {}
    for o in objects:
        if o["kind"] != "Pod" or not o["spec"].get("nodeName"):
            continue
        gpus = int(o["spec"]["containers"][0]["resources"]["requests"].get("nvidia.com/gpu", 0))
        if gpus:
            used.setdefault(o["spec"]["nodeName"], []).append(gpus)
    for name, n in nodes.items():
        pool = n["metadata"]["labels"].get("pool")
        if pool not in NRT_POLICIES:
            continue
        policy, scope, legacy = NRT_POLICIES[pool]
        alloc = n["status"]["allocatable"]
        cpu = int(alloc["cpu"]) // 2
        mem = f"{int(alloc['memory'].removesuffix('Gi')) // 2}Gi"
        total_gpus = int(alloc.get("nvidia.com/gpu", 0))
        zone_gpus = [min(4, total_gpus), max(0, total_gpus - 4)]
        free = list(zone_gpus)
        for want in used.get(name, []):
            for z in (0, 1):  # the topology manager's preferred (lowest) NUMA node first
                if free[z] >= want:
                    free[z] -= want
                    break
            else:  # spread over both zones (pod larger than one zone, or best-effort)
                take = min(free[0], want)
                free[0] -= take
                free[1] = max(0, free[1] - (want - take))
        zones = []
        for z in (0, 1):
            resources = [
                {
                    "name": "cpu",
                    "capacity": str(cpu),
                    "allocatable": str(cpu - (1 if z == 0 else 0)),
                    "available": str(cpu - (1 if z == 0 else 0)),
                },
                {"name": "memory", "capacity": mem, "allocatable": mem, "available": mem},
            ]
            if total_gpus:
                resources.append(
                    {
                        "name": "nvidia.com/gpu",
                        "capacity": str(zone_gpus[z]),
                        "allocatable": str(zone_gpus[z]),
                        "available": str(free[z]),
                    }
                )
            zones.append(
                {
                    "name": f"node-{z}",
                    "type": "Node",
                    "costs": [
                        {"name": "node-0", "value": 10 if z == 0 else 21},
                        {"name": "node-1", "value": 21 if z == 0 else 10},
                    ],
                    "resources": resources,
                }
            )
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
                    {
                        "name": "nodeTopologyPodsFingerprint",
                        "value": f"pfp0v001{sum(map(ord, name)) * 2654435761 % 16**16:016x}",
                    },
                ],
                "zones": zones,
            }
        )


def main() -> None:
    build()
    storage()
    dra()
    topologies()
    gangs()
    doc = {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": objects,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    header = "# Generated by scripts/make_demo_snapshot.py; edit that script, not this file.\n"
    OUT.write_text(header + yaml.safe_dump(doc, sort_keys=False, width=120))
    print(f"wrote {OUT} ({len(objects)} objects)")


if __name__ == "__main__":
    main()
