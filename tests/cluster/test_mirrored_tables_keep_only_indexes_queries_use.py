"""Every index on a mirrored table costs each insert of an initial sync: the
varchar_pattern_ops twins Django adds for ``db_index=True`` CharFields serve only
case-sensitive LIKE, which no query here makes."""

from __future__ import annotations

import pytest
from django.db import connection

from dashboard.cluster.kinds import KINDS
from dashboard.cluster.models import PodHistory

TABLES = sorted({spec.model._meta.db_table for spec in KINDS} | {PodHistory._meta.db_table})


@pytest.mark.django_db
def test_no_mirrored_table_has_a_pattern_ops_index():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = ANY(%s) "
            "AND indexdef LIKE '%%pattern_ops%%' ORDER BY 1",
            [TABLES],
        )
        assert [name for (name,) in cursor.fetchall()] == []


@pytest.mark.django_db
def test_the_pod_columns_pages_filter_on_stay_indexed():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'dashboard_pod'")
        defs = [d for (d,) in cursor.fetchall()]
    for column in ("uid", "phase", "node_name", "scheduler_name", "pending_since", "gpu_requested"):
        assert any(d.endswith(f"USING btree ({column})") for d in defs), column
