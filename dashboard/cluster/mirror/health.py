"""Per-kind state shared by the informer threads, summarised into the cluster row."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass

from ..models import Cluster

__all__ = ["MAX_ERROR_CHARS", "UNAVAILABLE", "MirrorHealth", "short_cause"]

# the cluster row's last_error stays a line a person reads, not every kind's traceback
MAX_ERROR_CHARS = 300

_CAUSES = (
    ("connection refused", re.compile(r"connection refused|errno 111", re.I)),
    ("connection reset", re.compile(r"connection reset|connection aborted|errno 104", re.I)),
    (
        "connection terminated",
        re.compile(r"terminating connection|server closed the connection", re.I),
    ),
    ("timed out", re.compile(r"timed? ?out", re.I)),
    ("name not resolved", re.compile(r"name or service not known|nodename nor servname", re.I)),
    ("connection closed", re.compile(r"remotedisconnected|protocolerror|incompleteread", re.I)),
)


def short_cause(error: str) -> str:
    """What went wrong in a few words: "connection refused", "HTTP 503 ...", ..."""
    for cause, pattern in _CAUSES:
        if pattern.search(error):
            return cause
    http = re.search(r"HTTP \d{3}[^;:]*", error)
    if http:
        return http.group(0).strip()[:80]
    return error.split(": ", 2)[-1][:80] if error else "error"


# A kind's status when the API server does not serve it (a 404 for the collection,
# e.g. resource.k8s.io on a cluster without DRA): not an error, nothing to mirror.
UNAVAILABLE = "unavailable"


@dataclass(slots=True)
class _KindState:
    status: str = Cluster.MirrorStatus.CONNECTING
    error: str = ""
    resource_version: str = ""
    # lists started by the informer / stored by the writer's database thread:
    # a kind counts as syncing until the rows of its latest list are in the database
    listed: int = 0
    stored: int = 0


class MirrorHealth:
    def __init__(self, kind_keys: list[str]) -> None:
        self._lock = threading.Lock()
        self._kinds = {k: _KindState() for k in kind_keys}
        self.version = 0  # bumped on every change so the writer knows when to save
        self.last_event_wall: float | None = None
        self.last_sync_wall: float | None = None
        self.last_error_wall: float | None = None
        # the API server's /readyz, asked by the readiness probe: None until first asked
        self.server_ready: bool | None = None
        self.server_detail = ""
        # the writer's last failed database write, "" once a write succeeds again
        self.database_error = ""

    def set(self, kind: str, status: str, error: str = "") -> None:
        with self._lock:
            state = self._kinds[kind]
            if state.status != status or state.error != error:
                state.status, state.error = status, error
                if error:
                    self.last_error_wall = time.time()
                self.version += 1

    def readiness(self, ready: bool, detail: str = "") -> None:
        with self._lock:
            if self.server_ready != ready or self.server_detail != detail:
                self.server_ready, self.server_detail = ready, detail
                if not ready:
                    self.last_error_wall = time.time()
                self.version += 1

    def database(self, error: str = "") -> None:
        """The writer's database writes fail with ``error``, or work again (``""``)."""
        with self._lock:
            if self.database_error != error:
                self.database_error = error
                if error:
                    self.last_error_wall = time.time()
                self.version += 1

    def failing(self) -> list[tuple[str, str]]:
        """(kind, error) of the kinds whose last attempt failed."""
        with self._lock:
            return [
                (k, s.error)
                for k, s in self._kinds.items()
                if s.status == Cluster.MirrorStatus.ERROR
            ]

    def list_started(self, kind: str) -> int:
        """A new list of ``kind`` begins; its number, for :meth:`list_stored`."""
        with self._lock:
            state = self._kinds[kind]
            state.listed += 1
            self.version += 1
            return state.listed

    def list_stored(self, kind: str, generation: int) -> None:
        """The database holds what list number ``generation`` of ``kind`` found."""
        with self._lock:
            state = self._kinds[kind]
            if generation > state.stored:
                state.stored = generation
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
        failing = [(k, s.error) for k, s in states if s.status == Cluster.MirrorStatus.ERROR]
        statuses = {
            Cluster.MirrorStatus.SYNCING
            if s.status == Cluster.MirrorStatus.WATCHING and s.stored < s.listed
            else s.status
            for _, s in states
        }
        for status in (
            Cluster.MirrorStatus.ERROR,
            Cluster.MirrorStatus.CONNECTING,
            Cluster.MirrorStatus.SYNCING,
        ):
            if status in statuses:
                break
        else:
            status = Cluster.MirrorStatus.WATCHING
        errors = _summarise(failing)
        if self.server_ready is False:
            # open watches may still deliver while the server shuts down: not healthy
            errors.insert(0, f"API server not ready ({self.server_detail or 'readyz failed'})")
            status = Cluster.MirrorStatus.ERROR
        if self.database_error:
            # rows are not being stored: what the pages show is falling behind
            errors.insert(0, f"database: {short_cause(self.database_error)}")
            status = Cluster.MirrorStatus.ERROR
        return {
            "mirror_status": status,
            "connected": not errors and status != Cluster.MirrorStatus.CONNECTING,
            "last_error": _clip("; ".join(errors)),
            "resource_versions": {k: s.resource_version for k, s in states},
            "unavailable_kinds": sorted(k for k, s in states if s.status == UNAVAILABLE),
        }


def _summarise(failing: list[tuple[str, str]]) -> list[str]:
    """Kinds grouped by cause: ``15 kinds: connection refused``, ``pods: HTTP 500 ...``."""
    by_cause: dict[str, list[str]] = {}
    for kind, error in failing:
        status, _, detail = error.partition(": ")
        cause = short_cause(detail or status)
        key = status if cause == status else f"{status}: {cause}"
        by_cause.setdefault(key, []).append(kind)
    return [
        f"{len(kinds)} kinds: {cause}" if len(kinds) > 1 else f"{kinds[0]}: {cause}"
        for cause, kinds in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def _clip(text: str) -> str:
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "…"
