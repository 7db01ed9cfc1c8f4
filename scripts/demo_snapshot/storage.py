"""Storage for VolumeBinding, VolumeZone and NodeVolumeLimits.

Storage classes, zonal PersistentVolumes, claims, CSINode attach limits, a
running database on a claim and pending pods whose claims decide where they go.
"""

from __future__ import annotations

from typing import Any

from .objects import ZONES, match_in, objects, pod

EBS = "ebs.csi.aws.com"


def build() -> None:
    storage_classes()
    # every CPU node runs the EBS CSI driver, which attaches at most 25 volumes
    for zone in ZONES:
        for i in range(1, 4):
            csi_node(f"cpu-{zone[-1]}-{i}")
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
    pending()


def pending() -> None:
    """Pods whose claims are unbound, too large, or bound in another zone."""
    # binds the zone-a cache (WaitForFirstConsumer picks its zone)
    pvc("ml-training", "dataset-cache-0", "local-nvme", "1Ti")
    dataset_prep(
        "dataset-prep-0", 110, "dataset-cache-0", {"topology.kubernetes.io/zone": ZONES[0]}
    )
    # asks for more local NVMe than any cache volume has
    pvc("ml-training", "dataset-cache-huge", "local-nvme", "4Ti")
    dataset_prep("dataset-prep-huge", 111, "dataset-cache-huge", {"pool": "cpu"})
    # a replica pinned to zone a whose claim's volume lives in zone b
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


def dataset_prep(name: str, minute: int, claim: str, selector: dict[str, str]) -> None:
    pod(
        "ml-training",
        name,
        cpu="8",
        memory="32Gi",
        labels={"app": "dataset-prep"},
        priority_class="training-low",
        minute=minute,
        volumes=claim_volume(claim),
        nodeSelector=selector,
    )


def storage_classes() -> None:
    zones = [
        {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ZONES[:2]}]}
    ]
    objects.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "gp3"},
            "provisioner": EBS,
            "volumeBindingMode": "WaitForFirstConsumer",
            "allowedTopologies": zones,
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


def csi_node(name: str) -> None:
    driver = {
        "name": EBS,
        "nodeID": f"i-{name}",
        "topologyKeys": ["topology.kubernetes.io/zone"],
        "allocatable": {"count": 25},
    }
    objects.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {"name": name},
            "spec": {"drivers": [driver]},
        }
    )


def pv(name: str, cls: str, size: str, zone: str, claim: tuple[str, str] | None) -> None:
    spec: dict[str, Any] = {
        "capacity": {"storage": size},
        "accessModes": ["ReadWriteOnce"],
        "storageClassName": cls,
        "persistentVolumeReclaimPolicy": "Delete",
        "nodeAffinity": {"required": match_in("topology.kubernetes.io/zone", [zone])},
    }
    if cls == "gp3":
        spec["csi"] = {"driver": EBS, "volumeHandle": f"vol-{name}", "fsType": "ext4"}
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
    status: dict[str, Any] = {"phase": "Pending"}
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
