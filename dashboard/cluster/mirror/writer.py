"""The single database writer of a mirror: drains the informers' queue in batches.

Two threads, one pipeline: the writer turns a batch into ``Changes`` while its
database thread stores the previous one, in order, retrying a failed write
until it succeeds or the mirror stops. See docs/architecture.md.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from datetime import UTC, datetime

from django.db import DatabaseError, close_old_connections, connections
from django.utils import timezone

from ..kinds import KINDS, KindSpec, MalformedObject, Row, object_key, object_row
from ..models import Cluster
from ..services.cluster_state import Changes, apply_changes, known_versions
from ..services.clusters import record_health
from . import messages
from .shared import MirrorShared

__all__ = ["Writer"]

log = logging.getLogger(__name__)

Key = tuple[str, str]
MAX_BATCH_OBJECTS = 2000
HEALTH_INTERVAL = 0.5


def _wall(ts: float | None) -> datetime | None:
    return datetime.fromtimestamp(ts, tz=UTC) if ts else None


class Writer(threading.Thread):
    def __init__(self, shared: MirrorShared) -> None:
        super().__init__(name=f"writer-{shared.cluster_name}", daemon=True)
        self.shared = shared
        self.backoff = shared.backoff()
        self.known: dict[KindSpec, dict[Key, str]] = {}
        self.seen: dict[KindSpec, set[Key] | None] = {}
        self.lag: float | None = None
        self._saved: tuple | None = None
        self._next_health = 0.0
        self._next_beat = 0.0  # monotonic time the next heartbeat is due
        self.batches = 0  # for tests and the benchmark
        # Batches handed to the database thread: one waiting while one is stored.
        self._pending: queue.Queue[tuple[Changes, float | None, list[tuple[str, int]]]] = (
            queue.Queue(maxsize=1)
        )
        self._db: threading.Thread | None = None

    # -- batching ---------------------------------------------------------

    def _collect(self, first: object) -> list[object]:
        batch, size = [first], self._size(first)
        deadline = time.monotonic() + self.shared.options.batch_seconds
        while size < MAX_BATCH_OBJECTS:
            remaining = deadline - time.monotonic()
            try:
                message = (
                    self.shared.queue.get(timeout=remaining)
                    if remaining > 0
                    else self.shared.queue.get_nowait()
                )
            except queue.Empty:
                break
            batch.append(message)
            size += self._size(message)
        return batch

    @staticmethod
    def _size(message: object) -> int:
        return len(message.items) if isinstance(message, messages.ListPage) else 1

    def _skip(self, spec: KindSpec, exc: MalformedObject) -> None:
        log.warning("%s: skipping malformed %s: %s", self.shared.cluster_name, spec.kind, exc)

    def _row(self, spec: KindSpec, obj: dict) -> Row | None:
        try:
            return object_row(spec, self.shared.cluster_id, obj)
        except MalformedObject as exc:
            self._skip(spec, exc)
            return None

    def _changes(self, batch: list[object]) -> tuple[Changes, float | None, list[tuple[str, int]]]:
        """The batch's row changes, its oldest watch event, and the lists it completes."""
        changes = Changes()
        oldest: float | None = None
        listed: list[tuple[str, int]] = []
        for m in batch:
            spec = m.spec  # type: ignore[attr-defined]
            known = self.known[spec]
            if isinstance(m, messages.ListStart):
                self.seen[spec] = set()
            elif isinstance(m, messages.ListPage):
                seen = self.seen.setdefault(spec, set())
                if seen is None:
                    seen = self.seen[spec] = set()
                for obj in m.items:
                    try:
                        key = object_key(spec, obj)
                    except MalformedObject as exc:
                        self._skip(spec, exc)
                        continue
                    # Seen even if its body is malformed: keep the last good copy.
                    seen.add(key)
                    rv = obj["metadata"].get("resourceVersion")
                    if rv and known.get(key) == rv:
                        continue  # unchanged since we stored it: a relist costs no write
                    row = self._row(spec, obj)
                    if row is not None:
                        changes.upsert(spec, row, new=key not in known)
            elif isinstance(m, messages.ListDone):
                seen = self.seen.get(spec) or set()
                for key in known.keys() - seen:
                    changes.delete(spec, key)
                self.seen[spec] = None
                listed.append((spec.key, m.generation))
            elif isinstance(m, messages.WatchEvent):
                oldest = m.received if oldest is None else min(oldest, m.received)
                if m.type == "DELETED":
                    try:
                        changes.delete(spec, object_key(spec, m.obj))
                    except MalformedObject as exc:
                        self._skip(spec, exc)
                elif m.type in ("ADDED", "MODIFIED"):
                    row = self._row(spec, m.obj)
                    if row is not None:
                        key = (row.namespace, row.name)
                        changes.upsert(spec, row, new=key not in known)
                else:
                    log.warning(
                        "%s: %s: unknown watch event type %r",
                        self.shared.cluster_name,
                        spec.key,
                        m.type,
                    )
        return changes, oldest, listed

    def _write(self, changes: Changes) -> bool:
        """Store ``changes``, retrying with backoff; False if stopped first."""
        while True:
            try:
                apply_changes(self.shared.cluster_id, changes)
                self.backoff.reset()
                self.shared.health.database("")
                return True
            except DatabaseError as exc:
                self.shared.health.database(str(exc).splitlines()[0] if str(exc) else "error")
                delay = self.backoff.next()
                log.error(
                    "%s: database write failed (%s); retrying in %.1fs",
                    self.shared.cluster_name,
                    exc,
                    delay,
                )
                close_old_connections()
                if self.shared.stop.wait(delay):
                    return False

    def _remember(self, changes: Changes) -> None:
        for spec, rows in changes.upserts.items():
            known = self.known[spec]
            for key, row in rows.items():
                known[key] = row.resource_version
        for spec, keys in changes.deletes.items():
            known = self.known[spec]
            for key in keys:
                known.pop(key, None)

    def _hand_over(
        self, changes: Changes, oldest: float | None, listed: list[tuple[str, int]]
    ) -> bool:
        self._remember(changes)
        while not self.shared.stop.is_set():
            if self._db is None or not self._db.is_alive():
                return False
            try:
                self._pending.put((changes, oldest, listed), timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def _store_loop(self) -> None:
        """The database thread: stores handed-over batches in order."""
        try:
            while not self.shared.stop.is_set():
                try:
                    changes, oldest, listed = self._pending.get(timeout=0.2)
                except queue.Empty:
                    continue
                if len(changes) and not self._write(changes):
                    break
                for kind, generation in listed:
                    self.shared.health.list_stored(kind, generation)
                if oldest is not None:
                    self.lag = time.monotonic() - oldest
        except Exception:
            log.exception("%s: database thread failed", self.shared.cluster_name)
            raise
        finally:
            connections.close_all()  # this thread's connections only

    # -- health -----------------------------------------------------------

    def save_health(self, force: bool = False, **extra: object) -> None:
        now = time.monotonic()
        beat = now >= self._next_beat  # the heartbeat is due, whatever changed
        if not force and not beat and now < self._next_health:
            return
        self._next_health = now + HEALTH_INTERVAL
        fields = self.shared.health.summary()
        fields["last_event_at"] = _wall(self.shared.health.last_event_wall)
        fields["last_sync_at"] = _wall(self.shared.health.last_sync_wall)
        fields["lag_seconds"] = self.lag
        if self.shared.health.last_error_wall is not None:
            # kept after recovery: the health shows when the last fault happened
            fields["last_error_at"] = _wall(self.shared.health.last_error_wall)
        fields.update(extra)
        snapshot = tuple(sorted((k, repr(v)) for k, v in fields.items()))
        unchanged = snapshot == self._saved and not force
        if unchanged and not beat:
            return
        try:
            if unchanged:
                # nothing for the pages to hear of: the stamp alone, no broadcast
                Cluster.objects.filter(pk=self.shared.cluster_id).update(
                    heartbeat_at=timezone.now()
                )
            else:
                record_health(self.shared.cluster_id, heartbeat_at=timezone.now(), **fields)
                self._saved = snapshot
            self._next_beat = now + self.shared.options.heartbeat_seconds
        except DatabaseError as exc:
            log.error("%s: cannot record mirror health: %s", self.shared.cluster_name, exc)
            close_old_connections()

    # -- loop -------------------------------------------------------------

    def run(self) -> None:
        try:
            self.known = {spec: known_versions(self.shared.cluster_id, spec) for spec in KINDS}
            self._db = threading.Thread(
                target=self._store_loop, name=f"writer-db-{self.shared.cluster_name}", daemon=True
            )
            self._db.start()
            while not self.shared.stop.is_set():
                if not self._db.is_alive():
                    log.error(
                        "%s: database thread ended; stopping the writer", self.shared.cluster_name
                    )
                    break
                try:
                    first = self.shared.queue.get(timeout=0.2)
                except queue.Empty:
                    self.save_health()
                    continue
                batch = self._collect(first)
                changes, oldest, listed = self._changes(batch)
                if len(changes) or listed:
                    if not self._hand_over(changes, oldest, listed):
                        break
                elif oldest is not None:
                    self.lag = time.monotonic() - oldest
                self.batches += 1
                self.save_health()
        finally:
            if self._db is not None and self._db.is_alive() and self.shared.stop.is_set():
                self._db.join(10.0)
            connections.close_all()  # this thread's connections only
