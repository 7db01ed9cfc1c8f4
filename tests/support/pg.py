"""The test's own PostgreSQL database seen from outside: its other connections, cut or counted."""

from __future__ import annotations

from django.db import connection

__all__ = ["our_connections", "terminate_our_connections"]

_OTHERS = "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"


def our_connections(application_name: str | None = None) -> int:
    """How many other connections this test's database has; only those of processes
    that connect as ``application_name`` when it is given (the session's Celery
    worker, for one, connects to the same database now and then)."""
    with connection.cursor() as cursor:
        if application_name is None:
            cursor.execute(f"SELECT count(*) {_OTHERS}")
        else:
            cursor.execute(
                f"SELECT count(*) {_OTHERS} AND application_name = %s", [application_name]
            )
        return cursor.fetchone()[0]


def terminate_our_connections() -> int:
    """pg_terminate_backend every other connection to this test's own database."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(pg_terminate_backend(pid)) {_OTHERS}")
        return cursor.fetchone()[0]
