"""A web server's PostgreSQL connections: bounded by its pool (DATABASE_POOL_SIZE) however
many requests arrive at once, and replaced when they are cut (pg_terminate_backend).

Only this test's own database is touched. The server runs the production settings under
`python -m schedlab.serve`, as docker-compose runs it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from rest_framework.authtoken.models import Token

from tests.support.pg import our_connections, terminate_our_connections

from .support import _OURS, GOOD_ENV, ROOT

HOST = "schedlab.example"
POOL = 3
APP = "schedlab-web-under-test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, path: str, token: str) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        headers={"Host": HOST, "Authorization": f"Token {token}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture
def server(transactional_db):
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    port = _free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
    env = {
        **clean,
        **GOOD_ENV,
        "DJANGO_SETTINGS_MODULE": "schedlab.settings.production",
        # named, so the pool's bound is checked on the server's connections alone
        "DATABASE_URL": (
            f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}?application_name={APP}"
        ),
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "SCHEDLAB_EXPLAIN_PREWARM": "0",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "schedlab.serve", "--processes", "1", "--db-pool", str(POOL)]
        + ["--port", str(port)]
        + ["--verbosity", "0", "schedlab.asgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    yield port
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _ready(port: int) -> str:
    user = User.objects.create(username="viewer-user")
    user.groups.add(Group.objects.get_or_create(name="viewer")[0])
    token = Token.objects.create(user=user).key
    deadline = time.monotonic() + 120
    while _get_or_none(port, token) != 200:
        assert time.monotonic() < deadline, "the server never answered 200"
        time.sleep(0.5)
    return token


def test_many_requests_at_once_share_the_pool(server):
    token = _ready(server)
    with ThreadPoolExecutor(30) as pool:
        statuses = list(pool.map(lambda _: _get(server, "/api/v1/clusters/", token), range(150)))
    assert statuses == [200] * 150
    # one connection per request thread would be 30 or more here
    # at least the pool's one kept connection: the name reached the server
    assert 1 <= our_connections(APP) <= POOL


def test_requests_after_the_connections_are_cut_are_answered(server):
    token = _ready(server)
    for _ in range(3):
        assert terminate_our_connections(), "the server held no connection to cut"
        # each request is answered on a fresh connection, none fails on the dead one
        assert [_get(server, "/api/v1/clusters/", token) for _ in range(3)] == [200, 200, 200]


def _get_or_none(port: int, token: str) -> int | None:
    try:
        return _get(port, "/api/v1/clusters/", token)
    except OSError:
        return None
