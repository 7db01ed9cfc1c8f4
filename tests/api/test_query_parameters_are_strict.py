"""Query parameters out of range are a 400 naming them; lists are paginated as the schema says."""

from __future__ import annotations

import pytest

BIG = "18446744073709551617"


@pytest.mark.parametrize(
    ("url", "param"),
    [
        (f"/api/v1/nodes/?cluster={BIG}", "cluster"),
        (f"/api/v1/pods/?cluster={BIG}", "cluster"),
        ("/api/v1/pods/?cluster=abc", "cluster"),
        ("/api/v1/pods/?pending=maybe", "pending"),
        (f"/api/v1/profile-versions/?profile={BIG}", "profile"),
        ("/api/v1/dry-runs/?limit=16144778675484483584", "limit"),
        ("/api/v1/dry-runs/?limit=0", "limit"),
        ("/api/v1/dry-runs/?limit=1001", "limit"),
        ("/api/v1/nodes/?limit=", "limit"),
        ("/api/v1/nodes/?offset=-1", "offset"),
        (f"/api/v1/clusters/?offset={BIG}", "offset"),
        ("/api/v1/dry-runs/1/compare/?other=99999999999999999999", "other"),
        # PostgreSQL text cannot hold NUL (found by Schemathesis' stateful phase)
        ("/api/v1/pods/?namespace=a%00b", "namespace"),
        ("/api/v1/pods/?reason=%00", "reason"),
        ("/api/v1/pods/?namespace=" + "a" * 254, "namespace"),
    ],
)
def test_out_of_range_parameters_are_named(viewer, db, url, param):
    r = viewer.get(url)
    assert r.status_code == 400, (url, r.status_code)
    assert param in r.json()


@pytest.mark.parametrize(
    "url", [f"/api/v1/nodes/{BIG}/", f"/api/v1/dry-runs/{BIG}/", "/api/v1/pods/-1/"]
)
def test_ids_beyond_64_bits_are_not_found(viewer, db, url):
    r = viewer.get(url)
    assert r.status_code == 404 and r["Content-Type"] == "application/json"


def test_unknown_api_paths_answer_json(viewer, db):
    r = viewer.get("/api/v1/no-such-thing/")
    assert r.status_code == 404 and r.json() == {"detail": "Not found."}


def test_history_and_versions_are_paginated(admin, demo_cluster):
    doc = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    version = admin.post("/api/v1/profiles/", {"name": "p", "document": doc}, format="json").json()
    versions = admin.get(f"/api/v1/profiles/{version['profile']}/versions/?limit=1").json()
    assert versions["count"] == 1 and versions["results"][0]["id"] == version["id"]
    history = admin.get(f"/api/v1/clusters/{demo_cluster.pk}/applications/").json()
    assert set(history) == {"count", "next", "previous", "results"}
    schema = admin.get("/api/v1/schema/?format=json").json()
    for path in ("/api/v1/clusters/{id}/applications/", "/api/v1/profiles/{id}/versions/"):
        ok = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        assert ok["schema"]["$ref"].startswith("#/components/schemas/Paginated"), path


def test_every_operation_documents_its_error_codes(viewer, db):
    schema = viewer.get("/api/v1/schema/?format=json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert {"400", "401", "403", "404"} <= codes, (method, path)
            if method in ("post", "delete"):
                assert {"409", "415"} <= codes, (method, path)
