"""The mirror keeps every pod's history; export_trace writes it as a trace replay reads."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from dashboard.cluster.kinds import KINDS_BY_KEY, object_row
from dashboard.cluster.models import PodHistory
from dashboard.cluster.services import pod_history
from dashboard.cluster.services.cluster_state import Changes, apply_changes
from dashboard.cluster.services.clusters import ensure_live_cluster
from scheduler_engine.replay import read_trace
from tests.support import objects as b

PODS, NODES = KINDS_BY_KEY["pods"], KINDS_BY_KEY["nodes"]


def _upsert(cluster_id, spec, *objs):
    changes = Changes()
    for obj in objs:
        changes.upsert(spec, object_row(spec, cluster_id, obj))
    apply_changes(cluster_id, changes)


def _delete(cluster_id, spec, *keys):
    changes = Changes()
    for key in keys:
        changes.delete(spec, key)
    apply_changes(cluster_id, changes)


def _pod(name, node=None, created="2026-11-30T10:00:00Z", **kw):
    p = b.pod(name, node=node, **kw)
    p["metadata"]["creationTimestamp"] = created
    p["metadata"].setdefault("uid", f"uid-{name}")
    return p


def test_history_follows_creation_binding_and_deletion(db):
    c = ensure_live_cluster("hist")
    _upsert(c.pk, PODS, _pod("a"))
    h = PodHistory.objects.get(cluster=c, name="a")
    assert h.bound_at is None and h.deleted_at is None
    assert h.created_at.isoformat() == "2026-11-30T10:00:00+00:00"

    _upsert(c.pk, PODS, _pod("a", node="n1"))
    h.refresh_from_db()
    assert h.node_name == "n1" and h.bound_at is not None
    # the history keeps the pod as a pending pod: no node, no status
    assert "nodeName" not in h.obj["spec"] and "status" not in h.obj

    _delete(c.pk, PODS, ("default", "a"))
    h.refresh_from_db()
    assert h.deleted_at is not None
    # a new pod of the same name is another row
    _upsert(c.pk, PODS, {**_pod("a"), "metadata": {**_pod("a")["metadata"], "uid": "uid-a2"}})
    assert PodHistory.objects.filter(cluster=c, name="a").count() == 2


def test_rows_past_the_retention_are_dropped(db, settings):
    settings.SCHEDLAB_TRACE_RETENTION_DAYS = 1
    c = ensure_live_cluster("ret")
    _upsert(c.pk, PODS, _pod("old"), _pod("young"))
    now = timezone.now()
    PodHistory.objects.filter(name="old").update(deleted_at=now - timedelta(days=2))
    PodHistory.objects.filter(name="young").update(deleted_at=now - timedelta(hours=2))
    assert pod_history.prune(c.pk, now) == 1
    assert list(PodHistory.objects.values_list("name", flat=True)) == ["young"]


def test_export_trace_replays(db, tmp_path: Path):
    c = ensure_live_cluster("exp")
    _upsert(c.pk, NODES, b.node("n1", gpus=0))
    _upsert(
        c.pk,
        PODS,
        _pod("a", node="n1", created="2026-11-30T10:00:00Z"),
        _pod("b", created="2026-11-30T10:00:05Z"),
    )
    _delete(c.pk, PODS, ("default", "a"))
    out = tmp_path / "trace.jsonl"
    call_command("export_trace", "exp", "--output", str(out))
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["kind"] for x in lines] == ["Node", "PodCreated", "PodCreated", "PodDeleted"]
    assert lines[1]["observed"]["node"] == "n1"
    tr = read_trace(None, str(out))
    assert [n.name for n in tr.nodes] == ["n1"]
    assert [(tp.pod.name, tp.deleted is not None) for tp in tr.pods] == [("a", True), ("b", False)]
    assert tr.pods[1].created - tr.pods[0].created == 5.0

    from scheduler_engine.cli import main

    assert main(["replay", "--pods", str(out), "--mode", "time", "--no-timeline"]) == 0


def test_export_trace_names_a_missing_cluster(db):
    with pytest.raises(CommandError, match="'nope': no such cluster"):
        call_command("export_trace", "nope")


def test_a_large_batch_keeps_the_history_a_small_one_keeps(db):
    """A batch big enough for COPY (an initial sync) stores every history column
    as batches small enough for the ORM do."""
    from dashboard.cluster.services.pgcopy import COPY_THRESHOLD

    n = COPY_THRESHOLD + 5
    pods = [_pod(f"p{i}", node="n1" if i % 3 else None, gpus=i % 2) for i in range(n)]
    pods[1]["status"] = {
        "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-11-30T10:00:09Z"}
        ]
    }
    pods[2]["metadata"].pop("creationTimestamp")
    big, small = ensure_live_cluster("big"), ensure_live_cluster("small")
    now = timezone.now()
    pod_history.record(big.pk, [object_row(PODS, big.pk, p) for p in pods], [], now)
    for p in pods:
        pod_history.record(small.pk, [object_row(PODS, small.pk, p)], [], now)

    def stored(cluster):
        fields = ("namespace", "name", "uid", "obj", "node_name", "created_at", "bound_at")
        rows = PodHistory.objects.filter(cluster=cluster).order_by("uid")
        return [(*(getattr(h, f) for f in fields), h.deleted_at, h.first_seen) for h in rows]

    assert len(stored(big)) == n
    assert stored(big) == stored(small)
    assert PodHistory.objects.get(cluster=big, name="p1").bound_at.second == 9
    assert PodHistory.objects.get(cluster=big, name="p2").created_at == now


def _new_batch(cluster_id, pods):
    changes = Changes()
    for p in pods:
        changes.upsert(PODS, object_row(PODS, cluster_id, p), new=True)
    return changes


def test_pods_believed_new_are_not_looked_up(db):
    """An initial sync's pods have no history: looking each page up found nothing,
    and without table statistics PostgreSQL read every history row to find it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from dashboard.cluster.services.pgcopy import COPY_THRESHOLD

    c = ensure_live_cluster("fresh")
    pods = [_pod(f"p{i}", node="n1") for i in range(COPY_THRESHOLD)]
    with CaptureQueriesContext(connection) as queries:
        apply_changes(c.pk, _new_batch(c.pk, pods))
    looked_up = [q["sql"] for q in queries if "SELECT" in q["sql"] and "podhistory" in q["sql"]]
    assert looked_up == []
    assert PodHistory.objects.filter(cluster=c, node_name="n1").count() == COPY_THRESHOLD


def test_pods_wrongly_believed_new_keep_one_history_row(db, caplog):
    import logging

    from dashboard.cluster.services.pgcopy import COPY_THRESHOLD

    c = ensure_live_cluster("again")
    _upsert(c.pk, PODS, _pod("p0"))
    first = PodHistory.objects.get(cluster=c, name="p0")
    pods = [_pod(f"p{i}", node="n2") for i in range(COPY_THRESHOLD + 1)]
    with caplog.at_level(logging.INFO, logger="dashboard.cluster.services.pod_history"):
        apply_changes(c.pk, _new_batch(c.pk, pods))

    assert "history already" in caplog.text
    assert PodHistory.objects.filter(cluster=c).count() == COPY_THRESHOLD + 1
    again = PodHistory.objects.get(cluster=c, name="p0")
    # the row seen before is updated (bound now), not made anew
    assert (again.pk, again.first_seen) == (first.pk, first.first_seen)
    assert again.node_name == "n2" and again.bound_at is not None
