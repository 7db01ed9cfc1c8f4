"""The worker's half of the work: the full parse of uploaded pods and nodes, and the reaper.

The request only checks the snapshot's shape (400 naming the field); a pod
whose fields do not parse fails the run on the worker with the object and
field named.  Every worker reaps runs whose worker died, without any read.
"""

from __future__ import annotations

import os
import time
from datetime import timedelta

from django.utils import timezone

from dashboard.dryruns.models import DryRun
from tests.support.fixtures import poll_dry_run, start_worker, stop_worker
from tests.support.synthetic import fleet, pod


def _post(client, cluster, snapshot):
    return client.post(
        "/api/v1/dry-runs/",
        {"cluster": cluster.pk, "source": "snapshot", "snapshot": snapshot},
        format="json",
    )


def test_a_snapshot_of_the_wrong_shape_is_400_naming_the_item(operator, demo_cluster):
    cases = [
        ([*fleet(1), {"kind": "Pod", "metadata": {}}], "snapshot[1].metadata.name"),
        ([{"metadata": {"name": "x"}}], "snapshot[0].kind"),
        ([{"kind": "Pod", "metadata": {"name": "p"}, "spec": {}}], "snapshot[0].spec.containers"),
        ([pod(1), pod(1)], "snapshot[1].metadata.name"),
        (
            [{"kind": "Node", "metadata": {"name": "n", "labels": ["a"]}}],
            "snapshot[0].metadata.labels",
        ),
    ]
    for snapshot, field in cases:
        r = _post(operator, demo_cluster, snapshot)
        assert r.status_code == 400 and field in r.json(), (field, r.content)
    assert not DryRun.objects.exists()


def test_a_pod_that_does_not_parse_fails_the_run_naming_pod_and_field(
    worker, operator, demo_cluster
):
    bad = pod(2)
    bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    r = _post(operator, demo_cluster, [*fleet(2), pod(1), bad])
    assert r.status_code == 202, r.content
    run = poll_dry_run(operator, r.json()["id"])
    assert run["status"] == "failed"
    assert "Pod default/pod-2" in run["error"]
    assert "spec.containers[0].resources.requests.cpu" in run["error"]


def test_every_worker_reaps_runs_whose_worker_died(demo_cluster, transactional_db):
    old = timezone.now() - timedelta(hours=1)
    lost = DryRun.objects.create(
        cluster=demo_cluster,
        snapshot=b"",
        status="running",
        started_at=old,
        heartbeat_at=old,
        attempts=2,
    )
    # its own queue: it takes no other test's runs
    proc = start_worker(
        queue=f"reaper-test-{os.getpid()}", env={"SCHEDLAB_DRYRUN_REAP_SECONDS": "0.3"}
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lost.refresh_from_db()
            if lost.status != "running":
                break
            time.sleep(0.2)
        assert lost.status == "failed" and "heartbeat" in lost.error
    finally:
        stop_worker(proc)
