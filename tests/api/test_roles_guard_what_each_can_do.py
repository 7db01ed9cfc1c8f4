"""viewer reads; operator edits profiles and runs dry-runs; admin applies and forces."""

from __future__ import annotations

import pytest

from dashboard.cluster.models import Node
from dashboard.dryruns.models import Application, DryRun
from dashboard.dryruns.services.profiles import create_profile
from tests.support.fixtures import DEFAULT_CONFIG, client_for


@pytest.fixture
def version(demo_cluster):
    return create_profile(name="p", document=DEFAULT_CONFIG, cluster=demo_cluster)


def test_anonymous_requests_are_refused(demo_cluster):
    assert client_for(None).get("/api/v1/clusters/").status_code in (401, 403)


def test_a_viewer_reads_but_cannot_write(viewer, demo_cluster, version):
    assert viewer.get("/api/v1/clusters/").json()["results"][0]["name"] == "demo"
    nodes = Node.objects.filter(cluster=demo_cluster).count()
    assert viewer.get(f"/api/v1/nodes/?cluster={demo_cluster.pk}").json()["count"] == nodes > 0
    r = viewer.post("/api/v1/dry-runs/", {"cluster": demo_cluster.pk}, format="json")
    assert r.status_code == 403
    r = viewer.post("/api/v1/profiles/", {"name": "x", "document": DEFAULT_CONFIG}, format="json")
    assert r.status_code == 403


def test_an_operator_cannot_apply(operator, demo_cluster, version):
    r = operator.post(
        f"/api/v1/profile-versions/{version.pk}/apply/",
        {"cluster": demo_cluster.pk, "force": True},
        format="json",
    )
    assert r.status_code == 403
    assert not Application.objects.exists()


def test_apply_without_a_dry_run_is_refused_naming_the_field(admin, demo_cluster, version):
    r = admin.post(
        f"/api/v1/profile-versions/{version.pk}/apply/",
        {"cluster": demo_cluster.pk},
        format="json",
    )
    assert r.status_code == 400
    assert "no successful dry-run" in r.json()["dry_run"][0]
    assert not Application.objects.exists()


def test_apply_after_a_failed_dry_run_is_refused(admin, demo_cluster, version):
    run = DryRun.objects.create(
        cluster=demo_cluster, profile_version=version, snapshot=b"", status="failed"
    )
    r = admin.post(
        f"/api/v1/profile-versions/{version.pk}/apply/",
        {"cluster": demo_cluster.pk, "dry_run": run.pk},
        format="json",
    )
    assert r.status_code == 400 and "failed" in r.json()["dry_run"][0]


def test_an_admin_may_force_and_it_is_recorded(admin, demo_cluster, version):
    r = admin.post(
        f"/api/v1/profile-versions/{version.pk}/apply/",
        {"cluster": demo_cluster.pk, "force": True},
        format="json",
    )
    assert r.status_code == 201, r.content
    assert r.json()["forced"] is True and r.json()["dry_run"] is None
    history = admin.get(f"/api/v1/clusters/{demo_cluster.pk}/applications/").json()["results"]
    assert history[0]["forced"] is True and history[0]["applied_by"] == "admin-user"


def test_a_succeeded_dry_run_of_the_version_justifies_apply(admin, demo_cluster, version):
    run = DryRun.objects.create(
        cluster=demo_cluster, profile_version=version, snapshot=b"", status="succeeded"
    )
    r = admin.post(
        f"/api/v1/profile-versions/{version.pk}/apply/",
        {"cluster": demo_cluster.pk},
        format="json",
    )
    assert r.status_code == 201 and r.json()["dry_run"] == run.pk and not r.json()["forced"]
