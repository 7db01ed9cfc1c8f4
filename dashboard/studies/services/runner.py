"""Run one study run on a worker: claim it, replay its trace, store summary and curve.

A run checks every ``PROGRESS_INTERVAL`` seconds whether its study was
cancelled (and stops) and publishes its progress to the study's websocket
group; the last run to finish settles the study's status.  It beats
(``heartbeat_at``) from a process of its own (``dashboard/heartbeat.py``, as
dry-runs do), so a replay holding the GIL does not look lost.  A run left
running by a lost worker (no beat for ``SCHEDLAB_STUDY_STALE_SECONDS``) is run
anew when its task is delivered again (the task is acknowledged late and
rejected when its worker is lost).
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
from collections import OrderedDict
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from dashboard import conf
from dashboard.cluster.services import broadcast
from dashboard.dryruns.services.profiles import parse_config
from dashboard.heartbeat import Heartbeat
from scheduler_engine.config import load_config
from scheduler_engine.plugins.gpupolicies.fragmentation import TypicalPod
from scheduler_engine.replay import (
    ReplayOptions,
    Trace,
    replay,
    trace_typical_pods,
    with_percentage_of_nodes_to_score,
    with_typical_pods,
)

from ..models import FINISHED, Status, Study, StudyRun
from .traces import load_trace

__all__ = ["PROGRESS_INTERVAL", "publish", "run_study_run", "study_group"]

PROGRESS_INTERVAL = 0.5
# parsed traces a worker process keeps: a study's runs share few traces, and
# reading an openb trace costs more than a small replay (StudyTrace rows never change)
TRACE_CACHE_SIZE = 4
_traces: OrderedDict[str, tuple[Trace, list[TypicalPod]]] = OrderedDict()


class _Cancelled(Exception):
    pass


def study_group(study_id: int) -> str:
    return f"study-{study_id}"


def publish(study: Study, run: StudyRun | None, **fields: Any) -> None:
    message: dict[str, Any] = {
        "type": "study.progress",
        "id": study.pk,
        "status": study.status,
        "runsDone": study.runs_done,
        "runsTotal": study.runs_total,
    }
    if run is not None:
        message["run"] = {"index": run.index, "status": run.status, "worker": run.worker, **fields}
    broadcast.publish([study_group(study.pk)], message)


def _claim(run_id: int) -> StudyRun | None:
    with transaction.atomic():
        run = (
            StudyRun.objects.select_for_update()
            .select_related("study", "trace")
            .filter(pk=run_id)
            .first()
        )
        now = timezone.now()
        stale = now - timedelta(seconds=conf.study_stale_seconds())
        lost = (
            run is not None
            and run.status == Status.RUNNING
            and (run.heartbeat_at is None or run.heartbeat_at < stale)
        )
        if run is None or (run.status != Status.QUEUED and not lost):
            return None
        if run.study.status == Status.CANCELLED:
            run.status, run.finished_at = Status.CANCELLED, now
            run.save(update_fields=["status", "finished_at"])
            return None
        run.status, run.started_at, run.heartbeat_at = Status.RUNNING, now, now
        run.worker = f"{socket.gethostname()}:{os.getpid()}"
        run.save(update_fields=["status", "started_at", "heartbeat_at", "worker"])
        Study.objects.filter(pk=run.study_id, status=Status.QUEUED).update(
            status=Status.RUNNING, started_at=now
        )
    run.study.refresh_from_db()
    publish(run.study, run, progress=0.0)
    return run


def _trace(run: StudyRun) -> tuple[Trace, list[TypicalPod]]:
    """The run's trace and its typical pods, parsed once per worker process.

    Keyed by the text's digest; replays never change a trace (they schedule copies
    of its pods).
    """
    t = run.trace
    digest = hashlib.sha256()
    for part in (t.format, t.nodes_text, "\0", t.pods_text):
        digest.update(part.encode())
    key = digest.hexdigest()
    hit = _traces.get(key)
    if hit is not None:
        _traces.move_to_end(key)
        return hit
    trace = load_trace(t.format, t.nodes_text, t.pods_text)
    _traces[key] = (trace, trace_typical_pods(trace))
    while len(_traces) > TRACE_CACHE_SIZE:
        _traces.popitem(last=False)
    return _traces[key]


def _config(run: StudyRun) -> tuple[Any, str | None]:
    c = run.study.spec["configs"][run.config_index]
    if "text" in c:
        config = parse_config(c["text"])
    else:
        config = load_config(c["document"], file=c["label"], **conf.engine_config_kwargs())
    return with_percentage_of_nodes_to_score(config, run.percentage), c.get("policy")


def _settle(run: StudyRun, **fields: Any) -> None:
    """Store the run's end and, if it was the last, the study's."""
    now = timezone.now()
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=run.study_id)
        StudyRun.objects.filter(pk=run.pk).update(finished_at=now, **fields)
        done = StudyRun.objects.filter(study=study, status__in=FINISHED).count()
        study.runs_done = done
        update = ["runs_done"]
        if done >= study.runs_total and study.status not in FINISHED:
            statuses = set(
                StudyRun.objects.filter(study=study).values_list("status", flat=True).distinct()
            )
            study.status = Status.SUCCEEDED if Status.SUCCEEDED in statuses else Status.FAILED
            study.finished_at = now
            update += ["status", "finished_at"]
        study.save(update_fields=update)
    run.status = fields["status"]
    publish(study, run, progress=1.0, summary=fields.get("summary"))


def _replay(run: StudyRun, progress: Any) -> dict[str, Any]:
    trace, typical = _trace(run)
    config, policy = _config(run)
    config = with_typical_pods(config, typical)
    spec = run.study.spec
    options = ReplayOptions(
        mode=spec["mode"],
        inflate=spec["inflate"],
        seed=run.seed,
        tie_break="rank" if policy else "random",
        policy=policy,
    )
    return replay(
        trace, config, options, registry=conf.engine_registry(), typical=typical, progress=progress
    )


def run_study_run(run_id: int) -> str | None:
    """Replay one run; the status it ended with (None when it was not ours to run)."""
    run = _claim(run_id)
    if run is None:
        return None
    study = run.study
    last = [time.monotonic()]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < PROGRESS_INTERVAL:
            return
        last[0] = now
        status = Study.objects.filter(pk=study.pk).values_list("status", flat=True).first()
        if status == Status.CANCELLED:
            raise _Cancelled
        pct = done / total if total else 1.0
        StudyRun.objects.filter(pk=run.pk).update(progress=pct)
        publish(study, run, progress=round(pct, 4))

    try:
        # beating while the trace is read too: a large one holds the GIL for a while
        with Heartbeat(run, status=Status.RUNNING, worker=run.worker):
            doc = _replay(run, progress)
    except _Cancelled:
        _settle(run, status=Status.CANCELLED)
        return Status.CANCELLED
    except Exception as exc:  # a run's failure is recorded; the others go on
        _settle(run, status=Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000])
        return Status.FAILED
    _settle(run, status=Status.SUCCEEDED, progress=1.0, summary=doc["summary"], curve=doc["curve"])
    return Status.SUCCEEDED
