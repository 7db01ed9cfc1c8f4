"""Celery tasks of the studies: one run of a study per task, by id."""

from __future__ import annotations

from celery import shared_task

from .services.runner import run_study_run


@shared_task(acks_late=True, reject_on_worker_lost=True, name="studies.run")
def run_study_run_task(study_run_id: int) -> str | None:
    return run_study_run(study_run_id)
