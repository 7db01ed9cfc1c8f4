"""A dry-run with scheduler_lag: two profiles with lagging caches, the kubelet's refusals."""

from __future__ import annotations

from dashboard.dryruns.models import DryRun
from tests.support.fixtures import poll_dry_run
from tests.support.orphan_cluster import TWO_SCHEDULERS as TWO
from tests.support.orphan_cluster import collision_objects


def _start(client, cluster, lag):
    return client.post(
        "/api/v1/dry-runs/",
        {
            "cluster": cluster.pk,
            "source": "snapshot",
            "snapshot": collision_objects(),
            "inline_config": TWO,
            "scheduler_lag": lag,
        },
        format="json",
    )


def test_a_lag_double_books_the_gpus_and_lag_zero_does_not(worker, demo_cluster, operator):
    late, prompt = _start(operator, demo_cluster, 4), _start(operator, demo_cluster, 0)
    assert late.status_code == 202, late.content
    assert late.json()["scheduler_lag"] == 4
    done = poll_dry_run(operator, late.json()["id"])
    assert done["status"] == "succeeded", done
    col = done["summary"]["collisions"]
    assert col["lagCycles"] == 4
    [refused] = col["refused"]
    assert (refused["pod"], refused["node"], refused["profile"]) == (
        "default/infer",
        "g1",
        "batch-scheduler",
    )
    assert refused["reason"] == "OutOfnvidia.com/gpu"
    assert refused["message"] == (
        "Node didn't have enough resource: nvidia.com/gpu, requested: 6, used: 6, capacity: 8"
    )
    assert refused["unseen"] == ["default/train"]
    rows = operator.get(f"/api/v1/dry-runs/{late.json()['id']}/results/").json()["results"]
    by_pod = {r["pod"]: r for r in rows}
    assert by_pod["default/infer"]["kubelet"]["reason"] == "OutOfnvidia.com/gpu"
    assert by_pod["default/train"]["kubelet"] is None

    done = poll_dry_run(operator, prompt.json()["id"])
    assert done["status"] == "succeeded", done
    assert done["summary"]["collisions"]["refused"] == []


def test_scheduler_lag_needs_two_profiles_and_a_whole_number(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/", {"cluster": demo_cluster.pk, "scheduler_lag": 2}, format="json"
    )
    assert r.status_code == 400
    assert "two or more profiles" in r.json()["scheduler_lag"][0]
    assert _start(operator, demo_cluster, -1).status_code == 400
    assert "scheduler_lag" in _start(operator, demo_cluster, "soon").json()
    r = operator.post(
        "/api/v1/dry-runs/",
        {
            "cluster": demo_cluster.pk,
            "inline_config": TWO,
            "scheduler_lag": 1,
            "hardware_view": True,
        },
        format="json",
    )
    assert r.status_code == 400 and "scheduler_lag" in r.json()
    assert not DryRun.objects.exists()
