"""A finished run stores compact indexes; the results and compare pages read only those."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dashboard.dryruns.models import DryRun, DryRunIndexPage
from dashboard.dryruns.services.dryruns import compare_dry_runs, create_dry_run
from dashboard.dryruns.services.results import read_index, read_results
from dashboard.dryruns.services.runner import run_dry_run
from dashboard.pages.views import dryruns as views
from tests.support.synthetic import node, pod

PAGE = 2  # results per stored result page: the run spans many of them


def _pod(name: str, *, gpus: int, cls: str, prio: int, node_name: str = "", **spec: Any) -> dict:
    p = pod(0, node_name=node_name, gpus=gpus)
    p["metadata"].update(name=name, uid=f"uid-{name}", labels={"app": "guarded"})
    p["spec"].update(priorityClassName=cls, priority=prio, **spec)
    return p


def _snapshot() -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": n},
            "value": v,
        }
        for n, v in (("low", 0), ("high", 1000))
    ]
    objs.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "guard", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "guarded"}}},
            "status": {"disruptionsAllowed": 0},
        }
    )
    objs += [node(i) for i in range(3)]
    objs += [_pod(f"low-{g}", gpus=1, cls="low", prio=0, node_name="node-0") for g in range(8)]
    on_node_0 = {"nodeSelector": {"kubernetes.io/hostname": "node-0"}}
    objs.append(_pod("vip", gpus=8, cls="high", prio=1000, **on_node_0))
    objs += [_pod(f"huge-{k}", gpus=16, cls="low", prio=0) for k in range(2)]
    objs += [_pod(f"small-{k}", gpus=0, cls="low", prio=0) for k in range(6)]
    return objs


def _run(demo_cluster, explain: bool = False, **kwargs: Any) -> DryRun:
    run = create_dry_run(
        demo_cluster, source=DryRun.Source.SNAPSHOT, snapshot=_snapshot(), explain=explain, **kwargs
    )
    DryRun.objects.filter(pk=run.pk).update(result_page_size=PAGE)
    assert run_dry_run(run.pk) == DryRun.Status.SUCCEEDED
    return DryRun.objects.get(pk=run.pk)


@pytest.fixture
def viewer_client(client, db):
    user, _ = User.objects.get_or_create(username="viewer-index-user")
    user.groups.add(Group.objects.get_or_create(name="viewer")[0])
    client.force_login(user)
    return client


def test_a_finished_run_stores_pending_positions_preemptions_and_rejections(demo_cluster):
    run = _run(demo_cluster, explain=True)
    results = read_results(run, 0, run.result_count)
    pending = read_index(run, "pending", 0, 100)
    assert [p["i"] for p in pending] == [
        i for i, r in enumerate(results) if r["status"] != "Scheduled"
    ]
    assert {p["pod"] for p in pending} == {"default/huge-0", "default/huge-1"}
    assert run.pending_count == 2 and run.preemptor_count == 1 and run.victim_count == 8
    # a rejection histogram per pending pod (explain=True: from the filter failures)
    groups = pending[0]["groups"]
    assert sum(g["count"] for g in groups) == 3 and groups[0]["plugin"] == "NodeResourcesFit"
    (vip,) = read_index(run, "preemptions")["preemptors"]
    assert (
        vip["pod"] == "default/vip" and vip["priorityClass"] == "high" and vip["node"] == "node-0"
    )
    assert len(vip["victims"]) == 8
    assert all(
        v["priorityClass"] == "low" and v["pdbs"] == ["default/guard"] for v in vip["victims"]
    )
    rejections = read_index(run, "rejections")
    assert rejections[0]["plugin"] == "NodeResourcesFit" and rejections[0]["pods"] == 2
    placements = read_index(run, "placements", 0, run.result_count)
    assert [(p["pod"], p["status"], p["node"]) for p in placements] == [
        (r["pod"], r["status"], r["node"]) for r in results
    ]


def test_without_explanations_the_histogram_reads_the_upstream_message(demo_cluster):
    run = _run(demo_cluster, explain=False)
    (top,) = [h for h in read_index(run, "rejections") if "nvidia.com/gpu" in h["reason"]]
    assert top == {"plugin": "", "reason": "Insufficient nvidia.com/gpu", "pods": 2, "nodes": 6}


def test_the_results_page_reads_no_result_page_and_not_the_frozen_state(
    demo_cluster, viewer_client, django_assert_max_num_queries
):
    run = _run(demo_cluster, explain=True)
    with CaptureQueriesContext(connection) as ctx, django_assert_max_num_queries(16):
        page = viewer_client.get(f"/dry-runs/{run.pk}/?pending=1&page=1").content.decode()
    sql = " ".join(q["sql"] for q in ctx.captured_queries)
    assert "dryruns_dryrunresultpage" not in sql
    assert '"dryruns_dryrun"."snapshot"' not in sql
    # the index pages read: one of placements, one of pending, the graph, the histogram
    assert sql.count('FROM "dryruns_dryrunindexpage"') == 4
    assert "default/huge-0" in page and "default/vip" in page and "breaks default/guard" in page
    assert 'id="rejections"' in page and "preemption-figure" in page


def test_pending_pods_are_paged_from_the_index(demo_cluster, viewer_client, monkeypatch):
    monkeypatch.setattr(views, "PENDING_PER_PAGE", 1)
    run = _run(demo_cluster)
    first = viewer_client.get(f"/dry-runs/{run.pk}/").content.decode()
    second = viewer_client.get(f"/dry-runs/{run.pk}/?pending=2").content.decode()
    one, two = (f"<summary><code>default/huge-{k}</code>" for k in (0, 1))
    assert one in first and two not in first
    assert two in second and one not in second and "page 2 of 2" in second


def test_page_numbers_out_of_range_are_capped_at_the_last_page_and_floored_at_one(
    demo_cluster, viewer_client, monkeypatch
):
    monkeypatch.setattr(views, "PENDING_PER_PAGE", 1)
    monkeypatch.setattr(views, "PLACEMENTS_PER_PAGE", 5)
    run = _run(demo_cluster)
    assert (run.pending_count, run.result_count) == (2, 9)
    last = viewer_client.get(f"/dry-runs/{run.pk}/?page=99&pending=99").content.decode()
    assert "<summary><code>default/huge-1</code>" in last
    assert 'href="?page=2&pending=1#pending-title">← previous' in last
    assert 'href="?page=1&pending=2#placements-title">← previous' in last
    first = viewer_client.get(f"/dry-runs/{run.pk}/?page=-3&pending=-3").content.decode()
    assert "<summary><code>default/huge-0</code>" in first
    assert 'href="?page=1&pending=2#pending-title">next →' in first
    assert 'href="?page=2&pending=1#placements-title">next →' in first


def test_a_run_finished_before_the_indexes_is_indexed_once_on_first_view(
    demo_cluster, viewer_client
):
    run = _run(demo_cluster, explain=True)
    DryRunIndexPage.objects.filter(dry_run=run).delete()
    DryRun.objects.filter(pk=run.pk).update(index_version=0, pending_count=0, victim_count=0)
    page = viewer_client.get(f"/dry-runs/{run.pk}/").content.decode()
    assert "default/huge-0" in page and "breaks default/guard" in page
    run.refresh_from_db()
    assert run.index_version > 0 and run.pending_count == 2 and run.victim_count == 8
    with CaptureQueriesContext(connection) as ctx:
        viewer_client.get(f"/dry-runs/{run.pk}/")
    assert "dryruns_dryrunresultpage" not in " ".join(q["sql"] for q in ctx.captured_queries)


def test_compare_reads_the_placement_index_and_pages_the_changes(demo_cluster, viewer_client):
    a = _run(demo_cluster, explain=True)
    b = _run(demo_cluster, explain=False, seed=7)
    with CaptureQueriesContext(connection) as ctx:
        whole = compare_dry_runs(a, b)
    assert "dryruns_dryrunresultpage" not in " ".join(q["sql"] for q in ctx.captured_queries)
    ra = {r["pod"]: r for r in read_results(a, 0, a.result_count)}
    rb = {r["pod"]: r for r in read_results(b, 0, b.result_count)}
    moved = [p for p in ra if (ra[p]["status"], ra[p]["node"]) != (rb[p]["status"], rb[p]["node"])]
    assert [c["pod"] for c in whole["changes"]] == moved
    assert sum(whole["counts"].values()) == a.result_count
    if len(moved) > 1:
        second = compare_dry_runs(a, b, limit=1, offset=1)
        assert [c["pod"] for c in second["changes"]] == moved[1:2]
    r = viewer_client.get(f"/dry-runs/{b.pk}/compare/{a.pk}/")
    assert r.status_code == 200 and 'id="changes"' in r.content.decode()
