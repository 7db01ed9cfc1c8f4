"""A real worker process, through the real Redis broker, against the test database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from dashboard.cluster.tasks import cluster_object_count, import_snapshot_task
from tests.support.fixtures import SMALL_CLUSTER


@pytest.fixture
def worker(transactional_db):
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "schedlab.settings.test",
        "SCHEDLAB_TEST_ID": settings.TEST_ID,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "schedlab",
            "worker",
            "--pool=solo",
            "--loglevel=WARNING",
        ],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    yield proc
    proc.terminate()
    proc.wait(timeout=20)


def test_a_worker_imports_a_snapshot_and_reads_it_back(worker):
    counts = import_snapshot_task.delay(str(SMALL_CLUSTER), "via-celery").get(timeout=60)
    assert counts["nodes"] == 2
    assert cluster_object_count.delay("via-celery").get(timeout=30) == 7
