"""One thread per kind: list (paginated), then watch from the list's resourceVersion.

Like client-go's reflector: resume after a clean end, relist after 410 Gone or
an error (with backoff) and every ``resync_seconds``; a kind the server does
not serve (404) is marked unavailable, not an error. See docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from ..kinds import KindSpec
from ..kube import KubeClient, KubeError, KubeGone, KubeNotFound, KubeUnreachable
from ..models import Cluster
from . import messages
from .health import UNAVAILABLE
from .shared import MirrorShared

__all__ = ["Informer"]

log = logging.getLogger(__name__)


def _resource_version(obj: Any) -> str:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    rv = meta.get("resourceVersion") if isinstance(meta, dict) else None
    return rv if isinstance(rv, str) else ""


class Informer(threading.Thread):
    def __init__(
        self, shared: MirrorShared, spec: KindSpec, client_factory: Callable[[], KubeClient]
    ) -> None:
        super().__init__(name=f"informer-{shared.cluster_name}-{spec.key}", daemon=True)
        self.shared = shared
        self.options = shared.options
        self.spec = spec
        self.client_factory = client_factory
        self.backoff = shared.backoff()
        self.client: KubeClient | None = None
        # Open watch responses, so stop() can close one that waits for data.
        self.responses: list[Any] = []
        self.available = True  # False while the server answers 404 for the kind

    def _put(self, message: object) -> None:
        # Bounded queue: a slow database slows the list down instead of filling memory.
        while not self.shared.stop.is_set():
            try:
                self.shared.queue.put(message, timeout=0.2)
                return
            except queue.Full:
                continue

    def close_streams(self) -> None:
        for resp in list(self.responses):
            # Unblocks a read waiting on a quiet stream; it may already be closed.
            with contextlib.suppress(Exception):
                resp.shutdown() if hasattr(resp, "shutdown") else resp.close()

    def _list(self, client: KubeClient) -> str:
        self.shared.health.set(self.spec.key, Cluster.MirrorStatus.SYNCING)
        generation = self.shared.health.list_started(self.spec.key)
        self._put(messages.ListStart(self.spec))
        token, rv, count = "", "", 0
        while True:
            page = client.list_page(self.spec, limit=self.options.page_size, continue_token=token)
            rv = page.resource_version or rv
            count += len(page.items)
            self._put(messages.ListPage(self.spec, page.items))
            token = page.continue_token
            if not token or self.shared.stop.is_set():
                break
        if self.shared.stop.is_set():
            return rv
        self._put(messages.ListDone(self.spec, rv, generation))
        self.shared.health.synced(self.spec.key, rv)
        log.info(
            "%s: listed %d %s at resourceVersion %s",
            self.shared.cluster_name,
            count,
            self.spec.key,
            rv,
        )
        return rv

    def _watch(self, client: KubeClient, rv: str, deadline: float) -> str:
        self.shared.health.set(self.spec.key, Cluster.MirrorStatus.WATCHING)
        timeout = int(max(1, min(self.options.watch_timeout, deadline - time.monotonic())))
        for event in client.watch(
            self.spec, resource_version=rv, timeout_seconds=timeout, holder=self.responses
        ):
            if self.shared.stop.is_set():
                break
            if event.type == "ERROR":
                log.warning(
                    "%s: %s: skipping bad watch line: %s",
                    self.shared.cluster_name,
                    self.spec.key,
                    event.object.get("message"),
                )
                continue
            new_rv = _resource_version(event.object)
            if event.type == "BOOKMARK":
                rv = new_rv or rv
                self.shared.health.bookmark(self.spec.key, new_rv)
                continue
            self._put(messages.WatchEvent(self.spec, event.type, event.object, time.monotonic()))
            self.shared.health.event(self.spec.key, new_rv)
            rv = new_rv or rv
            self.backoff.reset()
        return rv

    def run(self) -> None:
        rv = ""
        deadline = 0.0
        need_list = True
        while not self.shared.stop.is_set():
            try:
                if self.client is None:
                    self.client = self.client_factory()
                if need_list or time.monotonic() >= deadline:
                    rv = self._list(self.client)
                    if not self.available:
                        self.available = True
                        log.info(
                            "%s: %s: served again; mirroring it",
                            self.shared.cluster_name,
                            self.spec.key,
                        )
                    need_list = False
                    self.backoff.reset()
                    # Spread resyncs of the kinds so they do not all hit the server at once.
                    deadline = time.monotonic() + self.options.resync_seconds * random.uniform(
                        0.9, 1.1
                    )
                    continue
                rv = self._watch(self.client, rv, deadline)
            except KubeGone as exc:
                log.info("%s: %s: %s; relisting", self.shared.cluster_name, self.spec.key, exc)
                need_list = True
            except KubeNotFound as exc:
                if self.shared.stop.is_set():
                    break
                self._unavailable(exc)
                need_list = True
                self.shared.stop.wait(self.options.resync_seconds)
            except KubeError as exc:
                if self.shared.stop.is_set():
                    break
                since = self.shared.wake.generation
                delay = self.backoff.next()
                log.warning(
                    "%s: %s: %s (%s); relisting in %.1fs",
                    self.shared.cluster_name,
                    self.spec.key,
                    exc.status,
                    exc,
                    delay,
                )
                self.shared.health.set(
                    self.spec.key, Cluster.MirrorStatus.ERROR, f"{exc.status}: {exc}"
                )
                need_list = True
                self._drop_client()
                if isinstance(exc, KubeUnreachable) or getattr(exc, "code", 0) >= 500:
                    # the server is away: the readiness probe wakes us when it is back
                    self.shared.wake.wait(since, delay, self.shared.stop)
                else:
                    self.shared.stop.wait(delay)
            except Exception:
                if self.shared.stop.is_set():
                    break
                delay = self.backoff.next()
                log.exception(
                    "%s: %s: unexpected error; relisting in %.1fs",
                    self.shared.cluster_name,
                    self.spec.key,
                    delay,
                )
                self.shared.health.set(
                    self.spec.key, Cluster.MirrorStatus.ERROR, "internal error (see log)"
                )
                need_list = True
                self._drop_client()
                self.shared.stop.wait(delay)
        self._drop_client()

    def _unavailable(self, exc: KubeNotFound) -> None:
        """The server does not serve the kind: nothing of it exists; say so once."""
        # The list started (ListStart) found nothing: stored rows of the kind go.
        self._put(messages.ListDone(self.spec, ""))
        self.shared.health.set(self.spec.key, UNAVAILABLE)
        self.backoff.reset()
        if self.available:
            self.available = False
            log.info(
                "%s: %s (%s) is not served by this cluster (%s); not mirrored, "
                "checking again every %.0fs",
                self.shared.cluster_name,
                self.spec.key,
                self.spec.api_version,
                exc,
                self.options.resync_seconds,
            )

    def _drop_client(self) -> None:
        # A fresh client re-reads the kubeconfig: rotated credentials are picked up.
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close()
            self.client = None
