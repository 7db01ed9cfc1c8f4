"""Snapshots and workload templates through a real worker; cancel; lost workers are reaped."""

from __future__ import annotations

from datetime import timedelta

from django.test import override_settings
from django.utils import timezone

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.runner import run_dry_run
from tests.support.fixtures import poll_dry_run, wait_for
from tests.support.synthetic import fleet, job


def test_a_64_pod_training_job_is_expanded_and_placed(worker, demo_cluster, operator):
    r = operator.post(
        "/api/v1/dry-runs/",
        {
            "cluster": demo_cluster.pk,
            "source": "snapshot",
            "snapshot": fleet(10),
            "workload": [job("train", 64, gpus=1)],
        },
        format="json",
    )
    assert r.status_code == 202, r.content
    done = poll_dry_run(operator, r.json()["id"])
    assert done["status"] == "succeeded", done
    assert done["workload_pods"] == 64 and done["pods_placed"] == 64
    after = done["metrics"]["after"]
    assert after["gpuFree"] == 80 - 64
    assert sum(after["spreadPerZone"].values()) == 64
    rows = operator.get(f"/api/v1/dry-runs/{done['id']}/results/?limit=1000").json()["results"]
    assert {r["pod"] for r in rows} == {f"default/train-{i}" for i in range(64)}


def test_a_running_dry_run_can_be_cancelled(worker, demo_cluster, operator):
    r = operator.post(
        "/api/v1/dry-runs/",
        {
            "cluster": demo_cluster.pk,
            "source": "snapshot",
            "snapshot": fleet(1500),
            "workload": [job("big", 20000, gpus=0)],
        },
        format="json",
    )
    assert r.status_code == 202, r.content
    run_id = r.json()["id"]
    wait_for(
        lambda: operator.get(f"/api/v1/dry-runs/{run_id}/").json(),
        lambda d: d["status"] == "running" and d["pods_done"] > 0,
        60,
    )
    r = operator.post(f"/api/v1/dry-runs/{run_id}/cancel/")
    assert r.status_code == 202
    done = poll_dry_run(operator, run_id, timeout=30)
    assert done["status"] == "cancelled"
    assert 0 < done["pods_done"] < 20000
    assert operator.post(f"/api/v1/dry-runs/{run_id}/cancel/").status_code == 409


def test_a_queued_dry_run_is_cancelled_at_once(operator, demo_cluster):
    run = DryRun.objects.create(cluster=demo_cluster, snapshot=b"")
    r = operator.post(f"/api/v1/dry-runs/{run.pk}/cancel/")
    assert r.status_code == 202 and r.json()["status"] == "cancelled"


@override_settings(SCHEDLAB_DRYRUN_STALE_SECONDS=30)
def test_a_run_whose_worker_died_is_marked_failed_on_read(viewer, demo_cluster):
    old = timezone.now() - timedelta(seconds=31)
    run = DryRun.objects.create(
        cluster=demo_cluster,
        snapshot=b"",
        status="running",
        started_at=old,
        heartbeat_at=old,
        attempts=2,
    )
    fresh = DryRun.objects.create(
        cluster=demo_cluster,
        snapshot=b"",
        status="running",
        started_at=old,
        heartbeat_at=timezone.now(),
    )
    body = viewer.get(f"/api/v1/dry-runs/{run.pk}/").json()
    assert body["status"] == "failed" and "heartbeat" in body["error"]
    assert "last of 2 attempts" in body["error"]
    assert viewer.get(f"/api/v1/dry-runs/{fresh.pk}/").json()["status"] == "running"


def test_running_the_task_twice_does_nothing_the_second_time(demo_cluster, transactional_db):
    # made directly, not through create_dry_run, so no worker races this test for it
    run = DryRun.objects.create(cluster=demo_cluster, snapshot=codec.pack(fleet(3, pending=2)))
    assert run_dry_run(run.pk) == "succeeded"
    assert run_dry_run(run.pk) is None
    assert DryRun.objects.get(pk=run.pk).attempts == 1
