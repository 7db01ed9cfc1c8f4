"""Pods filters and the live explanation with the active profile."""

from __future__ import annotations

import orjson

from dashboard.api.renderers import FastJSONRenderer
from dashboard.cluster.models import Pod
from dashboard.explain.answer import INCLUDE, SAMPLE_PER_REASON, answer


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
            assert "record" not in body and body["nodeSummary"]["rejected"] > 0
            full = viewer.get(url + "?include=nodes").json()
            assert full["filterFailures"] and full["record"]
            assert full["nodeSummary"]["rejected"] == len(full["allFilterFailures"])
    assert seen_unschedulable


def test_the_explanation_of_an_unknown_pod_is_404(viewer, demo_cluster):
    url = f"/api/v1/clusters/{demo_cluster.pk}/pods/default/nope/explanation/"
    assert viewer.get(url).status_code == 404


def test_the_explanation_carries_nearest_nodes_and_verified_fixes_when_asked(viewer, demo_cluster):
    url = f"/api/v1/clusters/{demo_cluster.pk}/pods/ml-inference/no-toleration-gpu/explanation/"
    brief = viewer.get(url).json()
    assert brief["status"] == "Unschedulable" and "nearest" not in brief and "fixes" not in brief
    data = viewer.get(url + "?include=whatif").json()
    assert data["message"] == brief["message"] and "record" not in data
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
        r = viewer.get(url + "?include=nodes,whatif")
        assert r.status_code == 200
        kept = explain_pod(demo_cluster, pod.namespace, pod.name)
        data = {**answer(kept, frozenset(INCLUDE)), "summary": dict(kept["summary"])}
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


def test_include_naming_no_section_is_a_400_naming_the_field(viewer, demo_cluster):
    url = f"/api/v1/clusters/{demo_cluster.pk}/pods/ml-inference/no-toleration-gpu/explanation/"
    for bad in ("everything", "nodes,scores", "whatif&include=x\x00"):
        r = viewer.get(url, {"include": bad})
        assert r.status_code == 400, (bad, r.content)
        assert (
            list(r.json()) == ["include"]
            and "must be one of nodes, whatif" in r.json()["include"][0]
        )
    both = viewer.get(url, {"include": ["nodes", "whatif"]}).json()
    assert both["record"] and both["fixes"]


def test_the_node_summary_counts_every_node_and_samples_each_reason(viewer, demo_cluster):
    url = f"/api/v1/clusters/{demo_cluster.pk}/pods/ml-inference/no-toleration-gpu/explanation/"
    full = viewer.get(url + "?include=nodes").json()
    summary = full["nodeSummary"]
    assert summary["nodes"] == full["summary"]["nodes"]
    assert summary["feasible"] == len(full["scores"])
    assert summary["rejected"] == len(full["allFilterFailures"]) > 0
    for g in summary["rejections"]:
        assert len(g["nodes"]) == min(g["count"], SAMPLE_PER_REASON)
        assert g["more"] == g["count"] - len(g["nodes"])
        for n in g["nodes"]:
            # the engine's words, byte for byte
            assert n["failures"] == full["allFilterFailures"][n["name"]]
            assert (g["plugin"], g["reason"]) == (
                n["failures"][0]["plugin"],
                n["failures"][0]["reason"],
            )
    assert sum(g["count"] for g in summary["rejections"]) == summary["rejected"]
    counts = [g["count"] for g in summary["rejections"]]
    assert counts == sorted(counts, reverse=True)


def test_a_preempting_pod_keeps_why_no_node_fit_before_its_victims_left(viewer, demo_cluster):
    url = f"/api/v1/clusters/{demo_cluster.pk}/pods/ml-training/gpt-finetune-worker-0/explanation/"
    brief = viewer.get(url).json()
    assert brief["victims"] == ["ml-training/experiment-7-worker-0"]
    # the last attempt, on the nominated node, fit: it rejected no node
    assert brief["nodeSummary"]["rejected"] == 0
    before = brief["beforePreemption"]
    failed = [e["message"] for e in brief["events"] if e["reason"] == "FailedScheduling"]
    assert before["message"] == failed[0] and before["message"].startswith(
        "0/20 nodes are available: "
    )
    assert before["nominatedNode"] == "h100-a-1"
    summary = before["nodeSummary"]
    assert summary["nodes"] == 20 and summary["rejected"] == 20
    assert summary["feasible"] == 0 and summary["topScored"] == []
    assert "filterFailures" not in before and "allFilterFailures" not in before
    full = viewer.get(url + "?include=nodes").json()["beforePreemption"]
    assert full["nodeSummary"] == summary and len(full["allFilterFailures"]) == 20
    for g in summary["rejections"]:
        for n in g["nodes"]:
            assert n["failures"] == full["allFilterFailures"][n["name"]]
