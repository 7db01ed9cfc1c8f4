"""The heartbeat of running work (a dry-run, a study run), written by a small process.

A thread of the worker could not be relied on: decoding and building 160,000
pods holds the worker's GIL for seconds at a time, and on a loaded machine the
thread went 20 s without writing, so a live run was taken for lost. The beat
process (``dashboard/beat.py``: the standard library and the database driver,
no Django) shares no GIL with the run. It lives as long as the process that
runs the work: that process holds the write end of its stdin, and the kernel
closes it when that process ends, however it ends (SIGKILL and the OOM killer
included), so a lost worker still stops beating at once.

It stamps ``heartbeat_at`` (``dashboard.stamps.Worked``) of one row only while
the row still matches what the caller gives (``running``, on this attempt or
this worker), so a superseded attempt cannot keep another's run looking alive.
Where the process cannot be started, a thread beats instead.
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
from dashboard.stamps import Worked

__all__ = ["Heartbeat"]

log = logging.getLogger(__name__)

BEAT_PROGRAM = Path(__file__).resolve().parent / "beat.py"


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


def _beat_config(row: Worked, where: dict[str, Any]) -> dict[str, Any] | None:
    params = _connect_params()
    if params is None:
        return None
    mark = "%s" if connection.vendor == "postgresql" else "?"
    meta = row._meta
    column = meta.get_field("heartbeat_at").column
    conditions = [(meta.pk.column, row.pk)]
    conditions += [(meta.get_field(f).column, v) for f, v in where.items()]
    sql = f'UPDATE "{meta.db_table}" SET "{column}" = {mark} WHERE ' + " AND ".join(
        f'"{c}" = {mark}' for c, _ in conditions
    )
    return {
        "vendor": connection.vendor,
        "params": params,
        "sql": sql,
        "args": [v for _, v in conditions],
        "interval": conf.heartbeat_seconds(),
        "parent": os.getpid(),
    }


class Heartbeat:
    """Beats every ``SCHEDLAB_DRYRUN_HEARTBEAT_SECONDS`` while the ``with`` block runs.

    ``Heartbeat(run, status="running", attempts=2)`` stamps ``run``'s row while its
    ``status`` and ``attempts`` are still those.
    """

    def __init__(self, row: Worked, **where: Any) -> None:
        self.row = row
        self.where = where
        self.name = f"{row._meta.label_lower} {row.pk}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> Heartbeat:
        try:
            self.proc = self._spawn()
        except (OSError, ValueError) as exc:
            log.warning("%s: no heartbeat process (%s); beating from a thread", self.name, exc)
            self.proc = None
        if self.proc is None:
            self.thread = threading.Thread(target=self._beat, name=f"{self.name} beat", daemon=True)
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
        config = _beat_config(self.row, self.where)
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
        ours = type(self.row)._default_manager.filter(pk=self.row.pk, **self.where)
        try:
            while not self.stop.wait(conf.heartbeat_seconds()):
                try:
                    ours.update(heartbeat_at=timezone.now())
                except Exception:  # the database may be away a moment: beat again next time
                    log.warning("%s: heartbeat failed", self.name, exc_info=True)
                    connection.close()  # this thread's: the next beat connects afresh
        finally:
            connection.close()
