"""Volume and DRA kinds are mirrored like the others; a cluster without DRA is not an error."""

from __future__ import annotations

import logging
import time

from dashboard.cluster.kinds import KINDS_BY_KIND
from dashboard.cluster.models import Cluster, ExtraObject, Pod
from tests.support import objects as b
from tests.support.mirror import wait_until, wait_watching

DRA_KEYS = ["deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"]


def pv(name: str, claim: str = "") -> dict:
    obj = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": "100Gi"},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "local",
            "local": {"path": "/mnt/disk"},
        },
        "status": {"phase": "Available"},
    }
    if claim:
        obj["spec"]["claimRef"] = {"namespace": "default", "name": claim}
        obj["status"]["phase"] = "Bound"
    return obj


def pvc(name: str, volume: str = "") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "local",
            "resources": {"requests": {"storage": "10Gi"}},
            **({"volumeName": volume} if volume else {}),
        },
        "status": {"phase": "Bound" if volume else "Pending"},
    }


def device_class(name: str) -> dict:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
    }


def _stored(cluster: Cluster, kind: str) -> dict[tuple[str, str], dict]:
    rows = KINDS_BY_KIND[kind].rows().filter(cluster=cluster)
    return {(r.namespace, r.name): r.obj for r in rows}


def test_it_mirrors_and_deletes_claims_and_volumes(kube, live_cluster, start_mirror):
    kube.apply(pv("pv-a"))
    kube.apply(pvc("data"))
    kube.apply(b.pod("a"))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    assert set(_stored(live_cluster, "PersistentVolume")) == {("", "pv-a")}
    assert _stored(live_cluster, "PersistentVolumeClaim")[("default", "data")]["kind"] == (
        "PersistentVolumeClaim"
    )

    # bound: both objects change; a second volume appears
    kube.apply(pvc("data", volume="pv-a"))
    kube.apply(pv("pv-a", claim="data"))
    kube.apply(pv("pv-b"))
    wait_until(
        lambda: (
            _stored(live_cluster, "PersistentVolume").get(("", "pv-a"), {}).get("status")
            == {"phase": "Bound"}
            and ("", "pv-b") in _stored(live_cluster, "PersistentVolume")
        ),
        what="PV bound, pv-b added",
    )
    claim = _stored(live_cluster, "PersistentVolumeClaim")[("default", "data")]
    assert claim["spec"]["volumeName"] == "pv-a"

    kube.delete("PersistentVolumeClaim", "data", "default")
    kube.delete("PersistentVolume", "pv-b")
    wait_until(
        lambda: (
            not _stored(live_cluster, "PersistentVolumeClaim")
            and set(_stored(live_cluster, "PersistentVolume")) == {("", "pv-a")}
        ),
        what="PVC and pv-b deleted",
    )
    # the shared table holds exactly the one volume; other kinds are untouched
    assert list(ExtraObject.objects.filter(cluster=live_cluster).values_list("kind", "name")) == [
        ("PersistentVolume", "pv-a")
    ]
    assert Pod.objects.filter(cluster=live_cluster).count() == 1
    health = Cluster.objects.get(pk=live_cluster.pk)
    assert health.unavailable_kinds == [] and health.last_error == ""


def test_a_cluster_without_dra_is_watching_with_those_kinds_unavailable(
    kube, live_cluster, start_mirror, caplog
):
    kube.disable_group("resource.k8s.io")
    kube.apply(b.node("n1"))
    kube.apply(pvc("data"))
    caplog.set_level(logging.INFO, logger="dashboard.cluster.mirror")
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    wait_until(
        lambda: Cluster.objects.get(pk=live_cluster.pk).unavailable_kinds == DRA_KEYS,
        what="DRA kinds marked unavailable",
    )
    cluster = Cluster.objects.get(pk=live_cluster.pk)
    assert (cluster.mirror_status, cluster.connected, cluster.last_error) == (
        Cluster.MirrorStatus.WATCHING,
        True,
        "",
    )
    assert ("default", "data") in _stored(live_cluster, "PersistentVolumeClaim")

    # no retry loop: one list per DRA kind, then quiet (the next try is a resync away)
    time.sleep(1.0)
    dra_requests = [r for r in kube.requests if "/apis/resource.k8s.io/" in r]
    assert len(dra_requests) == len(DRA_KEYS), dra_requests
    said = [r.getMessage() for r in caplog.records if "not served" in r.getMessage()]
    assert len(said) == len(DRA_KEYS)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]

    # the rest is mirrored as usual
    kube.apply(b.pod("late"))
    wait_until(lambda: Pod.objects.filter(cluster=live_cluster, name="late").exists())


def test_dra_objects_go_when_the_group_stops_being_served(kube, live_cluster, start_mirror):
    kube.apply(device_class("gpu.example.com"))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    # "watching" is saved once every kind is listed; the writer may still hold the batch
    wait_until(
        lambda: set(_stored(live_cluster, "DeviceClass")) == {("", "gpu.example.com")},
        what="the device class stored",
    )

    kube.disable_group("resource.k8s.io")  # cuts the open watches; the relists get 404
    wait_until(
        lambda: (
            Cluster.objects.get(pk=live_cluster.pk).unavailable_kinds == DRA_KEYS
            and not _stored(live_cluster, "DeviceClass")
        ),
        what="DRA kinds unavailable and their rows removed",
    )
    wait_watching(live_cluster)
    assert Cluster.objects.get(pk=live_cluster.pk).last_error == ""
