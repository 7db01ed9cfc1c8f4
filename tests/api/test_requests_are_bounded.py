"""Sizes are checked before anything is built; bodies are capped per endpoint; nesting is limited.

Each case once took the server down or answered 500 (issue 10, items 1-3).
"""

from __future__ import annotations

import json
import time
import tracemalloc

import pytest
from django.test import override_settings

from dashboard.dryruns.models import DryRun, Profile
from dashboard.dryruns.services.errors import BadInput
from dashboard.dryruns.services.workload import expand_workload
from scheduler_engine.documents import MAX_DEPTH

DEEP_JSON = "[" * 10_000 + "]" * 10_000
TEMPLATE = {"spec": {"containers": [{"name": "c", "image": "x"}]}}


def _deep_yaml(levels: int) -> str:
    return "".join(f"{'  ' * i}k{i}:\n" for i in range(levels)) + f"{'  ' * levels}v\n"


def _post_raw(client, url: str, body: str):
    return client.generic("POST", url, body, content_type="application/json")


@pytest.mark.parametrize("url", ["/api/v1/profiles/validate/", "/api/v1/dry-runs/"])
def test_json_nested_ten_thousand_deep_is_a_400_naming_the_body(operator, db, url):
    r = _post_raw(
        operator,
        url,
        json.dumps({"document": "x", "snapshot": "x"})[:-1] + ', "x": ' + DEEP_JSON + "}",
    )
    assert r.status_code == 400, r.content[:200]
    assert f"nested deeper than {MAX_DEPTH} levels" in r.json()["body"][0]
    assert not DryRun.objects.exists()


def test_json_just_inside_the_limit_is_parsed(operator, db):
    nested: object = "x"
    for _ in range(MAX_DEPTH - 2):
        nested = [nested]
    r = operator.post(
        "/api/v1/profiles/validate/", {"document": "kind: x", "x": nested}, format="json"
    )
    assert r.status_code == 200


def test_a_deep_yaml_document_is_reported_not_a_500(operator, db):
    r = operator.post(
        "/api/v1/profiles/validate/", {"document": _deep_yaml(MAX_DEPTH + 5)}, format="json"
    )
    assert r.status_code == 200
    body = r.json()
    assert body["valid"] is False and "nested deeper" in body["errors"][0]["message"]
    flow = "a: " + "[" * 5000 + "]" * 5000
    r = operator.post("/api/v1/profiles/", {"name": "deep", "document": flow}, format="json")
    assert r.status_code == 400 and "document" in r.json()
    assert not Profile.objects.exists()


def test_a_deep_snapshot_text_names_the_snapshot(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "source": "snapshot", "snapshot": _deep_yaml(300)},
        format="json",
    )
    assert r.status_code == 400 and "nested deeper" in r.json()["snapshot"][0]
    assert not DryRun.objects.exists()


@override_settings(SCHEDLAB_MAX_CONFIG_BYTES=10_000)
def test_validate_refuses_a_body_over_its_cap_before_parsing(operator, db):
    big = json.dumps({"document": "\n".join(f"k{i}: 1" for i in range(100_000))})
    started = time.perf_counter()
    r = _post_raw(operator, "/api/v1/profiles/validate/", big)
    assert r.status_code == 400
    assert "20000 bytes, the limit of this endpoint" in r.json()["body"][0]
    assert time.perf_counter() - started < 2


@override_settings(SCHEDLAB_MAX_CONFIG_BYTES=10_000)
def test_a_document_over_the_config_cap_is_named(operator, db):
    r = operator.post("/api/v1/profiles/validate/", {"document": "#" * 15_000}, format="json")
    assert r.status_code == 200
    assert "SCHEDLAB_MAX_CONFIG_BYTES" in r.json()["errors"][0]["message"]


def test_small_endpoints_take_small_bodies(admin, demo_cluster):
    doc = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    version = admin.post("/api/v1/profiles/", {"name": "p", "document": doc}, format="json")
    url = f"/api/v1/profile-versions/{version.json()['id']}/apply/"
    r = _post_raw(admin, url, json.dumps({"cluster": demo_cluster.pk, "pad": "x" * (2 << 20)}))
    assert r.status_code == 400 and "limit of this endpoint" in r.json()["body"][0]


def test_validate_lists_the_first_errors_and_counts_them_all(operator, db):
    keys = "\n".join(f"unknownKey{i}: 1" for i in range(500))
    document = (
        f"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n{keys}\n"
    )
    r = operator.post("/api/v1/profiles/validate/", {"document": document}, format="json")
    assert r.status_code == 200
    body = r.json()
    assert body["valid"] is False
    assert len(body["errors"]) == 50
    assert body["error_count"] >= 500


def test_a_billion_replicas_are_refused_before_any_pod_is_built(operator, demo_cluster):
    started = time.perf_counter()
    r = operator.post(
        "/api/v1/dry-runs/",
        {
            "cluster": demo_cluster.pk,
            "workload": [{"kind": "Job", "name": "j", "replicas": 10**9, "podTemplate": TEMPLATE}],
        },
        format="json",
    )
    assert r.status_code == 400
    assert "SCHEDLAB_MAX_WORKLOAD_PODS" in r.json()["workload[0].replicas"][0]
    assert time.perf_counter() - started < 5
    assert not DryRun.objects.exists()


@pytest.mark.parametrize(
    "items",
    [
        [{"kind": "Job", "name": "a", "replicas": 150_000, "podTemplate": TEMPLATE}],
        [
            {"kind": "Job", "name": "a", "replicas": 60_000, "podTemplate": TEMPLATE},
            {"kind": "Deployment", "name": "b", "spec": {"replicas": 60_000, "template": TEMPLATE}},
        ],
    ],
)
def test_the_total_per_request_is_checked_before_allocating(items, settings):
    settings.SCHEDLAB_MAX_WORKLOAD_PODS = 100_000
    tracemalloc.start()
    try:
        with pytest.raises(BadInput) as caught:
            expand_workload(items)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "100000" in str(caught.value)
    assert peak < 1 << 20, f"{peak} bytes allocated before refusing"


def test_a_workload_pod_with_a_bad_spec_is_named_not_a_500(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/",
        {
            "cluster": demo_cluster.pk,
            "workload": [{"kind": "Pod", "metadata": {"name": "p"}, "spec": "x"}],
        },
        format="json",
    )
    assert r.status_code == 400, r.content[:300]


def test_the_editor_form_endpoint_refuses_deep_json(db):
    from tests.pages.conftest import login_as

    client = login_as("viewer")
    r = client.post("/profiles/form/", DEEP_JSON, content_type="application/json")
    assert r.status_code == 400
    assert r.json()["errors"][0] == {"field": "body", "message": "nested deeper than 100 levels"}
