"""Celery tasks: primitive ids in, one service call each; and the worker's reaper thread.

Every worker reaps dry-runs whose worker died (no heartbeat for
``SCHEDLAB_DRYRUN_STALE_SECONDS``) every ``SCHEDLAB_DRYRUN_REAP_SECONDS``: no
beat process is needed, and several workers reaping at once is harmless (one
guarded UPDATE).  The ``dryruns.reap_stale`` task stays for a beat schedule
or a manual kick.
"""

from __future__ import annotations

import logging
import threading

from celery import shared_task
from celery.signals import worker_ready, worker_shutdown
from django.db import close_old_connections

from dashboard import conf

from .services.runner import reap_stale_runs, run_dry_run

log = logging.getLogger(__name__)

_stop = threading.Event()


@shared_task(acks_late=True, reject_on_worker_lost=True, name="dryruns.run")
def run_dry_run_task(dry_run_id: int) -> str | None:
    return run_dry_run(dry_run_id)


def reap() -> int:
    """Reap lost runs, sending those with an attempt left back to this task's queue."""
    return reap_stale_runs(requeue=run_dry_run_task.delay)


@shared_task(name="dryruns.reap_stale")
def reap_stale_dry_runs() -> int:
    return reap()


def _reap_forever(interval: float) -> None:
    while not _stop.wait(interval):
        # the database may be away for a while: log it and try again next time
        # (closing a broken connection can fail too, and must not end the thread)
        try:
            n = reap()
            if n:
                log.warning("marked %d dry-run(s) whose worker stopped as failed", n)
        except Exception:
            log.exception("reaping stale dry-runs failed")
        try:
            close_old_connections()
        except Exception:
            log.exception("closing the reaper's database connection failed")


@worker_ready.connect
def _start_reaper(**_: object) -> None:
    interval = conf.reap_seconds()
    if interval > 0:
        _stop.clear()
        threading.Thread(
            target=_reap_forever, args=(interval,), name="dryrun-reaper", daemon=True
        ).start()


@worker_shutdown.connect
def _stop_reaper(**_: object) -> None:
    _stop.set()
