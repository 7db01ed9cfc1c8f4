"""``manage.py export_trace CLUSTER [--days N] [--output FILE]``: the mirror's history as a trace.

Writes Schedlab's JSON-lines trace (``docs/replay.md``): the cluster's nodes as
they are now, then every pod the mirror saw created in the window (default:
all it kept), with its deletion when it is gone and, under ``observed``, the
node it ran on and when it was bound.  ``python -m scheduler_engine replay
--pods FILE --mode time`` replays it under another profile.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard.cluster.models import Cluster
from dashboard.cluster.services.history_trace import write_history_trace


class Command(BaseCommand):
    help = "Write the pods the mirror saw (and the nodes) as a Schedlab trace (JSON lines)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("cluster", help="the cluster's name")
        parser.add_argument("--days", type=float, help="only pods created in the last N days")
        parser.add_argument("--output", "-o", help="file to write (default: standard output)")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            cluster = Cluster.objects.get(name=opts["cluster"])
        except Cluster.DoesNotExist:
            raise CommandError(f"cluster {opts['cluster']!r}: no such cluster") from None
        if opts["days"] is not None and opts["days"] <= 0:
            raise CommandError(f"--days: must be positive, got {opts['days']}")
        out = open(opts["output"], "w", encoding="utf-8") if opts["output"] else sys.stdout  # noqa: SIM115
        try:
            nodes, pods, n = write_history_trace(cluster, out, opts["days"])
        finally:
            if out is not sys.stdout:
                out.close()
        self.stderr.write(f"{nodes} nodes, {pods} pods, {n} lines")
