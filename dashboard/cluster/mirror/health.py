"""Per-kind state shared by the informer threads, summarised into the cluster row."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from ..models import Cluster

__all__ = ["UNAVAILABLE", "MirrorHealth"]

# A kind's status when the API server does not serve it (a 404 for the collection,
# e.g. resource.k8s.io on a cluster without DRA): not an error, nothing to mirror.
UNAVAILABLE = "unavailable"


@dataclass(slots=True)
class _KindState:
    status: str = Cluster.MirrorStatus.CONNECTING
    error: str = ""
    resource_version: str = ""


class MirrorHealth:
    def __init__(self, kind_keys: list[str]) -> None:
        self._lock = threading.Lock()
        self._kinds = {k: _KindState() for k in kind_keys}
        self.version = 0  # bumped on every change so the writer knows when to save
        self.last_event_wall: float | None = None
        self.last_sync_wall: float | None = None
        self.last_error_wall: float | None = None

    def set(self, kind: str, status: str, error: str = "") -> None:
        with self._lock:
            state = self._kinds[kind]
            if state.status != status or state.error != error:
                state.status, state.error = status, error
                if error:
                    self.last_error_wall = time.time()
                self.version += 1

    def synced(self, kind: str, resource_version: str) -> None:
        with self._lock:
            self._kinds[kind].resource_version = resource_version
            self.last_sync_wall = time.time()
            self.version += 1

    def event(self, kind: str, resource_version: str) -> None:
        with self._lock:
            if resource_version:
                self._kinds[kind].resource_version = resource_version
            self.last_event_wall = time.time()

    def bookmark(self, kind: str, resource_version: str) -> None:
        with self._lock:
            if resource_version:
                self._kinds[kind].resource_version = resource_version

    def summary(self) -> dict:
        """Cluster-level status: error beats syncing beats connecting beats watching.

        Kinds the server does not serve count as neither; they are listed in
        ``unavailable_kinds``.
        """
        with self._lock:
            states = list(self._kinds.items())
        errors = [f"{k}: {s.error}" for k, s in states if s.status == Cluster.MirrorStatus.ERROR]
        statuses = {s.status for _, s in states}
        for status in (
            Cluster.MirrorStatus.ERROR,
            Cluster.MirrorStatus.CONNECTING,
            Cluster.MirrorStatus.SYNCING,
        ):
            if status in statuses:
                break
        else:
            status = Cluster.MirrorStatus.WATCHING
        return {
            "mirror_status": status,
            "connected": not errors and status != Cluster.MirrorStatus.CONNECTING,
            "last_error": "; ".join(errors),
            "resource_versions": {k: s.resource_version for k, s in states},
            "unavailable_kinds": sorted(k for k, s in states if s.status == UNAVAILABLE),
        }
