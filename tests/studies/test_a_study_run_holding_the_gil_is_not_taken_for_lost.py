"""A study run whose replay holds the GIL longer than the lost-worker threshold keeps beating.

Study runs beat from the same process of their own as dry-runs
(``dashboard/heartbeat.py``), so a long C-level step in the worker (a plugin's
PreScore holding the GIL for HOLD seconds, longer than STALE) does not make a
live run look lost. The test process plays the broker delivering the task
again, all along: it tries to claim the run, which succeeds only for a run
whose beat is older than STALE.
"""

from __future__ import annotations

import os
import time

from django.test import override_settings

from dashboard.studies.models import Status, Study, StudyRun, StudyTrace
from dashboard.studies.services import runner
from dashboard.studies.tasks import run_study_run_task
from tests.support.fixtures import start_worker, stop_worker
from tests.support.gil_holder import profile, worker_env

from .traces import jsonl_trace

# STALE leaves the beat process time to start on a loaded machine; HOLD is well past it
STALE = 8.0
HOLD = 12


def _study_run() -> StudyRun:
    spec = {
        "configs": [{"label": "gil", "policy": None, "text": profile(HOLD)}],
        "seeds": [1],
        "percentages": [100],
        "mode": "inflate",
        "inflate": 1.0,
    }
    study = Study.objects.create(name="gil", spec=spec, runs_total=1)
    trace = StudyTrace.objects.create(
        study=study, index=0, name="t", format="jsonl", pods_text=jsonl_trace(nodes=6, pods=30)
    )
    return StudyRun.objects.create(
        study=study,
        index=0,
        trace=trace,
        config_index=0,
        config_label="gil",
        seed=1,
        percentage=100,
    )


@override_settings(SCHEDLAB_STUDY_STALE_SECONDS=STALE)
def test_a_study_run_holding_the_gil_past_the_threshold_is_not_taken_over(transactional_db):
    queue = f"study-gil-holder-{os.getpid()}"
    run = _study_run()
    worker = start_worker(
        queue=queue,
        env=worker_env(SCHEDLAB_STUDY_STALE_SECONDS=str(STALE)),
    )
    taken_over = None
    try:
        run_study_run_task.apply_async((run.pk,), queue=queue)
        started = time.monotonic()
        while time.monotonic() - started < 120:
            run.refresh_from_db()
            if run.status in (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED):
                break
            if run.status == Status.RUNNING:
                # what a second delivery of the task does first
                beat = run.heartbeat_at
                taken_over = runner._claim(run.pk)
                if taken_over is not None:
                    taken_over = f"last beat {beat}, started {run.started_at}"
                    break
            time.sleep(0.2)
    finally:
        stop_worker(worker)
    assert taken_over is None, f"a live run was taken for lost: {taken_over}"
    assert run.status == Status.SUCCEEDED, run.error
    started_at, finished_at = run.started_at, run.finished_at
    assert (finished_at - started_at).total_seconds() >= HOLD  # the hold happened inside it
