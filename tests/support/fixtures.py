"""Fixtures several test packages share: API clients per role, the demo cluster, a Celery worker.

A package's conftest imports the fixtures it uses from here.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

import benchmarks.common
from dashboard.cluster.models import Cluster
from dashboard.cluster.services.snapshots import import_snapshot

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "scheduler_engine" / "demo" / "gpu-cluster.yaml"
# `kubectl get -o yaml` of a tiny GPU cluster: two nodes, two pods, a PDB, a ConfigMap
SMALL_CLUSTER = Path(__file__).parent / "small-cluster.yaml"

DEFAULT_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
"""

BIN_PACKING_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
        - {name: nvidia.com/gpu, weight: 5}
"""


def client_for(role: str | None) -> APIClient:
    client = APIClient()
    if role is None:
        return client
    user, _ = User.objects.get_or_create(username=f"{role}-user")
    # transactional tests truncate auth_group, so the migration's groups may be gone
    group, _ = Group.objects.get_or_create(name=role)
    user.groups.add(group)
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def viewer(db) -> APIClient:
    return client_for("viewer")


@pytest.fixture
def operator(db) -> APIClient:
    return client_for("operator")


@pytest.fixture
def admin(db) -> APIClient:
    return client_for("admin")


@pytest.fixture
def demo_cluster(db) -> Cluster:
    return import_snapshot(DEMO, "demo").cluster


def wait_for(
    fetch: Callable[[], dict[str, Any]], done: Callable[[dict[str, Any]], bool], timeout: float
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    last: dict[str, Any] = {}
    while time.monotonic() < deadline:
        last = fetch()
        if done(last):
            return last
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout}s; last: {last}")


def poll_dry_run(client: APIClient, run_id: int, timeout: float = 60.0) -> dict[str, Any]:
    return wait_for(
        lambda: client.get(f"/api/v1/dry-runs/{run_id}/").json(),
        lambda d: d.get("status") in ("succeeded", "failed", "cancelled"),
        timeout,
    )


def start_worker(
    name: str | None = None, *, queue: str | None = None, env: Mapping[str, str] | None = None
) -> subprocess.Popen:
    """A real worker process on the test database: named ``name@host`` when ``name`` is
    given; on ``queue`` (else this process's queue); ``env`` added to its environment."""
    db = connection.settings_dict
    full = {
        "DJANGO_SETTINGS_MODULE": "schedlab.settings.test",
        "SCHEDLAB_TEST_ID": settings.TEST_ID,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        **(env or {}),
    }
    if queue is not None:
        full["SCHEDLAB_TEST_QUEUE"] = queue
    return benchmarks.common.start_worker(queue, name, full, heartbeat=False)


def stop_worker(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def worker_name(role: str) -> str:
    """A worker name no other test run on this machine uses."""
    return f"schedlab-test-{settings.TEST_ID}-{role}"


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker) -> Iterator[subprocess.Popen]:
    """One real worker for the session, on this process's queue and test database."""
    proc = start_worker(worker_name("session"))
    yield proc
    stop_worker(proc)


@pytest.fixture
def worker(celery_worker, transactional_db) -> subprocess.Popen:
    """The session's worker, with this test's data committed where it can see it."""
    assert celery_worker.poll() is None, "the Celery worker exited"
    return celery_worker
