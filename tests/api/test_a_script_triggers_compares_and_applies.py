"""The issue's "done when": trigger with an edited profile, poll, compare, apply — via a worker."""

from __future__ import annotations

from dashboard.cluster.models import Pod
from dashboard.dryruns import selectors
from dashboard.dryruns.models import Application
from tests.support.fixtures import BIN_PACKING_CONFIG, DEFAULT_CONFIG, poll_dry_run


def _create_profile(client, cluster_id: int) -> tuple[int, int]:
    r = client.post(
        "/api/v1/profiles/",
        {"name": "gpu", "cluster": cluster_id, "document": DEFAULT_CONFIG, "message": "upstream"},
        format="json",
    )
    assert r.status_code == 201, r.content
    return r.json()["profile"], r.json()["id"]


def test_a_script_triggers_polls_compares_applies_and_rolls_back(
    worker, demo_cluster, operator, admin
):
    profile_id, v1 = _create_profile(operator, demo_cluster.pk)
    r = operator.post(
        f"/api/v1/profiles/{profile_id}/versions/",
        {"document": BIN_PACKING_CONFIG, "message": "bin-pack GPUs"},
        format="json",
    )
    assert r.status_code == 201, r.content
    v2 = r.json()["id"]
    assert r.json()["number"] == 2

    diff = operator.get(f"/api/v1/profile-versions/{v1}/diff/?other={v2}").json()["diff"]
    assert "+  - name: NodeResourcesFit" in diff

    runs = {}
    for version in (v1, v2):
        r = operator.post(
            "/api/v1/dry-runs/",
            {"cluster": demo_cluster.pk, "profile_version": version, "seed": 7},
            format="json",
        )
        assert r.status_code == 202, r.content
        assert r.json()["status"] == "queued"
        runs[version] = r.json()["id"]

    # the demo snapshot evolves with the engine: count what it holds now
    pending = Pod.objects.filter(cluster=demo_cluster, node_name="").count()
    done = {v: poll_dry_run(operator, run_id) for v, run_id in runs.items()}
    for d in done.values():
        assert d["status"] == "succeeded", d
        assert d["progress"] == 100.0
        assert d["result_count"] == pending
        assert d["engine_seconds"] > 0 and d["load_seconds"] >= 0 and d["store_seconds"] >= 0
        assert d["pods_per_second"] > 0
        assert set(d["metrics"]) == {"before", "after"}
        assert d["metrics"]["before"]["podsPending"] == pending
        assert "gpuStranded" in d["metrics"]["after"]

    page = operator.get(f"/api/v1/dry-runs/{runs[v2]}/results/?offset=10&limit=3").json()
    assert page["count"] == pending and len(page["results"]) == 3
    every = operator.get(f"/api/v1/dry-runs/{runs[v2]}/results/?limit=1000").json()["results"]
    assert every[10:13] == page["results"]
    assert any(
        r["status"] == "Unschedulable" and "nodes are available" in r["message"] for r in every
    )

    cmp = operator.get(f"/api/v1/dry-runs/{runs[v1]}/compare/?other={runs[v2]}").json()
    assert cmp["sameState"] is True
    assert sum(cmp["counts"].values()) == pending
    names = {m["metric"] for m in cmp["metrics"]}
    assert {"podsPending", "gpuStranded", "preemptions", "pdbViolations"} <= names
    for m in cmp["metrics"]:
        assert m["line"] and m["label"] and m["unit"]
        # a timing moves with the machine's load: never a verdict
        want = (None,) if m["metric"] == "podsPerSecond" else ("better", "worse", "same")
        assert m["verdict"] in want, m

    r = admin.post(
        f"/api/v1/profile-versions/{v2}/apply/", {"cluster": demo_cluster.pk}, format="json"
    )
    assert r.status_code == 201, r.content
    applied = r.json()
    assert applied["dry_run"] == runs[v2] and applied["forced"] is False
    assert applied["applied_by"] == "admin-user"

    # the first apply can be undone: back to no profile (the cluster's own config)
    r = admin.post(f"/api/v1/clusters/{demo_cluster.pk}/rollback/")
    assert r.status_code == 201, r.content
    assert r.json()["version"] is None and r.json()["profile"] is None
    assert selectors.active_application(demo_cluster) is None
    r = admin.post(f"/api/v1/clusters/{demo_cluster.pk}/rollback/")
    assert r.status_code == 400 and "cluster" in r.json()

    for v in (v2, v1):
        r = admin.post(
            f"/api/v1/profile-versions/{v}/apply/", {"cluster": demo_cluster.pk}, format="json"
        )
        assert r.status_code == 201, r.content
    r = admin.post(f"/api/v1/clusters/{demo_cluster.pk}/rollback/")
    assert r.status_code == 201, r.content
    assert r.json()["version"] == v2 and r.json()["rolled_back_from"] is not None
    assert Application.objects.filter(cluster=demo_cluster).count() == 5
