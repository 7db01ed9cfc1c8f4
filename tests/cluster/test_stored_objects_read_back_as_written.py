"""The stored objects are read back exactly as json would read them (orjson where it can)."""

from __future__ import annotations

import json

import pytest

from dashboard.cluster import models
from dashboard.cluster.models import Node, ObjectField
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from tests.support.synthetic import node

TEXTS = [
    '{"a": 1, "b": 1.0, "c": true, "d": null, "e": "é\\u2028", "f": [0.1, -0.0, 5e-324]}',
    '{"n": 9223372036854775807, "m": -9223372036854775808}',
    # orjson would make these floats, or refuse them: json reads them
    '{"n": 123456789012345678901234567890}',
    '{"n": 18446744073709551616, "m": -9223372036854775809}',
    '{"big": 1e400}',
    '{"s": "\\ud800"}',
    '{"a": 1, "a": 2}',
]


@pytest.mark.parametrize("text", TEXTS)
def test_it_reads_what_json_reads(text: str) -> None:
    got = ObjectField().from_db_value(text, None, None)
    want = json.loads(text)
    assert repr(got) == repr(want)  # types too: 1 is not 1.0


def test_integers_survive_the_database(db, monkeypatch) -> None:
    cluster = ensure_snapshot_cluster("huge-ints", "synthetic")
    huge, exact = node(0), node(1)
    huge["status"]["huge"] = 123456789012345678901234567890
    exact["status"]["exact"] = 9007199254740993  # not a double
    import_objects(cluster, [huge, exact])
    fast = []
    real = models.orjson.loads
    monkeypatch.setattr(models.orjson, "loads", lambda t: fast.append(t) or real(t))
    stored = dict(Node.objects.filter(cluster=cluster).values_list("name", "obj"))
    assert stored["node-0"]["status"]["huge"] == 123456789012345678901234567890
    assert stored["node-1"]["status"]["exact"] == 9007199254740993
    assert type(stored["node-1"]["status"]["exact"]) is int
    assert len(fast) == 1  # the second through orjson, the first through json
