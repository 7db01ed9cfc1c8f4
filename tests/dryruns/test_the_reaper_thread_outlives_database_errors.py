"""The worker's reaper thread keeps reaping when the database fails under it.

A reap that raises, and closing the connection afterwards that raises (what a
connection broken mid-query can do), are logged; the thread goes on to the
next round. Before, an error from closing the connection ended the thread, and
the worker reaped nothing more until it was restarted.
"""

from __future__ import annotations

import threading

from django.db import OperationalError

from dashboard.dryruns import tasks


def test_errors_in_a_round_do_not_end_the_reaper(monkeypatch, caplog):
    rounds: list[int] = []
    done = threading.Event()

    def reap() -> int:
        rounds.append(len(rounds))
        if len(rounds) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        if len(rounds) >= 3:
            done.set()
        return 0

    closes: list[int] = []

    def close_old_connections() -> None:
        closes.append(len(closes))
        if len(closes) <= 2:
            raise OperationalError("connection already closed")

    monkeypatch.setattr(tasks, "reap", reap)
    monkeypatch.setattr(tasks, "close_old_connections", close_old_connections)
    tasks._stop.clear()
    thread = threading.Thread(target=tasks._reap_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        assert done.wait(10), f"the reaper stopped after {len(rounds)} round(s)"
        assert thread.is_alive()
    finally:
        tasks._stop.set()
        thread.join(5)
    assert not thread.is_alive()
    messages = [r.getMessage() for r in caplog.records]
    assert "reaping stale dry-runs failed" in messages
    assert "closing the reaper's database connection failed" in messages
