"""``manage.py import_snapshot``: load a snapshot file or directory into a cluster."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from dashboard.cluster.services.snapshots import import_snapshot
from scheduler_engine.errors import InputError


class Command(BaseCommand):
    help = "Load a snapshot (kubectl get -o yaml output, a List, or a directory) into a cluster."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", help="YAML/JSON file or directory")
        parser.add_argument("--cluster", required=True, help="cluster name (created if new)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            result = import_snapshot(options["file"], options["cluster"])
        except InputError as exc:
            raise CommandError(str(exc)) from None
        for reason in result.skipped:
            self.stderr.write(f"skipped: {reason}")
        counts = ", ".join(f"{n} {k}" for k, n in sorted(result.counts.items())) or "no objects"
        self.stdout.write(f"cluster {result.cluster.name}: {counts}")
