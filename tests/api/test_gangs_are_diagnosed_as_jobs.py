"""GET clusters/{id}/gangs/ and one gang: the engine's diagnosis of pending pod groups."""

from __future__ import annotations

import pytest
from django.test import override_settings

from dashboard.explain import gangs, live
from tests.support.gang_cluster import GATES, make_gang_cluster


@pytest.fixture
def gangs_cluster(db):
    live.forget()
    yield make_gang_cluster()
    live.forget()


@override_settings(SCHEDLAB_FEATURE_GATES=GATES)
def test_pending_gangs_list_what_fits_and_what_blocks(viewer, gangs_cluster):
    r = viewer.get(f"/api/v1/clusters/{gangs_cluster.pk}/gangs/")
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
    one = viewer.get(f"/api/v1/clusters/{gangs_cluster.pk}/gangs/train/big/")
    assert one.status_code == 200 and one.json() == big
    native = viewer.get(
        f"/api/v1/clusters/{gangs_cluster.pk}/gangs/train/big/?api=scheduling.k8s.io/v1alpha2"
    )
    assert native.json() == big


def test_unknown_gangs_and_bad_parameters(viewer, gangs_cluster):
    base = f"/api/v1/clusters/{gangs_cluster.pk}/gangs"
    # without the gates native groups are not gangs: the engine places pods one by one
    assert viewer.get(f"{base}/").json() == []
    assert viewer.get(f"{base}/train/big/").status_code == 404
    bad = viewer.get(f"{base}/train/big/?api=v1")
    assert bad.status_code == 400 and "api" in bad.json()


def test_a_cluster_too_large_to_schedule_in_a_request_is_a_409(viewer, gangs_cluster, monkeypatch):
    monkeypatch.setattr(gangs, "ENGINE_MESSAGES_MAX_NODES", 1)
    base = f"/api/v1/clusters/{gangs_cluster.pk}/gangs"
    for path in (f"{base}/", f"{base}/train/big/"):
        r = viewer.get(path)
        assert r.status_code == 409, (path, r.content)
        assert r.json()["detail"].startswith(f"{gangs_cluster.name} has more than 1 nodes")


def test_gangs_need_a_login(client, gangs_cluster):
    assert client.get(f"/api/v1/clusters/{gangs_cluster.pk}/gangs/").status_code in (401, 403)


# what `make run` sets (scripts/run-demo.sh)
DEMO_GATES = "GenericWorkload=true,GangScheduling=true,TopologyAwareWorkloadScheduling=true"


@override_settings(SCHEDLAB_FEATURE_GATES=DEMO_GATES)
def test_the_demo_shows_a_gang_that_fits_and_two_that_are_blocked(viewer, demo_cluster):
    live.forget()
    try:
        r = viewer.get(f"/api/v1/clusters/{demo_cluster.pk}/gangs/")
        assert r.status_code == 200, r.content
        by_name = {g["name"]: g for g in r.json()}
        assert set(by_name) == {
            "ml-training/bert-finetune",
            "ml-training/llama-pretrain",
            "ml-training/xgb-train",
        }
        assert by_name["ml-training/bert-finetune"]["status"] == "Scheduled"
        gpus = by_name["ml-training/llama-pretrain"]
        assert gpus["status"] == "Unschedulable"
        assert gpus["reasons"] == {"Insufficient nvidia.com/gpu": 4}
        topo = by_name["ml-training/xgb-train"]
        assert (
            topo["status"] == "Unschedulable" and topo["domainKey"] == "topology.kubernetes.io/zone"
        )
        assert "3 zones tried, none holds 4" in topo["summary"]
    finally:
        live.forget()
