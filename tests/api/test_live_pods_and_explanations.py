"""Pods filters and the live explanation with the active profile."""

from __future__ import annotations

import orjson

from dashboard.api.renderers import FastJSONRenderer
from dashboard.cluster.models import Pod


def test_pods_filter_pending_and_namespace(viewer, demo_cluster):
    pending = viewer.get(f"/api/v1/pods/?cluster={demo_cluster.pk}&pending=true&limit=500").json()
    expected = Pod.objects.filter(cluster=demo_cluster, phase="Pending", node_name="").count()
    assert pending["count"] == expected > 0
    ns = pending["results"][0]["namespace"]
    only = viewer.get(f"/api/v1/pods/?namespace={ns}&limit=500").json()["results"]
    assert only and {p["namespace"] for p in only} == {ns}


def test_the_explanation_gives_the_message_and_the_per_node_record(viewer, demo_cluster):
    pods = viewer.get(f"/api/v1/pods/?cluster={demo_cluster.pk}&pending=true&limit=500").json()
    seen_unschedulable = False
    for p in pods["results"]:
        url = f"/api/v1/clusters/{demo_cluster.pk}/pods/{p['namespace']}/{p['name']}/explanation/"
        r = viewer.get(url)
        assert r.status_code == 200, r.content
        body = r.json()
        assert body["pod"] == f"{p['namespace']}/{p['name']}" and body["message"]
        if body["status"] == "Unschedulable" and "nodes are available" in body["message"]:
            seen_unschedulable = True
            assert body["filterFailures"] and body["record"]
    assert seen_unschedulable


def test_the_explanation_of_an_unknown_pod_is_404(viewer, demo_cluster):
    url = f"/api/v1/clusters/{demo_cluster.pk}/pods/default/nope/explanation/"
    assert viewer.get(url).status_code == 404


def test_the_explanation_carries_nearest_nodes_and_verified_fixes(viewer, demo_cluster):
    url = f"/api/v1/clusters/{demo_cluster.pk}/pods/ml-inference/no-toleration-gpu/explanation/"
    data = viewer.get(url).json()
    assert data["status"] == "Unschedulable"
    first = data["nearest"][0]
    assert first["failures"] == [
        {"plugin": "TaintToleration", "reason": "node(s) had untolerated taint(s)"}
    ]
    assert first["taints"][0]["toleration"]["key"] == "nvidia.com/gpu"
    assert data["fixes"] and all(f["verified"] is True for f in data["fixes"])
    assert data["fixes"][0]["kind"] == "toleration"


def test_the_explanation_is_sent_byte_for_byte_as_drf_would_render_it(viewer, demo_cluster):
    from rest_framework.renderers import JSONRenderer

    from dashboard.explain.live import explain_pod

    pending = Pod.objects.filter(cluster=demo_cluster, node_name="").order_by("name")[:3]
    assert pending
    for pod in pending:
        url = f"/api/v1/clusters/{demo_cluster.pk}/pods/{pod.namespace}/{pod.name}/explanation/"
        r = viewer.get(url)
        assert r.status_code == 200
        data = explain_pod(demo_cluster, pod.namespace, pod.name)
        sent = r.json()
        for timed in ("seconds", "podsPerSecond"):  # wall-clock figures of each run
            data["summary"].pop(timed)
            sent["summary"].pop(timed)
        assert sent == data
        assert JSONRenderer().render(data) == FastJSONRenderer().render(data)
        # and it was orjson that wrote it, not the fallback
        assert orjson.dumps(data) == JSONRenderer().render(data)


def test_the_fast_renderer_leaves_what_orjson_writes_differently_to_drf():
    from rest_framework.renderers import JSONRenderer

    tricky = [
        {"f": 1e-07, "g": 1e16, "h": 0.5, "i": 1.0, "n": None, "b": True},
        {"s": "line\u2028sep\u2029", "u": 'snow ☃ \x01 \t "q" \\'},
        {1: "int key"},
        {"big": 2**70, "neg": -(2**63)},
        [("tuple", 1), {"nested": [{"x": []}]}],
        {"pod-1e5": "a name with 1e in it"},
    ]
    for value in tricky:
        assert FastJSONRenderer().render(value) == JSONRenderer().render(value), value
    assert FastJSONRenderer().render(None) == b""
