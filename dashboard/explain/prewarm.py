"""Build every cluster's warm explanation state as soon as a web server process starts.

A web (ASGI) process builds it in a daemon thread right after start-up:
start-up never waits, failures are logged (the first request then builds it),
and a request that arrives during the build waits for it on the cluster's
lock: one build, never two. Celery workers do not: no task reads the warm
state. On when ``SCHEDLAB_EXPLAIN_PREWARM`` is; which processes and why:
``docs/explanations.md``.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time

from django.conf import settings
from django.db import connection

from dashboard import conf
from dashboard.cluster.models import Cluster
from scheduler_engine import default_config

from . import live

__all__ = ["enabled", "install", "is_web_process", "start", "wait"]

log = logging.getLogger(__name__)

_lock = threading.Lock()
_thread: threading.Thread | None = None
_pid: int | None = None  # the process that started _thread (a forked child starts its own)


def enabled() -> bool:
    return conf.explain_prewarm()


def is_web_process() -> bool:
    """Is this process an ASGI server loading the project's application?"""
    # Daphne, uvicorn, ... import schedlab.asgi, whose get_asgi_application()
    # sets Django up: the module is in sys.modules (half-imported) during ready().
    asgi_module = str(getattr(settings, "ASGI_APPLICATION", "schedlab.asgi.application"))
    if asgi_module.rpartition(".")[0] in sys.modules:
        return True
    # `manage.py runserver` serves from the autoreloader's child (RUN_MAIN) or itself
    argv = sys.argv
    return (
        len(argv) > 1
        and argv[1] == "runserver"
        and (os.environ.get("RUN_MAIN") == "true" or "--noreload" in argv)
    )


def start(reason: str) -> threading.Thread | None:
    """Start this process's prewarm thread; None if disabled or already started here."""
    global _thread, _pid
    if not enabled():
        return None
    with _lock:
        if _thread is not None and _pid == os.getpid():
            return None
        _pid = os.getpid()
        _thread = threading.Thread(target=_run, args=(reason,), name="explain-prewarm", daemon=True)
        _thread.start()
        return _thread


def wait(timeout: float | None = None) -> bool:
    """Wait for this process's prewarm thread; True when none runs any more."""
    thread = _thread if _pid == os.getpid() else None
    if thread is not None:
        thread.join(timeout)
        return not thread.is_alive()
    return True


def _run(reason: str) -> None:
    t0 = time.perf_counter()
    try:
        _import_plugins()
        clusters = list(Cluster.objects.order_by("pk"))
        for cluster in clusters:
            t1 = time.perf_counter()
            try:
                warm = live.warm_cluster(cluster)
            except Exception:
                log.exception("prewarming the explanation state of cluster %s failed", cluster.name)
                continue
            log.info(
                "explanations of cluster %s warm in %.1f s (%s)",
                cluster.name,
                time.perf_counter() - t1,
                ", ".join(f"{v} {k}" for k, v in warm.counts.items()),
            )
        log.info(
            "explanation prewarm (%s) done: %d cluster(s) in %.1f s",
            reason,
            len(clusters),
            time.perf_counter() - t0,
        )
    except Exception:  # the database may be away at start-up: requests build on demand
        log.exception("explanation prewarm (%s) failed", reason)
    finally:
        connection.close()  # this thread's own connection


def _import_plugins() -> None:
    """Import every plugin module and parse the default profile (~3 s of a cold request)."""
    conf.engine_registry()
    default_config()


def install() -> None:
    """Start the thread now if this process is a web server (workers never explain)."""
    if enabled() and is_web_process():
        start("web server")
