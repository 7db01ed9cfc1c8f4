"""Every way a watch can break ends with the same database state as the server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from dashboard.cluster.mirror.health import MirrorHealth
from dashboard.cluster.models import Cluster, Node, Pod
from tests.support import objects as b
from tests.support.fixtures import ROOT
from tests.support.mirror import wait_until, wait_watching
from tests.support.pg import terminate_our_connections


def _names(cluster):
    return set(Pod.objects.filter(cluster=cluster).values_list("name", flat=True))


def _drop_watch(kube):
    kube.drop_watches()


def _compact(kube):
    # The watch cache forgets history and cuts streams: resuming from the old
    # resourceVersion gets an ERROR event with a 410 Status.
    kube.compact()
    kube.drop_watches()


def _restart(kube):
    kube.restart(compact=True, down_for=0.3)


def _restart_keeping_history(kube):
    kube.restart(compact=False, down_for=0.3)


@pytest.mark.parametrize(
    "fault",
    [_drop_watch, _compact, _restart, _restart_keeping_history],
    ids=lambda f: f.__name__[1:],
)
def test_it_converges_after(fault, kube, live_cluster, start_mirror):
    for name in ("keep", "gone", "changed"):
        kube.apply(b.pod(name))
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    fault(kube)
    # Changes while the mirror is reconnecting, relisting or watching again.
    kube.delete("Pod", "gone", "default")
    kube.apply(b.pod("changed", node="n1"))
    kube.apply(b.pod("new"))

    wait_until(lambda: _names(live_cluster) == {"keep", "changed", "new"}, what="pods converge")
    wait_until(
        lambda: Pod.objects.get(cluster=live_cluster, name="changed").node_name == "n1",
        what="modified pod",
    )
    assert Pod.objects.filter(cluster=live_cluster).count() == 3  # no duplicates


def test_deletes_while_the_server_is_down_are_reconciled_by_relist(
    kube, live_cluster, start_mirror
):
    for i in range(6):
        kube.apply(b.node(f"n{i}"))
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    kube.stop()
    for i in range(3):
        kube.delete("Node", f"n{i}")
    kube.compact()  # history lost with the restart
    kube.start()

    wait_until(
        lambda: (
            set(Node.objects.filter(cluster=live_cluster).values_list("name", flat=True))
            == {"n3", "n4", "n5"}
        ),
        what="nodes reconciled",
    )


def test_an_expired_continue_token_restarts_the_list(kube, live_cluster, start_mirror):
    for i in range(7):
        kube.apply(b.pod(f"p{i}"))
    # Every continue token expires once: the first paginated list gets 410.
    original = kube.store.snapshots.__class__

    class ExpiringOnce(dict):
        expired = False

        def __getitem__(self, key):
            if not ExpiringOnce.expired:
                ExpiringOnce.expired = True
                raise KeyError(key)
            return super().__getitem__(key)

    kube.store.snapshots = ExpiringOnce()
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    assert ExpiringOnce.expired and original is dict
    assert len(_names(live_cluster)) == 7


# -- the database and the mirror process fail, not the API server ----------


def test_postgres_connections_terminated_during_a_sync(kube, live_cluster, start_mirror):
    names = {f"p{i:03d}" for i in range(120)}
    for name in sorted(names):
        kube.apply(b.pod(name))
    before = timezone.now()
    mirror = start_mirror(live_cluster)
    terminated = 0
    deadline = time.monotonic() + 10
    # Cut the writer's connections over and over while pages arrive (2 pods a page).
    while mirror.writer.batches < 20 and time.monotonic() < deadline:
        time.sleep(0.01)
    for _ in range(5):
        terminated += terminate_our_connections()
        time.sleep(0.05)
    assert terminated, "the mirror held no connection to cut"
    kube.apply(b.pod("after"))

    wait_watching(live_cluster, timeout=15)
    wait_until(lambda: _names(live_cluster) == names | {"after"}, what="every pod stored")
    assert Pod.objects.filter(cluster=live_cluster).count() == len(names) + 1
    # The health says a fault happened, and when, even though it has recovered.
    cluster = Cluster.objects.get(pk=live_cluster.pk)
    assert cluster.last_error_at is not None and cluster.last_error_at >= before
    assert cluster.connected and not cluster.last_error


def test_failed_database_writes_show_in_the_health_until_one_succeeds():
    health = MirrorHealth(["pods"])
    health.synced("pods", "7")
    health.set("pods", Cluster.MirrorStatus.WATCHING)
    health.database("terminating connection due to administrator command")
    summary = health.summary()
    assert summary["mirror_status"] == Cluster.MirrorStatus.ERROR
    assert summary["last_error"] == "database: connection terminated"
    assert not summary["connected"]
    health.database("")
    summary = health.summary()
    assert summary["mirror_status"] == Cluster.MirrorStatus.WATCHING and summary["connected"]
    assert health.last_error_wall is not None  # stored as last_error_at


def _mirror_process(kubeconfig, extra_env: dict[str, str] | None = None) -> subprocess.Popen:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "schedlab.settings.test",
        "SCHEDLAB_TEST_ID": settings.TEST_ID,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "MIRROR_PAGE_SIZE": "5",  # many small pages: a sync long enough to cut in two
        **(extra_env or {}),
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "mirror", "--cluster", "live", "--kubeconfig", kubeconfig],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_the_mirror_process_killed_mid_sync_and_started_again(kube, kubeconfig, live_cluster):
    names = {f"p{i:03d}" for i in range(400)}
    for name in sorted(names):
        kube.apply(b.pod(name))
    count = Pod.objects.filter(cluster=live_cluster).count
    first = _mirror_process(str(kubeconfig))
    try:
        # a fresh process imports Django, the client and the engine first: slow on a loaded machine
        wait_until(lambda: count() > 0, timeout=120, what="the first pages stored")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    stored = count()
    assert 0 < stored < len(names), f"killed too late to be mid-sync ({stored} pods)"
    # what changed while no mirror ran
    kube.delete("Pod", "p000", "default")
    kube.apply(b.pod("p001", node="n1"))

    second = _mirror_process(str(kubeconfig))
    try:
        wait_watching(live_cluster, timeout=120)
        wait_until(lambda: _names(live_cluster) == names - {"p000"}, what="pods converge")
        assert count() == len(names) - 1  # nothing twice, nothing half-written
        assert Pod.objects.get(cluster=live_cluster, name="p001").node_name == "n1"
        cluster = Cluster.objects.get(pk=live_cluster.pk)
        assert cluster.connected and not cluster.last_error
    finally:
        second.terminate()
        second.wait(20)
    cluster = Cluster.objects.get(pk=live_cluster.pk)
    assert cluster.mirror_status == Cluster.MirrorStatus.STOPPED and not cluster.connected
