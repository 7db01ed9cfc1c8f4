"""The cyclic garbage collector kept off the millions of long-lived objects a load makes.

Decoding a frozen state and building its cluster allocate millions of small
containers that all survive; the collector walking them again and again was
most of the time, and walking them once more after the load (the first young
collections) ~5 s of CPU at 15,000 nodes (``docs/benchmarks.md``). Nothing
changes but when cycles are collected: whatever the paused code leaves behind
is collected once the last thread inside :func:`collector_paused` leaves it,
and what :func:`frozen_after` froze once ``gc.unfreeze()`` gives it back.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused", "frozen_after"]

# threads inside collector_paused(), and whether the collector was on when the first came
_paused = [0, False]
_lock = threading.Lock()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block, across threads (the last one out resumes it)."""
    with _lock:
        if _paused[0] == 0:
            _paused[1] = gc.isenabled()
            gc.disable()
        _paused[0] += 1
    try:
        yield
    finally:
        with _lock:
            _paused[0] -= 1
            if _paused[0] == 0 and _paused[1]:
                gc.enable()


@contextmanager
def frozen_after() -> Iterator[None]:
    """The block with the collector paused; then every object alive is frozen
    (``gc.freeze()``: out of the collector's sight until ``gc.unfreeze()``;
    reference counting still frees them). For a process about to work on what
    the block loaded, such as a worker running a dry-run."""
    with collector_paused():
        yield
        gc.freeze()
