"""Celery tasks: primitive ids in, one service call each."""

from __future__ import annotations

from celery import shared_task

from .services.dryruns import reap_stale_runs, run_dry_run


@shared_task(acks_late=True, reject_on_worker_lost=True, name="dryruns.run")
def run_dry_run_task(dry_run_id: int) -> str | None:
    return run_dry_run(dry_run_id)


@shared_task(name="dryruns.reap_stale")
def reap_stale_dry_runs() -> int:
    return reap_stale_runs()
