"""What the threads of one mirror share: the cluster, the queue, the health, options."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass

from django.conf import settings

from .backoff import Backoff
from .health import MirrorHealth

__all__ = ["MirrorOptions", "MirrorShared", "ServerWake"]


class ServerWake:
    """A generation counter informers wait on; bumped when the server is back."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._generation = 0

    @property
    def generation(self) -> int:
        with self._cond:
            return self._generation

    def bump(self) -> None:
        with self._cond:
            self._generation += 1
            self._cond.notify_all()

    def wait(self, since: int, timeout: float, stop: threading.Event) -> None:
        """Until the generation moves past ``since``, ``timeout`` passes or ``stop`` is set."""
        with self._cond:
            self._cond.wait_for(
                lambda: self._generation != since or stop.is_set(), timeout=max(0.0, timeout)
            )


@dataclass(frozen=True, slots=True)
class MirrorOptions:
    page_size: int = 500
    resync_seconds: float = 600.0
    watch_timeout: int = 300
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    batch_seconds: float = 0.05
    queue_size: int = 64
    # /readyz every probe_fast seconds while kinds fail, every probe_slow otherwise
    probe_fast: float = 0.5
    probe_slow: float = 5.0
    # the cluster row's heartbeat_at is written at least this often
    heartbeat_seconds: float = 5.0

    @classmethod
    def from_settings(cls) -> MirrorOptions:
        return cls(
            page_size=settings.MIRROR_PAGE_SIZE,
            resync_seconds=settings.MIRROR_RESYNC_SECONDS,
            watch_timeout=settings.MIRROR_WATCH_TIMEOUT,
            backoff_base=settings.MIRROR_BACKOFF_BASE,
            backoff_max=settings.MIRROR_BACKOFF_MAX,
            batch_seconds=settings.MIRROR_BATCH_SECONDS,
            heartbeat_seconds=settings.MIRROR_HEARTBEAT_SECONDS,
        )


@dataclass(frozen=True, slots=True)
class MirrorShared:
    """Handed to the writer and every informer of one mirror."""

    cluster_id: int
    cluster_name: str
    queue: queue.Queue  # informers put, the writer gets
    health: MirrorHealth
    stop: threading.Event
    options: MirrorOptions
    wake: ServerWake

    def backoff(self) -> Backoff:
        """A fresh backoff for one thread."""
        return Backoff(self.options.backoff_base, self.options.backoff_max)
