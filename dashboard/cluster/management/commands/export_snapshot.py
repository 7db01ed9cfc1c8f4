"""``manage.py export_snapshot``: a cluster's stored objects as a ``kind: List``."""

from __future__ import annotations

import json
import sys
from typing import Any

import yaml
from django.core.management.base import BaseCommand, CommandError

from dashboard.cluster.models import Cluster
from dashboard.cluster.services.snapshots import export_snapshot


class Command(BaseCommand):
    help = "Write a cluster's objects as a kind: List (YAML or JSON), loadable by the engine."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--cluster", required=True)
        parser.add_argument("--output", "-o", default="-", help="file, or - for stdout")
        parser.add_argument("--format", choices=["yaml", "json"], default="yaml")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            cluster = Cluster.objects.get(name=options["cluster"])
        except Cluster.DoesNotExist:
            raise CommandError(f"no cluster named {options['cluster']!r}") from None
        document = export_snapshot(cluster)
        if options["format"] == "json":
            text = json.dumps(document, indent=1) + "\n"
        else:
            text = yaml.dump(
                document, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False
            )
        if options["output"] == "-":
            sys.stdout.write(text)
        else:
            with open(options["output"], "w", encoding="utf-8") as fh:
                fh.write(text)
            self.stderr.write(f"wrote {len(document['items'])} objects to {options['output']}")
