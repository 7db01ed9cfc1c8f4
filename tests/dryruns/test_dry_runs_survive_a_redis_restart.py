"""Redis (the Celery broker and the channel layer) restarted while dry-runs are queued
and running: every run ends succeeded, none is lost, none runs twice.

A redis-server of the test's own on a free port (append-only file, as deployed),
and a worker of its own, so the shared Redis other test runs use is never touched.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time

import pytest

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.tasks import run_dry_run_task
from schedlab.celery import app
from tests.support.fixtures import start_worker
from tests.support.synthetic import fleet

pytestmark = pytest.mark.skipif(not shutil.which("redis-server"), reason="needs redis-server")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _redis(port: int, workdir) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "yes",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    raise AssertionError("redis-server did not start")


def _worker(url: str, queue: str) -> subprocess.Popen:
    return start_worker(queue=queue, env={"REDIS_URL": url})


def _submit(url: str, queue: str, run: DryRun) -> None:
    with app.connection_for_write(url) as conn:
        run_dry_run_task.apply_async((run.pk,), connection=conn, queue=queue, retry=True)


def test_dry_runs_finish_across_a_redis_restart(demo_cluster, transactional_db, tmp_path):
    port = _free_port()
    url = f"redis://127.0.0.1:{port}/0"
    queue = f"redis-restart-{os.getpid()}"
    redis = _redis(port, tmp_path)
    worker = _worker(url, queue)
    try:
        runs = [
            DryRun.objects.create(
                cluster=demo_cluster, snapshot=codec.pack(fleet(30, pending=200)), seed=i
            )
            for i in range(4)
        ]
        for run in runs:
            _submit(url, queue, run)
        deadline = time.monotonic() + 30
        while not DryRun.objects.filter(pk=runs[0].pk, status="running").exists():
            assert time.monotonic() < deadline, "no run started"
            time.sleep(0.05)
        redis.send_signal(signal.SIGTERM)  # a restart: the append-only file keeps the queue
        redis.wait(10)
        time.sleep(0.5)
        redis = _redis(port, tmp_path)
        more = DryRun.objects.create(
            cluster=demo_cluster, snapshot=codec.pack(fleet(30, pending=200)), seed=9
        )
        _submit(url, queue, more)
        runs.append(more)
        deadline = time.monotonic() + 60
        pks = [r.pk for r in runs]
        while DryRun.objects.filter(pk__in=pks, finished_at__isnull=True).exists():
            assert time.monotonic() < deadline, list(
                DryRun.objects.filter(pk__in=pks).values_list("status", "attempts")
            )
            time.sleep(0.2)
        for run in runs:
            run.refresh_from_db()
            assert run.status == "succeeded", (run.status, run.error)
            assert run.result_count == 200 and run.attempts == 1
    finally:
        worker.terminate()
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()
        redis.terminate()
        redis.wait(10)
