"""GET clusters/{id}/unschedulable/ and the declarations that decide what is known."""

from __future__ import annotations

import pytest

from dashboard.dryruns.services.profiles import apply_version, create_profile
from dashboard.explain import live
from tests.support.orphan_cluster import EXPECTED, make_orphan_cluster


@pytest.fixture
def orphan_cluster(db):
    live.forget()
    yield make_orphan_cluster()
    live.forget()


def test_each_orphan_is_listed_with_its_reason_and_field(viewer, orphan_cluster):
    r = viewer.get(f"/api/v1/clusters/{orphan_cluster.pk}/unschedulable/")
    assert r.status_code == 200, r.content
    body = r.json()
    assert {o["pod"]: (o["reason"], o["value"]) for o in body["orphans"]} == EXPECTED
    assert body["profiles"] == ["default-scheduler"]
    assert body["counts"] == {
        "ClaimTemplateMissing": 1,
        "GateNobodyRemoves": 1,
        "PodGroupMissing": 2,
        "UnknownScheduler": 1,
    }
    fields = {o["pod"]: o["field"] for o in body["orphans"]}
    assert fields["ml/native"] == "spec.schedulingGroup.podGroupName"
    assert fields["ml/cosched"] == "metadata.labels[scheduling.x-k8s.io/pod-group]"


def test_the_served_schedulers_follow_each_apply(viewer, orphan_cluster):
    url = f"/api/v1/clusters/{orphan_cluster.pk}/unschedulable/"
    assert viewer.get(url).json()["profiles"] == ["default-scheduler"]
    volcano = (
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: volcano\n"
    )
    apply_version(orphan_cluster, create_profile(name="volcano", document=volcano), force=True)
    body = viewer.get(url).json()
    assert body["profiles"] == ["volcano"]
    assert "ml/volcano-job" not in {o["pod"] for o in body["orphans"]}


def test_declaring_a_scheduler_and_a_gate_controller_clears_their_pods(operator, orphan_cluster):
    url = f"/api/v1/clusters/{orphan_cluster.pk}/unschedulable-settings/"
    r = operator.patch(url, {"declaredSchedulers": ["volcano"]}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["declaredSchedulers"] == ["volcano"]
    # the default gate controllers stay when only the schedulers are given
    assert "kueue.x-k8s.io/admission" in r.json()["gateControllers"]
    r = operator.patch(
        url, {"gateControllers": ["kueue.x-k8s.io/admission", "example.com/*"]}, format="json"
    )
    assert r.status_code == 200, r.content
    assert operator.get(url).json() == {
        "declaredSchedulers": ["volcano"],
        "gateControllers": ["kueue.x-k8s.io/admission", "example.com/*"],
    }
    left = operator.get(f"/api/v1/clusters/{orphan_cluster.pk}/unschedulable/").json()
    assert {o["pod"] for o in left["orphans"]} == {"ml/cosched", "ml/native", "ml/claimless"}


def test_bad_declarations_are_a_400_naming_the_item_and_nothing_is_stored(
    operator, viewer, orphan_cluster
):
    url = f"/api/v1/clusters/{orphan_cluster.pk}/unschedulable-settings/"
    r = operator.patch(
        url, {"declaredSchedulers": ["ok", "Not_A_Name"], "gateControllers": []}, format="json"
    )
    assert r.status_code == 400
    assert list(r.json()) == ["declaredSchedulers[1]"]
    assert operator.patch(url, {"schedulers": []}, format="json").json() == {
        "schedulers": ["is not a setting"]
    }
    assert operator.patch(url, {"gateControllers": "x"}, format="json").status_code == 400
    orphan_cluster.refresh_from_db()
    assert orphan_cluster.declared_schedulers == []
    assert "kueue.x-k8s.io/admission" in orphan_cluster.gate_controllers
    # a viewer reads the declarations but may not change them
    assert viewer.get(url).status_code == 200
    assert viewer.patch(url, {"declaredSchedulers": []}, format="json").status_code == 403


def test_the_endpoints_are_in_the_openapi_schema(viewer, db):
    r = viewer.get("/api/v1/schema/?format=json")
    paths = r.json()["paths"]
    assert "get" in paths["/api/v1/clusters/{id}/unschedulable/"]
    assert set(paths["/api/v1/clusters/{id}/unschedulable-settings/"]) >= {"get", "patch"}
