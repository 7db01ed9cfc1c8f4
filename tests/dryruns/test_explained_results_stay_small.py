"""Explained dry-runs store what the pages show, not the engine's whole record."""

from __future__ import annotations

from django.test import override_settings

from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.compact import compact_result
from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.results import read_results
from dashboard.dryruns.services.runner import run_dry_run
from tests.support.synthetic import node, pod


def _snapshot(nodes: int, pending: int) -> list[dict]:
    objs = [node(i) for i in range(nodes)]
    for k in range(pending):
        p = pod(k)
        p["metadata"]["name"] = f"pending-{k}"
        objs.append(p)
    return objs


def _run(cluster, objs) -> DryRun:
    run = create_dry_run(cluster, source=DryRun.Source.SNAPSHOT, snapshot=objs, explain=True)
    assert run_dry_run(run.pk) == DryRun.Status.SUCCEEDED
    return DryRun.objects.get(pk=run.pk)


@override_settings(SCHEDLAB_DRYRUN_EXPLAIN_TOP_NODES=3)
def test_explained_results_keep_only_the_best_nodes_scores(demo_cluster):
    run = _run(demo_cluster, _snapshot(nodes=6, pending=2))
    for r in read_results(run, 0, run.result_count):
        assert "record" not in r and "allFilterFailures" not in r
        if r["status"] == "Scheduled":
            assert len(r["scores"]) in (3, 4)  # the best three, and the chosen node
            assert set(r["pluginScores"]) == set(r["scores"])
            assert r["node"] in r["scores"]
    assert "explainSkipped" not in run.summary


@override_settings(SCHEDLAB_DRYRUN_EXPLAIN_MAX_PAIRS=5)
def test_runs_too_large_to_explain_go_on_without_the_record(demo_cluster):
    run = _run(demo_cluster, _snapshot(nodes=3, pending=2))
    results = read_results(run, 0, run.result_count)
    assert results and all("scores" not in r for r in results)
    assert "SCHEDLAB_DRYRUN_EXPLAIN_MAX_PAIRS=5" in run.summary["explainSkipped"]


def test_the_attempt_that_preempted_keeps_only_each_nodes_first_failure():
    fail = {"plugin": "NodeResourcesFit", "reason": "Insufficient cpu"}
    before = {
        "message": "0/1 nodes are available: 1 Insufficient cpu.",
        "nominatedNode": "n1",
        "filterFailures": {"n1": fail},
        "allFilterFailures": {"n1": [fail]},
    }
    r = compact_result({"status": "Scheduled", "node": "n1", "beforePreemption": before})
    assert r["beforePreemption"] == {
        "message": "0/1 nodes are available: 1 Insufficient cpu.",
        "nominatedNode": "n1",
        "filterFailures": {"n1": fail},
    }
