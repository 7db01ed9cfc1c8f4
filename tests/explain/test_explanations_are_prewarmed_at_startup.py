"""Web processes build the warm explanation state at start-up, in the background; workers do not."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
from celery.signals import worker_process_init, worker_ready, worker_shutdown
from django.conf import settings as django_settings
from django.db import connection

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.explain import live as warm
from dashboard.explain import prewarm
from tests.support.fixtures import ROOT, client_for
from tests.support.synthetic import fleet, pod


@pytest.fixture
def cluster(transactional_db, settings, monkeypatch):
    """A cluster committed (the prewarm thread has its own connection), prewarm on, no warm state."""
    settings.SCHEDLAB_EXPLAIN_PREWARM = True
    monkeypatch.setattr(prewarm, "_thread", None)
    warm.forget()
    c = ensure_snapshot_cluster("prewarmed", "synthetic")
    import_objects(c, [*fleet(4, running=8), pod(999, gpus=1)])
    yield c
    prewarm.wait(30)
    warm.forget()


@pytest.fixture
def builds(monkeypatch) -> list[str]:
    """The clusters whose warm state was built from scratch, in order."""
    seen: list[str] = []
    real = warm._build

    def counting(cluster):
        seen.append(cluster.name)
        return real(cluster)

    monkeypatch.setattr(warm, "_build", counting)
    return seen


def _explain(cluster) -> dict:
    url = f"/api/v1/clusters/{cluster.pk}/pods/default/pod-999/explanation/"
    r = client_for("viewer").get(url)
    assert r.status_code == 200, r.content
    return r.json()


def test_a_request_after_the_prewarm_is_served_from_the_prewarmed_state(cluster, builds):
    assert prewarm.start("web server") is not None
    assert prewarm.wait(30)
    assert builds == ["prewarmed"]
    built = warm.warm_stats(cluster)
    assert built is not None and built["runningPods"] == 8

    assert _explain(cluster)["status"] == "Scheduled"
    assert builds == ["prewarmed"]  # the request did not build again
    assert warm.warm_stats(cluster)["builtSeconds"] == built["builtSeconds"]
    # started once per process
    assert prewarm.start("again") is None


def test_a_request_during_the_build_waits_for_it(cluster, builds, monkeypatch):
    started, release = threading.Event(), threading.Event()
    counting = warm._build

    def slow(c):
        started.set()
        release.wait(10)
        return counting(c)

    monkeypatch.setattr(warm, "_build", slow)
    assert prewarm.start("test") is not None
    assert started.wait(10)
    threading.Timer(0.3, release.set).start()
    t0 = time.monotonic()
    assert _explain(cluster)["status"] == "Scheduled"  # blocks on the cluster's lock
    assert time.monotonic() - t0 >= 0.25
    assert prewarm.wait(30)
    assert builds == ["prewarmed"]


def test_a_failing_cluster_is_logged_and_the_others_still_warm(
    cluster, builds, monkeypatch, caplog
):
    other = ensure_snapshot_cluster("second", "synthetic")
    import_objects(other, fleet(2, running=2))
    real = warm.warm_cluster

    def broken(c):
        if c.name == "prewarmed":
            raise RuntimeError("database went away")
        return real(c)

    monkeypatch.setattr(warm, "warm_cluster", broken)
    with caplog.at_level(logging.INFO, logger="dashboard.explain.prewarm"):
        prewarm.start("test")
        assert prewarm.wait(30)
    assert "cluster prewarmed failed" in caplog.text and "database went away" in caplog.text
    assert builds == ["second"]


def test_a_celery_worker_does_not_prewarm(cluster, builds, monkeypatch):
    """No task reads the warm state: a worker keeps no copy of it (docs/explanations.md)."""
    # a worker never imports the ASGI module; this test process may have (websocket tests)
    monkeypatch.delitem(sys.modules, "schedlab.asgi", raising=False)
    prewarm.install()  # as the explain app's ready() does, in a process that is no web server
    worker_process_init.send(sender="celery@test")  # what a Celery pool process sends
    try:
        worker_ready.send(sender=None)
    finally:
        # worker_ready also starts the dry-run reaper thread: stop it with the "worker",
        # or it outlives this test and reaps against a dropped test database
        worker_shutdown.send(sender=None)
    for thread in threading.enumerate():
        if thread.name == "dryrun-reaper":
            thread.join(10)
            assert not thread.is_alive(), "the reaper outlived its worker's shutdown"
    assert prewarm._thread is None
    assert builds == []
    assert warm.warm_stats(cluster) is None


def test_it_is_off_under_the_test_settings(transactional_db, monkeypatch):
    monkeypatch.setattr(prewarm, "_thread", None)
    assert prewarm.start("test") is None
    prewarm.install()
    assert prewarm._thread is None


def test_a_daphne_process_prewarms_without_delaying_startup(cluster):
    """The ready() hook recognises a real ASGI server; /healthz answers meanwhile."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "schedlab.settings.test",
        "SCHEDLAB_TEST_ID": django_settings.TEST_ID,
        "DATABASE_URL": f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "SCHEDLAB_EXPLAIN_PREWARM": "1",
        "LOG_LEVEL": "INFO",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "daphne",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "schedlab.asgi:application",
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    done = threading.Event()

    def read() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.append(line)
            if "explanation prewarm (web server) done" in line:
                done.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        done.wait(30)
        log = "".join(lines)
        assert "explanations of cluster prewarmed warm in" in log, log
        assert "explanation prewarm (web server) done: 1 cluster(s)" in log, log
    finally:
        proc.terminate()
        proc.wait(10)
