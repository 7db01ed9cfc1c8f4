"""``manage.py mirror``: keep clusters' stored objects in step with their API servers."""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from dashboard.cluster.mirror import Mirror, tune_gc
from dashboard.cluster.models import Cluster
from dashboard.cluster.services.clusters import ensure_live_cluster

log = logging.getLogger("dashboard.cluster.mirror")

# How long to wait before looking again when no live cluster is configured,
# so a docker-compose service idles instead of crash-looping.
IDLE_POLL_SECONDS = 30.0


class Command(BaseCommand):
    help = "Mirror live clusters into the database (list + watch) until interrupted."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--cluster", help="mirror only this cluster (default: all live ones)")
        parser.add_argument("--kubeconfig", help="create/update --cluster with this kubeconfig")
        parser.add_argument("--context", default="", help="kubeconfig context")
        parser.add_argument(
            "--in-cluster", action="store_true", help="use the pod's service account"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        name = options["cluster"]
        kubeconfig = options["kubeconfig"] or ""
        if (kubeconfig or options["in_cluster"]) and not name:
            raise CommandError("--kubeconfig/--in-cluster need --cluster NAME")
        if name and (kubeconfig or options["in_cluster"]):
            ensure_live_cluster(
                name,
                kubeconfig=kubeconfig,
                context=options["context"],
                in_cluster=options["in_cluster"],
            )
        elif not Cluster.objects.exclude(source=Cluster.Source.SNAPSHOT).exists() and (
            settings.KUBECONFIG
        ):
            # docker-compose: KUBECONFIG in the environment names the one cluster.
            ensure_live_cluster(
                name or "default", kubeconfig=settings.KUBECONFIG, context=settings.KUBE_CONTEXT
            )

        threads: list[threading.Thread] = []
        while not stop.is_set():
            clusters = Cluster.objects.exclude(source=Cluster.Source.SNAPSHOT)
            if name:
                clusters = clusters.filter(name=name)
            clusters = list(clusters)
            if clusters:
                break
            log.warning(
                "no live cluster%s configured (add one with --cluster NAME --kubeconfig PATH); "
                "looking again in %.0fs",
                f" named {name}" if name else "",
                IDLE_POLL_SECONDS,
            )
            stop.wait(IDLE_POLL_SECONDS)
        else:
            return
        tune_gc()
        for cluster in clusters:
            thread = threading.Thread(target=self._supervise, args=(cluster, stop), daemon=True)
            thread.start()
            threads.append(thread)
        while any(t.is_alive() for t in threads):
            for t in threads:
                t.join(0.5)

    def _supervise(self, cluster: Cluster, stop: threading.Event) -> None:
        # A mirror whose writer died (e.g. the database vanished for long) starts afresh.
        while not stop.is_set():
            Mirror(cluster).run(stop)
            stop.wait(5.0)
