"""Pods filters and the live explanation with the active profile."""

from __future__ import annotations

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
