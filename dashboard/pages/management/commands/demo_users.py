"""``manage.py demo_users``: the viewer, operator and admin demo logins."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from dashboard.roles import ensure_demo_users


class Command(BaseCommand):
    help = "Create the demo users viewer, operator and admin (development settings only)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--password", default="schedlab")
        parser.add_argument(
            "--force", action="store_true", help="also outside DEBUG (never on a real cluster)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["force"]:
            raise CommandError("demo users are for DEBUG settings only (use --force to insist)")
        names = ensure_demo_users(options["password"])
        self.stdout.write(f"demo users {', '.join(names)} (password {options['password']!r})")
