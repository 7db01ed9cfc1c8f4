"""The heartbeat of running work, as a process of its own (no Django, no GIL shared).

Started by the process that runs a dry-run or a study run (``heartbeat.py``), which
writes one JSON line on this program's stdin and keeps the pipe open::

    {"vendor": "postgresql" | "sqlite", "params": {...connect args...},
     "sql": "UPDATE ... SET heartbeat_at = %s WHERE ...", "args": [...],
     "interval": 5.0, "parent": 1234}

It runs ``sql`` with the current time first in ``args`` at once and then every
``interval`` seconds, until its stdin reaches its end: the parent closed it, or
the parent died (a SIGKILL too: the kernel closes the pipe). It also stops when
it is no longer the parent's child. A failed write is logged on stderr and
tried again at the next beat on a new connection.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from datetime import UTC, datetime
from typing import Any

__all__ = ["main"]


def _connect(vendor: str, params: dict[str, Any]) -> Any:
    if vendor == "postgresql":
        import psycopg

        return psycopg.connect(**params, autocommit=True)
    import sqlite3

    conn = sqlite3.connect(params["database"], timeout=5, isolation_level=None)
    return conn


def _now(vendor: str) -> Any:
    now = datetime.now(UTC)
    # Django keeps SQLite's datetimes as naive UTC text, str() of the datetime
    return now if vendor == "postgresql" else str(now.replace(tzinfo=None))


def _beat(conn: Any, config: dict[str, Any]) -> Any:
    """One write; returns the connection to use next time (None after a failure)."""
    vendor = config["vendor"]
    try:
        if conn is None:
            conn = _connect(vendor, config["params"])
        conn.execute(config["sql"], [_now(vendor), *config["args"]])
        return conn
    except Exception as exc:  # the database away a moment: a new connection next beat
        print(f"heartbeat: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        try:
            if conn is not None:
                conn.close()
        except Exception:
            pass
        return None


def _parent_gone(stdin: Any, parent: int, wait: float) -> bool:
    """Wait up to ``wait`` seconds; True once the pipe from the parent is closed."""
    if os.getppid() != parent:
        return True
    ready, _, _ = select.select([stdin], [], [], max(0.0, wait))
    return bool(ready) and not os.read(stdin.fileno(), 4096)


def main() -> int:
    # Ctrl-C reaches the whole process group; this process ends with its parent instead
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stdin = sys.stdin
    line = stdin.readline()
    if not line:
        return 0
    config = json.loads(line)
    interval = float(config["interval"])
    conn = None
    next_beat = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= next_beat:
            conn = _beat(conn, config)
            next_beat = now + interval
        if _parent_gone(stdin, int(config["parent"]), next_beat - time.monotonic()):
            break
    if conn is not None:
        conn.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
