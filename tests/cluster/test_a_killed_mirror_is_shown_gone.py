"""A mirror stamps a heartbeat; one that stops stamping (SIGKILL) is shown as gone."""

from __future__ import annotations

import dataclasses
import signal
import time
from datetime import timedelta

from django.contrib.auth.models import User
from django.test import override_settings
from django.utils import timezone

from dashboard.cluster.models import Cluster
from dashboard.cluster.selectors import mirror_health
from tests.cluster.test_mirror_recovers_from_faults import _mirror_process
from tests.support import objects as b
from tests.support.fixtures import client_for
from tests.support.mirror import FAST, wait_until, wait_watching


def _shown(cluster: Cluster) -> dict:
    return Cluster.objects.get(pk=cluster.pk).shown_health()


def test_a_running_mirror_stamps_its_heartbeat_with_nothing_to_report(
    kube, live_cluster, start_mirror
):
    kube.apply(b.pod("p"))
    start_mirror(live_cluster, dataclasses.replace(FAST, heartbeat_seconds=0.3))
    wait_watching(live_cluster)
    first = Cluster.objects.get(pk=live_cluster.pk).heartbeat_at
    assert first is not None
    # nothing changes in the cluster, the heartbeat still moves on
    wait_until(
        lambda: Cluster.objects.get(pk=live_cluster.pk).heartbeat_at > first,
        timeout=5,
        what="a newer heartbeat",
    )
    assert _shown(live_cluster)["mirror_status"] == Cluster.MirrorStatus.WATCHING


def test_a_silent_running_status_is_shown_gone_and_stopped_is_not(live_cluster):
    now = timezone.now()
    Cluster.objects.filter(pk=live_cluster.pk).update(
        mirror_status=Cluster.MirrorStatus.WATCHING,
        connected=True,
        heartbeat_at=now - timedelta(seconds=31),
        last_error="",
    )
    with override_settings(MIRROR_GONE_SECONDS=30):
        shown = _shown(live_cluster)
        assert shown["mirror_status"] == Cluster.MirrorStatus.GONE and not shown["connected"]
        assert shown["last_error"].startswith("mirror not running: no heartbeat since ")
        # within the bound it is what the mirror said
        Cluster.objects.filter(pk=live_cluster.pk).update(heartbeat_at=now)
        assert _shown(live_cluster)["mirror_status"] == Cluster.MirrorStatus.WATCHING
        # a mirror that stopped cleanly said so: not "gone"
        Cluster.objects.filter(pk=live_cluster.pk).update(
            mirror_status=Cluster.MirrorStatus.STOPPED, heartbeat_at=now - timedelta(hours=1)
        )
        assert _shown(live_cluster)["mirror_status"] == Cluster.MirrorStatus.STOPPED


def test_a_sigkilled_mirror_is_shown_gone_within_the_bound(kube, kubeconfig, live_cluster):
    for i in range(3):
        kube.apply(b.pod(f"p{i}"))
    env = {"MIRROR_HEARTBEAT_SECONDS": "0.5"}
    proc = _mirror_process(str(kubeconfig), env)
    try:
        wait_watching(live_cluster, timeout=30)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        killed = time.monotonic()
    finally:
        if proc.poll() is None:
            proc.kill()
    row = Cluster.objects.get(pk=live_cluster.pk)
    # what the killed process left behind says it is still watching
    assert row.mirror_status == Cluster.MirrorStatus.WATCHING and row.connected
    viewer = client_for("viewer")
    viewer.force_login(User.objects.get(username="viewer-user"))  # for the page
    with override_settings(MIRROR_GONE_SECONDS=2):
        wait_until(
            lambda: _shown(live_cluster)["mirror_status"] == Cluster.MirrorStatus.GONE,
            timeout=10,
            what="the mirror shown gone",
        )
        # bounded: the last heartbeat was at most 0.5 s before the kill, plus the 2 s
        assert time.monotonic() - killed <= 2 + 0.5 + 1.0
        api = viewer.get(f"/api/v1/clusters/{live_cluster.pk}/").json()
        assert api["mirror_status"] == "gone" and api["connected"] is False
        assert "mirror not running" in api["last_error"]
        health = mirror_health(Cluster.objects.get(pk=live_cluster.pk))
        assert health["mirror_status"] == "gone" and health["heartbeat_at"]
        page = viewer.get(f"/clusters/{live_cluster.name}/")
        assert page.status_code == 200 and b"mirror not running" in page.content
