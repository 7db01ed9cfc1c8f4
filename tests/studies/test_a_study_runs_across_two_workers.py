"""A small study fans out over two real worker processes; results, export and cancel."""

from __future__ import annotations

import csv
import io
import socket
import time
from datetime import datetime

import pytest

from schedlab.celery import app
from tests.support.fixtures import start_worker, stop_worker, wait_for, worker_name

from .traces import jsonl_trace, openb_trace


def _wait_until_answering(names: list[str], timeout: float = 60.0) -> None:
    wanted = {f"{n}@{socket.gethostname()}" for n in names}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        replies = app.control.ping(destination=sorted(wanted), timeout=0.5) or []
        if wanted <= {k for r in replies for k in r}:
            return
    raise AssertionError(f"workers {sorted(wanted)} did not answer within {timeout}s")


@pytest.fixture
def two_workers(worker):
    proc = start_worker(worker_name("second"))
    try:
        _wait_until_answering([worker_name("session"), worker_name("second")])
        yield worker, proc
    finally:
        stop_worker(proc)


def _poll(client, pk: int, timeout: float = 90.0) -> dict:
    return wait_for(
        lambda: client.get(f"/api/v1/studies/{pk}/").json(),
        lambda d: d["status"] in ("succeeded", "failed", "cancelled"),
        timeout,
    )


def test_a_study_of_two_traces_runs_on_both_workers(two_workers, operator, viewer):
    nodes_csv, pods_csv = openb_trace(nodes=5, pods=30)
    r = operator.post(
        "/api/v1/studies/",
        {
            "name": "small",
            "traces": [
                {"name": "made", "jsonl": jsonl_trace(nodes=8, pods=150)},
                {"name": "openb", "nodes_csv": nodes_csv, "pods_csv": pods_csv},
            ],
            "policies": ["default", "best-fit", "fgd"],
            "seeds": [1, 2],
            "percentages": [50, 100],
        },
        format="json",
    )
    assert r.status_code == 202, r.content
    created = r.json()
    assert created["runs_total"] == 2 * 3 * 2 * 2
    done = _poll(viewer, created["id"])
    assert done["status"] == "succeeded", done
    assert done["runs_done"] == 24
    started, finished = (datetime.fromisoformat(done[k]) for k in ("started_at", "finished_at"))
    assert started <= finished  # stamped when its first run started and its last one ended
    runs = done["runs"]
    assert [r["status"] for r in runs] == ["succeeded"] * 24
    workers = {r["worker"] for r in runs}
    # runs were spread over processes ("host:pid"; a prefork worker has several children)
    assert len(workers) >= 2, workers
    assert {(r["trace"], r["config_label"], r["seed"], r["percentage"]) for r in runs} == {
        (t, c, s, p)
        for t in ("made", "openb")
        for c in ("default", "best-fit", "fgd")
        for s in (1, 2)
        for p in (50, 100)
    }
    for run in runs:
        s = run["summary"]
        assert s["placed"] + s["failed"] == s["pods"] > 0
        assert s["seed"] == run["seed"]
        assert run["curve"] and all(0 <= p["unallocatedGpuPercent"] <= 100 for p in run["curve"])
    # the same run, replayed twice, is the same: seeds decide, not the worker
    by = {(r["trace"], r["config_label"], r["seed"], r["percentage"]): r for r in runs}
    a, b = by[("made", "fgd", 1, 100)], by[("made", "fgd", 2, 100)]
    assert a["summary"]["placed"] + a["summary"]["failed"] == a["summary"]["pods"]
    assert a["summary"]["policy"] == "fgd" and b["summary"]["tieBreak"] == "rank"

    text = viewer.get(f"/api/v1/studies/{created['id']}/export/?type=csv")
    assert text.status_code == 200 and text["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(text.content.decode())))
    assert len(rows) == 24 and {r["status"] for r in rows} == {"succeeded"}
    assert {float(r["unallocatedGpuPercentAt100"] or 0) >= 0 for r in rows} == {True}
    doc = viewer.get(f"/api/v1/studies/{created['id']}/export/?type=json").json()
    assert len(doc["runs"]) == 24 and doc["runs"][0]["curve"] == runs[0]["curve"]
    assert doc["spec"]["configs"] == ["default", "best-fit", "fgd"]


def test_a_cancelled_study_stops_and_keeps_what_finished(worker, operator):
    r = operator.post(
        "/api/v1/studies/",
        {
            "traces": [{"jsonl": jsonl_trace(nodes=60, pods=1500)}],
            "policies": ["fgd"],
            "seeds": list(range(10)),
        },
        format="json",
    )
    assert r.status_code == 202, r.content
    pk = r.json()["id"]
    wait_for(
        lambda: operator.get(f"/api/v1/studies/{pk}/").json(),
        lambda d: any(run["status"] == "running" for run in d["runs"]),
        60,
    )
    r = operator.post(f"/api/v1/studies/{pk}/cancel/")
    assert r.status_code == 202, r.content
    done = wait_for(
        lambda: operator.get(f"/api/v1/studies/{pk}/").json(),
        lambda d: all(run["status"] not in ("queued", "running") for run in d["runs"]),
        60,
    )
    assert done["status"] == "cancelled"
    statuses = [run["status"] for run in done["runs"]]
    assert statuses.count("cancelled") >= 9, statuses
    assert operator.post(f"/api/v1/studies/{pk}/cancel/").status_code == 409
