"""Production processes log one JSON object per line; LOG_FORMAT=plain is for people."""

from __future__ import annotations

import json

from .support import GOOD_ENV, production

LOG_SOMETHING = """
import logging, django
django.setup()
log = logging.getLogger("dashboard.cluster.mirror")
log.warning("cluster %s: watch ended", "gpu-a", extra={"cluster": "gpu-a"})
try:
    1 / 0
except ZeroDivisionError:
    log.exception("writer failed")
logging.getLogger("celery.worker").info("ready")
"""


def test_each_record_is_one_json_object():
    result = production("-c", LOG_SOMETHING, env=GOOD_ENV)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stderr.splitlines()]
    assert [r["message"] for r in records] == [
        "cluster gpu-a: watch ended",
        "writer failed",
        "ready",
    ]
    warning, error, info = records
    assert warning["level"] == "WARNING" and warning["logger"] == "dashboard.cluster.mirror"
    assert warning["cluster"] == "gpu-a"  # extra fields are kept as fields
    assert warning["time"].endswith("+00:00")  # ISO 8601, UTC
    assert error["level"] == "ERROR" and "ZeroDivisionError" in error["exc_info"]
    assert info["logger"] == "celery.worker"


def test_the_level_and_format_are_settable():
    result = production("-c", LOG_SOMETHING, env={**GOOD_ENV, "LOG_LEVEL": "ERROR"})
    assert [json.loads(line)["level"] for line in result.stderr.splitlines()] == ["ERROR"]
    result = production("-c", LOG_SOMETHING, env={**GOOD_ENV, "LOG_FORMAT": "plain"})
    assert (
        " WARNING dashboard.cluster.mirror: cluster gpu-a: watch ended"
        in result.stderr.splitlines()[0]
    )


def test_an_unknown_format_is_refused_by_name():
    result = production("manage.py", "check", env={**GOOD_ENV, "LOG_FORMAT": "xml"})
    assert result.returncode == 2
    assert "LOG_FORMAT='xml': expected one of plain, json" in result.stderr
