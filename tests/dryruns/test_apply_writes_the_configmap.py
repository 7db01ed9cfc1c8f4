"""Applying writes the profile into the live cluster's ConfigMap by server-side apply.

Through the real ``kubernetes`` client against the wire-protocol test server:
the write, what the server saw (PATCH, apply-patch+yaml, fieldManager, force),
taking over a key another manager owns, and failures (unreachable → 502,
forbidden → 409) that are recorded with the error and change nothing active.
"""

from __future__ import annotations

import pytest
import yaml

from dashboard.cluster.services.clusters import ensure_live_cluster
from dashboard.dryruns import selectors
from dashboard.dryruns.models import Application, ApplyTarget
from dashboard.dryruns.services.profiles import create_profile, create_version
from tests.support.fixtures import BIN_PACKING_CONFIG, DEFAULT_CONFIG
from tests.support.kubeserver import KubeServer
from tests.support.kubeserver_apply import put_configmap

CM = ("kube-system", "sched-config")


@pytest.fixture
def kube():
    server = KubeServer(token="secret").start()
    yield server
    server.stop()


@pytest.fixture
def live(db, kube, tmp_path):
    path = kube.write_kubeconfig(tmp_path / "kubeconfig")
    cluster = ensure_live_cluster("prod", kubeconfig=str(path), context="test")
    ApplyTarget.objects.create(cluster=cluster, namespace=CM[0], name=CM[1], key="config.yaml")
    return cluster


@pytest.fixture
def versions(live):
    v1 = create_profile(name="sched", document=DEFAULT_CONFIG, cluster=live)
    v2 = create_version(v1.profile, document=BIN_PACKING_CONFIG, message="bin packing")
    return v1, v2


def _apply(client, cluster, version):
    return client.post(
        f"/api/v1/profile-versions/{version.pk}/apply/",
        {"cluster": cluster.pk, "force": True},
        format="json",
    )


def test_it_writes_the_document_with_server_side_apply(admin, kube, live, versions):
    v1, _ = versions
    r = _apply(admin, live, v1)
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["configmap"] == "kube-system/sched-config"
    assert body["configmap_status"] == "written" and body["took_effect"] and not body["error"]
    cm = kube.configmaps[CM]
    assert body["configmap_resource_version"] == cm["metadata"]["resourceVersion"]
    assert yaml.safe_load(cm["data"]["config.yaml"]) == yaml.safe_load(DEFAULT_CONFIG)
    assert cm["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "schedlab"
    assert cm["metadata"]["annotations"]["schedlab.io/version"] == "1"
    assert [f["manager"] for f in cm["metadata"]["managedFields"]] == ["schedlab"]
    patch = [q for q in kube.requests if q.startswith("PATCH")]
    assert patch == [
        "PATCH /api/v1/namespaces/kube-system/configmaps/sched-config"
        "?fieldManager=schedlab&force=true application/apply-patch+yaml"
    ]
    assert selectors.active_application(live).pk == body["id"]


def test_it_takes_over_a_key_another_manager_wrote(admin, kube, live, versions):
    put_configmap(kube, *CM, {"config.yaml": "edited by hand"}, manager="kubectl-edit")
    r = _apply(admin, live, versions[1])
    assert r.status_code == 201, r.content
    cm = kube.configmaps[CM]
    assert yaml.safe_load(cm["data"]["config.yaml"]) == yaml.safe_load(BIN_PACKING_CONFIG)


def test_an_unreachable_cluster_is_502_recorded_and_changes_nothing(admin, kube, live, versions):
    v1, v2 = versions
    assert _apply(admin, live, v1).status_code == 201
    kube.stop()
    r = _apply(admin, live, v2)
    assert r.status_code == 502, r.content
    body = r.json()
    assert "not applied" in body["detail"] and "unchanged" in body["detail"]
    assert "kube-system/sched-config" in body["detail"]
    failed = body["application"]
    assert failed["configmap_status"] == "failed" and not failed["took_effect"]
    assert failed["error"] and failed["version"] == v2.pk
    # history shows the failure; the active profile is still v1
    history = admin.get(f"/api/v1/clusters/{live.pk}/applications/").json()["results"]
    assert [(a["version"], a["configmap_status"]) for a in history] == [
        (v2.pk, "failed"),
        (v1.pk, "written"),
    ]
    assert selectors.active_document(live) == v1.document


def test_a_forbidden_write_is_409_and_recorded(admin, kube, live, versions):
    kube.forbid_writes = True
    r = _apply(admin, live, versions[0])
    assert r.status_code == 409, r.content
    assert "forbidden" in r.json()["detail"].lower()
    assert Application.objects.get().configmap_status == "failed"
    assert selectors.active_application(live) is None
    assert CM not in kube.configmaps


def test_rollback_writes_the_previous_version_back(admin, kube, live, versions):
    v1, v2 = versions
    assert _apply(admin, live, v1).status_code == 201
    assert _apply(admin, live, v2).status_code == 201
    r = admin.post(f"/api/v1/clusters/{live.pk}/rollback/")
    assert r.status_code == 201, r.content
    assert r.json()["version"] == v1.pk and r.json()["configmap_status"] == "written"
    cm = kube.configmaps[CM]
    assert yaml.safe_load(cm["data"]["config.yaml"]) == yaml.safe_load(DEFAULT_CONFIG)
    assert cm["metadata"]["annotations"]["schedlab.io/version"] == "1"


def test_without_an_apply_target_nothing_is_written(admin, kube, live, versions):
    ApplyTarget.objects.filter(cluster=live).update(enabled=False)
    r = _apply(admin, live, versions[0])
    assert r.status_code == 201 and r.json()["configmap_status"] == ""
    assert not kube.configmaps and not [q for q in kube.requests if q.startswith("PATCH")]


def test_undoing_the_first_apply_leaves_the_configmap_alone(admin, kube, live, versions):
    assert _apply(admin, live, versions[0]).status_code == 201
    before = kube.configmaps[CM]
    r = admin.post(f"/api/v1/clusters/{live.pk}/rollback/")
    assert r.status_code == 400 and "not Schedlab's to restore" in r.json()["cluster"][0]
    assert kube.configmaps[CM] == before
    assert Application.objects.filter(cluster=live).count() == 1
