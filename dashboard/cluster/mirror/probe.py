"""The API server's readiness, asked by one thread per mirror.

While kinds are failing it asks ``/readyz`` every ``fast_seconds`` and, as
soon as the server is ready again, wakes every informer waiting out its
backoff: the mirror recovers within a second or two of the server's return
instead of after each kind's grown backoff. While all is well it asks every
``slow_seconds``, so a server that is shutting down (it keeps open watches
until its shutdown timeout, and says so on ``/readyz``) shows as not ready.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable

from ..kube import KubeClient
from .health import MirrorHealth, short_cause

__all__ = ["ReadinessProbe", "ServerWake"]

log = logging.getLogger(__name__)


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


class ReadinessProbe(threading.Thread):
    def __init__(
        self,
        name: str,
        health: MirrorHealth,
        wake: ServerWake,
        stop: threading.Event,
        client_factory: Callable[[], KubeClient],
        *,
        fast_seconds: float = 0.5,
        slow_seconds: float = 5.0,
    ) -> None:
        super().__init__(name=f"readyz-{name}", daemon=True)
        self.cluster_name = name
        self.health = health
        self.wake = wake
        self.stop = stop
        self.client_factory = client_factory
        self.fast_seconds = fast_seconds
        self.slow_seconds = slow_seconds

    def run(self) -> None:
        client: KubeClient | None = None
        was_ready = True
        while not self.stop.is_set():
            failing = self.health.failing()
            try:
                if client is None:
                    client = self.client_factory()
                ready, detail = client.ready()
            except Exception:  # a broken kubeconfig: the informers say so, no verdict here
                client = None
                self.stop.wait(self.slow_seconds)
                continue
            self.health.readiness(ready, short_cause(detail) if detail else "")
            # kinds that could not reach a server that answers now: it is back
            unreachable = [k for k, error in failing if error.startswith("unreachable")]
            if ready and (unreachable or not was_ready):
                if not was_ready:
                    log.info("%s: the API server is ready again", self.cluster_name)
                self.wake.bump()
            elif not ready and was_ready:
                log.warning("%s: the API server is not ready: %s", self.cluster_name, detail)
            was_ready = ready
            if not ready and client is not None:
                # a fresh connection next time: the old one may point at a dead socket
                with contextlib.suppress(Exception):
                    client.close()
                client = None
            pause = self.fast_seconds if (failing or not ready) else self.slow_seconds
            self.stop.wait(pause)
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
