"""The API server's readiness, asked by one thread per mirror.

While kinds are failing it asks ``/readyz`` every ``probe_fast`` seconds
(``MirrorOptions``) and, as soon as the server is ready again, wakes every
informer waiting out its backoff: the mirror recovers within a second or two
of the server's return instead of after each kind's grown backoff. While all
is well it asks every ``probe_slow`` seconds, so a server that is shutting
down (it keeps open watches until its shutdown timeout, and says so on
``/readyz``) shows as not ready.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable

from ..kube import KubeClient
from .health import short_cause
from .shared import MirrorShared

__all__ = ["ReadinessProbe"]

log = logging.getLogger(__name__)


class ReadinessProbe(threading.Thread):
    def __init__(self, shared: MirrorShared, client_factory: Callable[[], KubeClient]) -> None:
        super().__init__(name=f"readyz-{shared.cluster_name}", daemon=True)
        self.shared = shared
        self.client_factory = client_factory

    def run(self) -> None:
        shared, options = self.shared, self.shared.options
        client: KubeClient | None = None
        was_ready = True
        while not shared.stop.is_set():
            failing = shared.health.failing()
            try:
                if client is None:
                    client = self.client_factory()
                ready, detail = client.ready()
            except Exception:  # a broken kubeconfig: the informers say so, no verdict here
                client = None
                shared.stop.wait(options.probe_slow)
                continue
            shared.health.readiness(ready, short_cause(detail) if detail else "")
            # kinds that could not reach a server that answers now: it is back
            unreachable = [k for k, error in failing if error.startswith("unreachable")]
            if ready and (unreachable or not was_ready):
                if not was_ready:
                    log.info("%s: the API server is ready again", shared.cluster_name)
                shared.wake.bump()
            elif not ready and was_ready:
                log.warning("%s: the API server is not ready: %s", shared.cluster_name, detail)
            was_ready = ready
            if not ready and client is not None:
                # a fresh connection next time: the old one may point at a dead socket
                with contextlib.suppress(Exception):
                    client.close()
                client = None
            pause = options.probe_fast if (failing or not ready) else options.probe_slow
            shared.stop.wait(pause)
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()
