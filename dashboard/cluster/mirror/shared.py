"""What the threads of one mirror share: the cluster, the queue, the health, options."""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass

from django.conf import settings

from .backoff import Backoff
from .health import MirrorHealth
from .probe import ServerWake

__all__ = ["MirrorOptions", "MirrorShared"]


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
