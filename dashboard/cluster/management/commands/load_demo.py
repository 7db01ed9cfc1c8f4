"""``manage.py load_demo``: the bundled demo GPU cluster as the cluster ``demo``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_snapshot
from scheduler_engine.errors import InputError


class Command(BaseCommand):
    help = "Load the bundled demo cluster snapshot (an empty 'demo' cluster if it is missing)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--file", default=settings.DEMO_SNAPSHOT)
        parser.add_argument("--cluster", default="demo")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        if not path.exists():
            ensure_snapshot_cluster(options["cluster"], str(path))
            self.stderr.write(
                f"demo snapshot {path} not found: cluster {options['cluster']!r} starts empty"
            )
            return
        try:
            result = import_snapshot(path, options["cluster"])
        except InputError as exc:
            raise CommandError(str(exc)) from None
        counts = ", ".join(f"{n} {k}" for k, n in sorted(result.counts.items())) or "no objects"
        self.stdout.write(f"loaded demo cluster {options['cluster']!r} from {path}: {counts}")
        for reason in result.skipped:
            self.stderr.write(f"skipped: {reason}")
