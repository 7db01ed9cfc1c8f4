"""PostgreSQL COPY for the mirror's large writes: JSON text and rows into a table."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from django.db import connection, models

__all__ = ["COPY_THRESHOLD", "copy_models", "dumps", "uses_copy"]

# Batches at least this big go through COPY on PostgreSQL; smaller ones through the ORM.
COPY_THRESHOLD = 200


def uses_copy(n: int) -> bool:
    """Whether ``n`` rows are written through COPY on this connection."""
    return n >= COPY_THRESHOLD and connection.vendor == "postgresql"


def dumps(obj: Any) -> str:
    """JSON text for a ``jsonb`` column: orjson, several times faster than json.dumps."""
    try:
        return orjson.dumps(obj).decode()
    except (orjson.JSONEncodeError, TypeError):
        # e.g. an integer beyond 64 bits: json can write it
        return json.dumps(obj, separators=(",", ":"))


def copy_models(
    model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """COPY ``rows`` (values in the order of the fields ``columns`` names, JSON fields
    as Python values) into ``model``'s table: what ``bulk_create`` would insert,
    without building a model instance and a query parameter per value.
    Errors come back as Django's (``IntegrityError`` on a unique key)."""
    meta = model._meta
    fields = [meta.get_field(name) for name in columns]
    quote = connection.ops.quote_name
    names = ", ".join(quote(f.column) for f in fields)
    json_at = [i for i, f in enumerate(fields) if isinstance(f, models.JSONField)]
    sql = f"COPY {quote(meta.db_table)} ({names}) FROM STDIN"
    with (
        connection.cursor() as cursor,
        connection.wrap_database_errors,
        cursor.cursor.copy(sql) as copy,
    ):
        write = copy.write_row
        for row in rows:
            if json_at:
                row = list(row)
                for i in json_at:
                    row[i] = dumps(row[i])
            write(row)
