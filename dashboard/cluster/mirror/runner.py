"""A running mirror of one cluster: an informer thread per kind and one writer."""

from __future__ import annotations

import gc
import logging
import queue
import threading
from collections.abc import Callable

from ..kinds import KINDS
from ..kube import KubeClient
from ..models import Cluster
from ..services.clusters import kube_source
from .health import MirrorHealth
from .informer import Informer
from .probe import ReadinessProbe
from .shared import MirrorOptions, MirrorShared, ServerWake
from .writer import Writer

__all__ = ["Mirror", "MirrorOptions", "tune_gc"]

log = logging.getLogger(__name__)

# Allocations between young collections (CPython's default is 700). Parsing a
# list page allocates ~30 objects per pod, which stay alive until the writer
# has stored the page, so with the default every page is scanned again and
# again by the cyclic collector: more than half the CPU time of an initial
# sync of 50,000 pods. The mirror's objects are acyclic JSON; reference
# counting frees them.
GC_THRESHOLD = (50_000, 20, 100)


def tune_gc() -> None:
    """For a mirror process: freeze what is loaded so far (modules, settings:
    never garbage) out of the collector's sight and collect less often."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


class Mirror:
    """Keeps a live cluster's rows in step with its API server until stopped.

    ``start()`` returns at once; ``stop()`` ends every thread (closing open
    watch streams) and records the cluster as stopped.
    """

    def __init__(
        self,
        cluster: Cluster,
        *,
        options: MirrorOptions | None = None,
        client_factory: Callable[[], KubeClient] | None = None,
    ) -> None:
        if not cluster.is_live:
            raise ValueError(f"cluster {cluster.name} is an imported snapshot, not a live source")
        self.cluster = cluster
        self.options = options or MirrorOptions.from_settings()
        source = kube_source(cluster)
        self.client_factory = client_factory or (lambda: KubeClient.from_source(source))
        self.stop_event = threading.Event()
        self.health = MirrorHealth([k.key for k in KINDS])
        shared = MirrorShared(
            cluster_id=cluster.pk,
            cluster_name=cluster.name,
            queue=queue.Queue(maxsize=self.options.queue_size),
            health=self.health,
            stop=self.stop_event,
            options=self.options,
            wake=ServerWake(),
        )
        self.shared = shared
        self.writer = Writer(shared)
        self.informers = [Informer(shared, spec, self.client_factory) for spec in KINDS]
        self.probe = ReadinessProbe(shared, self.client_factory)

    def start(self) -> Mirror:
        log.info(
            "mirroring cluster %s from %s", self.cluster.name, kube_source(self.cluster).describe()
        )
        self.writer.save_health(
            force=True, mirror_status=Cluster.MirrorStatus.CONNECTING, connected=False
        )
        self.writer.start()
        for informer in self.informers:
            informer.start()
        self.probe.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        for informer in self.informers:
            informer.close_streams()
        self.shared.wake.bump()  # informers waiting for the server see stop at once
        for informer in self.informers:
            informer.join(timeout)
        self.probe.join(timeout)
        self.writer.join(timeout)
        self.writer.save_health(
            force=True, mirror_status=Cluster.MirrorStatus.STOPPED, connected=False
        )
        log.info("stopped mirroring cluster %s", self.cluster.name)

    def run(self, stop: threading.Event) -> None:
        """Block until ``stop`` is set (the management command's signal handler sets it)."""
        self.start()
        try:
            while not stop.wait(0.5):
                if not self.writer.is_alive():
                    log.error("%s: writer thread died; restarting the mirror", self.cluster.name)
                    break
        finally:
            self.stop()
