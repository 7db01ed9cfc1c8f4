"""Builders for storage objects and a minimal handle for the volume plugin tests.

Shapes follow upstream's test helpers (``makePV``, ``makePVC``, ``makeNode``
in ``volumebinding/test_utils.go``): plain dicts as the API returns them.
"""

from __future__ import annotations

import random
from typing import Any

from scheduler_engine.cluster import build_cluster
from scheduler_engine.framework.snapshot import Snapshot

ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
HOSTNAME = "kubernetes.io/hostname"


def storage_class(
    name: str,
    mode: str | None = "WaitForFirstConsumer",
    provisioner: str = "kubernetes.io/no-provisioner",
    topologies: list[dict[str, list[str]]] | None = None,
) -> dict[str, Any]:
    o: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": provisioner,
    }
    if mode:
        o["volumeBindingMode"] = mode
    if topologies is not None:
        o["allowedTopologies"] = [
            {"matchLabelExpressions": [{"key": k, "values": v} for k, v in t.items()]}
            for t in topologies
        ]
    return o


def pv(
    name: str,
    sc: str = "",
    *,
    capacity: str | None = None,
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    phase: str | None = "Available",
    affinity: dict[str, list[str]] | None = None,
    labels: dict[str, str] | None = None,
    claim: tuple[str, str] | None = None,
    csi: tuple[str, str] | None = None,
    source: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"storageClassName": sc, "accessModes": list(modes)}
    if capacity:
        spec["capacity"] = {"storage": capacity}
    if affinity is not None:
        spec["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": k, "operator": "In", "values": v} for k, v in affinity.items()
                        ]
                    }
                ]
            }
        }
    if claim is not None:
        spec["claimRef"] = {"namespace": claim[0], "name": claim[1]}
    if csi is not None:
        spec["csi"] = {"driver": csi[0], "volumeHandle": csi[1]}
    if source is not None:
        spec.update(source)
    o: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": spec,
    }
    if phase:
        o["status"] = {"phase": phase}
    return o


def pvc(
    name: str,
    sc: str | None = "",
    *,
    ns: str = "default",
    volume: str = "",
    bound: bool = True,
    request: str | None = None,
    modes: tuple[str, ...] = ("ReadWriteOnce",),
    phase: str | None = None,
    annotations: dict[str, str] | None = None,
    owner_uid: str | None = None,
    deleting: bool = False,
) -> dict[str, Any]:
    """A claim; with ``volume`` it is fully bound unless ``bound=False``."""
    meta: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "uid": f"uid-{name}",
        "annotations": dict(annotations or {}),
    }
    spec: dict[str, Any] = {"accessModes": list(modes)}
    if sc is not None:
        spec["storageClassName"] = sc
    if request:
        spec["resources"] = {"requests": {"storage": request}}
    status: dict[str, Any] = {"phase": phase or "Pending"}
    if volume:
        spec["volumeName"] = volume
        if bound:
            meta["annotations"]["pv.kubernetes.io/bind-completed"] = "yes"
            status = {"phase": phase or "Bound"}
    if owner_uid:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": owner_uid, "controller": True}
        ]
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": meta,
        "spec": spec,
        "status": status,
    }


def csinode(name: str, limits: dict[str, int | None], topology_keys: list[str] | None = None):
    drivers = []
    for d, n in limits.items():
        e: dict[str, Any] = {"name": d, "nodeID": name, "topologyKeys": topology_keys or []}
        if n is not None:
            e["allocatable"] = {"count": n}
        drivers.append(e)
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {"name": name},
        "spec": {"drivers": drivers},
    }


class FakeHandle:
    """Enough of the framework handle for one plugin: cluster and snapshot."""

    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self._cluster = build_cluster(objects)
        self._snapshot = Snapshot(
            self._cluster.nodes, self._cluster.running_pods, self._cluster.namespaces
        )
        self.rng = random.Random(0)

    @property
    def cluster(self):
        return self._cluster

    def snapshot(self) -> Snapshot:
        return self._snapshot
