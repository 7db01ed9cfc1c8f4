"""A running dry-run's heartbeat, written by a small process of its own.

A thread of the worker could not be relied on: decoding and building 160,000
pods holds the worker's GIL for seconds at a time, and on a loaded machine the
thread went 20 s without writing, so a live run was taken for lost. The beat
process (``dashboard/dryruns/beat.py``: the standard library and the database
driver, no Django) shares no GIL with the run. It lives as long as the process
that runs the dry-run: that process holds the write end of its stdin, and the
kernel closes it when that process ends, however it ends (SIGKILL and the OOM
killer included), so a lost worker still stops beating at once.

It beats only while the row is ``running`` on this attempt, so a superseded
attempt cannot keep another attempt's run looking alive. Where the process
cannot be started, a thread beats instead, as before.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from django.db import connection
from django.utils import timezone

from dashboard import conf

from ..models import DryRun

__all__ = ["Heartbeat"]

log = logging.getLogger(__name__)

BEAT_PROGRAM = Path(__file__).resolve().parents[1] / "beat.py"


def _connect_params() -> dict[str, Any] | None:
    """What the beat process needs to connect as this process does; None if unsupported."""
    vendor = connection.vendor
    if vendor == "sqlite":
        return {"database": str(connection.settings_dict["NAME"])}
    if vendor != "postgresql":
        return None
    params = connection.get_connection_params()
    # only what crosses a JSON pipe: names, host, port, password, sslmode, timeouts
    keep = {k: v for k, v in params.items() if isinstance(v, str | int | float | bool)}
    keep.setdefault("connect_timeout", 5)
    return keep


def _beat_config(run: DryRun) -> dict[str, Any] | None:
    params = _connect_params()
    if params is None:
        return None
    mark = "%s" if connection.vendor == "postgresql" else "?"
    meta = DryRun._meta
    col = {f: meta.get_field(f).column for f in ("status", "attempts", "heartbeat_at")}
    col["pk"] = meta.pk.column
    sql = (
        f'UPDATE "{meta.db_table}" SET "{col["heartbeat_at"]}" = {mark} '
        f'WHERE "{col["pk"]}" = {mark} AND "{col["status"]}" = {mark} '
        f'AND "{col["attempts"]}" = {mark}'
    )
    return {
        "vendor": connection.vendor,
        "params": params,
        "sql": sql,
        "args": [run.pk, DryRun.Status.RUNNING, run.attempts],
        "interval": conf.heartbeat_seconds(),
        "parent": os.getpid(),
    }


class Heartbeat:
    """Beats every ``SCHEDLAB_DRYRUN_HEARTBEAT_SECONDS`` while the ``with`` block runs."""

    def __init__(self, run: DryRun) -> None:
        self.run = run
        self.proc: subprocess.Popen[bytes] | None = None
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        try:
            self.proc = self._spawn()
        except (OSError, ValueError) as exc:
            log.warning(
                "dry-run %s: no heartbeat process (%s); beating from a thread", self.run.pk, exc
            )
            self.proc = None
        if self.proc is None:
            self.thread = threading.Thread(
                target=self._beat, name=f"dryrun-{self.run.pk}-beat", daemon=True
            )
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.stdin.close()  # type: ignore[union-attr]  # its end: the process stops
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.thread is not None:
            self.stop.set()
            self.thread.join(timeout=10)

    def _spawn(self) -> subprocess.Popen[bytes] | None:
        config = _beat_config(self.run)
        if config is None:
            return None
        # -P: nothing beside beat.py shadows a module it imports
        proc = subprocess.Popen(
            [sys.executable, "-P", str(BEAT_PROGRAM)], stdin=subprocess.PIPE, close_fds=True
        )
        try:
            proc.stdin.write(json.dumps(config).encode() + b"\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]
        except OSError:
            proc.kill()
            proc.wait()
            raise
        return proc

    def _beat(self) -> None:
        ours = DryRun.objects.filter(
            pk=self.run.pk, status=DryRun.Status.RUNNING, attempts=self.run.attempts
        )
        try:
            while not self.stop.wait(conf.heartbeat_seconds()):
                try:
                    ours.update(heartbeat_at=timezone.now())
                except Exception:  # the database may be away a moment: beat again next time
                    log.warning("dry-run %s: heartbeat failed", self.run.pk, exc_info=True)
                    connection.close()  # this thread's: the next beat connects afresh
        finally:
            connection.close()
