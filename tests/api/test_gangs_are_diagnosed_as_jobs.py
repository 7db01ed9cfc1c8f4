"""GET clusters/{id}/gangs/ and one gang: the engine's diagnosis of pending pod groups."""

from __future__ import annotations

import pytest
from django.test import override_settings

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.explain import live
from tests.support import objects

GATES = "GenericWorkload=true,GangScheduling=true"


def _zone_node(name: str, zone: str, gpus: int) -> dict:
    n = objects.node(name, gpus=gpus)
    n["metadata"]["labels"]["topology.kubernetes.io/zone"] = zone
    return n


def _member(name: str, group: str, gpus: int) -> dict:
    p = objects.pod(name, namespace="train", gpus=gpus)
    p["spec"]["schedulingGroup"] = {"podGroupName": group}
    return p


def _group(name: str, min_count: int) -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "train"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


@pytest.fixture
def gang_cluster(db):
    live.forget()
    cluster = ensure_snapshot_cluster("gangs", "test")
    objs = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "train"}},
        _zone_node("a1", "a", 8),
        _zone_node("b1", "b", 8),
        _group("fits", 2),
        *(_member(f"fits-{i}", "fits", 8) for i in range(2)),
        _group("big", 4),
        *(_member(f"big-{i}", "big", 8) for i in range(4)),
    ]
    result = import_objects(cluster, objs)
    assert not result.skipped, result.skipped
    yield cluster
    live.forget()


@override_settings(SCHEDLAB_FEATURE_GATES=GATES)
def test_pending_gangs_list_what_fits_and_what_blocks(viewer, gang_cluster):
    live.active_config.cache_clear()
    r = viewer.get(f"/api/v1/clusters/{gang_cluster.pk}/gangs/")
    assert r.status_code == 200, r.content
    by_name = {g["name"]: g for g in r.json()}
    assert set(by_name) == {"train/fits", "train/big"}
    fits, big = by_name["train/fits"], by_name["train/big"]
    assert fits["status"] == "Scheduled" and fits["placed"] == fits["scheduled"] == 2
    # queue order decides which gang takes the two nodes: whichever did, the other is
    # blocked whole (never partly placed) and counted by reason
    assert big["status"] == "Unschedulable" and big["scheduled"] == 0
    assert big["minMember"] == 4 and sum(big["reasons"].values()) == 4 - big["placed"]
    assert "Insufficient nvidia.com/gpu" in big["reasons"]
    assert big["summary"].startswith(f"{big['placed']} of 4 fit")
    one = viewer.get(f"/api/v1/clusters/{gang_cluster.pk}/gangs/train/big/")
    assert one.status_code == 200 and one.json() == big
    native = viewer.get(
        f"/api/v1/clusters/{gang_cluster.pk}/gangs/train/big/?api=scheduling.k8s.io/v1alpha2"
    )
    assert native.json() == big


def test_unknown_gangs_and_bad_parameters(viewer, gang_cluster):
    live.active_config.cache_clear()
    base = f"/api/v1/clusters/{gang_cluster.pk}/gangs"
    # without the gates native groups are not gangs: the engine places pods one by one
    assert viewer.get(f"{base}/").json() == []
    assert viewer.get(f"{base}/train/big/").status_code == 404
    bad = viewer.get(f"{base}/train/big/?api=v1")
    assert bad.status_code == 400 and "api" in bad.json()


def test_gangs_need_a_login(client, gang_cluster):
    assert client.get(f"/api/v1/clusters/{gang_cluster.pk}/gangs/").status_code in (401, 403)
