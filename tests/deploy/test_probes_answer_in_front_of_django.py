"""/livez, /readyz and `python -m schedlab.probe`: what the image, compose and kubelet ask.

The web server runs under production settings (HTTPS redirect on, one allowed
host) and is asked over plain HTTP by IP, as a kubelet asks a pod.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator

import pytest
from django.db import connection

from .support import GOOD_ENV, ROOT, production


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _test_database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


class _Web:
    def __init__(self, env: dict[str, str]) -> None:
        self.port = _free_port()
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LOG_"))}
        self.proc = subprocess.Popen(
            # as the image runs it: no access log of Daphne's own (schedlab.access instead)
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
            + ["--verbosity", "0", "schedlab.asgi:application"],
            cwd=ROOT,
            env={**clean, "DJANGO_SETTINGS_MODULE": "schedlab.settings.production", **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stdout = self.stderr = ""
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"daphne did not start: {self.stderr}") from None
                time.sleep(0.1)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        if self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.stdout, self.stderr = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.stdout, self.stderr = self.proc.communicate()


def _probe(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return production("-m", "schedlab.probe", *args, env=env)


@pytest.fixture
def web(transactional_db) -> Iterator[_Web]:
    server = _Web(
        {**GOOD_ENV, "DATABASE_URL": _test_database_url(), "REDIS_URL": "redis://127.0.0.1:6379/0"}
    )
    yield server
    server.stop()


def test_a_ready_server_answers_probes_by_ip_over_plain_http(web):
    assert _get(web.url("/livez")) == (200, b'{"status": "ok"}')
    status, body = _get(web.url("/readyz"))
    assert status == 200
    assert json.loads(body) == {"status": "ok", "database": "ok", "redis": "ok"}
    # Django itself refuses that host: the probes really are answered in front of it.
    assert _get(web.url("/healthz"))[0] == 400
    result = _probe("web", "--port", str(web.port), env=GOOD_ENV)
    assert result.returncode == 0, result.stdout
    assert result.stdout.startswith("web: healthy: ")

    # Requests are logged as JSON records on stderr, probes are not; stdout stays empty.
    web.stop()
    assert web.stdout == ""
    lines = web.stderr.splitlines()
    assert all(line.startswith("{") for line in lines), web.stderr
    records = [json.loads(line) for line in lines]
    access = [r for r in records if r["logger"] == "schedlab.access"]
    assert [(r["method"], r["path"], r["status"]) for r in access] == [("GET", "/healthz", 400)]
    assert access[0]["message"].startswith("GET /healthz 400 ")
    assert access[0]["client"] == "127.0.0.1" and access[0]["duration_ms"] >= 0


def test_a_server_without_its_database_is_alive_but_not_ready(transactional_db):
    web = _Web({**GOOD_ENV, "DATABASE_URL": f"postgres://nobody@127.0.0.1:{_free_port()}/x"})
    try:
        assert _get(web.url("/livez"))[0] == 200
        status, body = _get(web.url("/readyz"))
        assert status == 503
        answer = json.loads(body)
        assert answer["status"] == "unavailable"
        assert answer["database"] == "error: OperationalError"  # the type, never the DSN
        assert answer["redis"].startswith("error: ")
        result = _probe("web", "--port", str(web.port), env=GOOD_ENV)
        assert result.returncode == 1
        assert "web: unhealthy: " in result.stdout and "HTTP 503" in result.stdout
    finally:
        web.stop()
    result = _probe("web", "--port", str(web.port), env=GOOD_ENV)
    assert result.returncode == 1 and "Connection refused" in result.stdout


def test_the_mirror_probe_checks_the_database(transactional_db):
    result = _probe("mirror", env={**GOOD_ENV, "DATABASE_URL": _test_database_url()})
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "mirror: healthy: database ok"
    down = {**GOOD_ENV, "DATABASE_URL": f"postgres://nobody@127.0.0.1:{_free_port()}/x"}
    result = _probe("mirror", env=down)
    assert result.returncode == 1
    assert result.stdout.strip() == "mirror: unhealthy: database error: OperationalError"


def test_the_worker_probe_pings_its_own_node_only():
    node = f"probe-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    env = {**GOOD_ENV, "REDIS_URL": "redis://127.0.0.1:6379/0"}
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LOG_"))}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "schedlab", "worker", "--pool=solo", "-n", node]
        # its own queue: it must take no task of anyone else's on this Redis
        + ["--queues", node.partition("@")[0], "--without-gossip", "--without-mingle"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "schedlab.settings.production", **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in worker.stderr:  # type: ignore[union-attr]
            lines.append(line)
            if f"{node} ready." in line:
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(60), "".join(lines)
        result = _probe("worker", "--node", node, env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.strip() == f"worker: healthy: {node}: pong"
    finally:
        worker.terminate()
        worker.wait(20)
        reader.join(5)
    # The worker logs through Django's LOGGING: JSON lines, INFO included.
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert any(r["message"] == f"{node} ready." for r in records), "".join(lines)
    result = _probe("worker", "--node", node, env=env)
    assert result.returncode == 1
    assert result.stdout.strip() == f"worker: unhealthy: {node}: no reply within 4s"
