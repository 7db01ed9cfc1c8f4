"""Large batches go through COPY: new rows straight into the table, others upserted."""

from __future__ import annotations

import logging

from dashboard.cluster.kinds import KINDS_BY_KEY, object_row
from dashboard.cluster.models import Node, Pod
from dashboard.cluster.services.cluster_state import Changes, apply_changes
from dashboard.cluster.services.clusters import ensure_live_cluster
from dashboard.cluster.services.pgcopy import COPY_THRESHOLD
from tests.support import objects as b

PODS, NODES = KINDS_BY_KEY["pods"], KINDS_BY_KEY["nodes"]
N = COPY_THRESHOLD + 10


def _changes(spec, cluster_id, objs, *, new):
    changes = Changes()
    for obj in objs:
        changes.upsert(spec, object_row(spec, cluster_id, obj), new=new)
    return changes


def test_new_rows_are_copied_with_every_column(db):
    cluster = ensure_live_cluster("c")
    nodes = [b.node(f"n{i}", gpus=8 if i % 2 else 0) for i in range(N)]
    apply_changes(cluster.pk, _changes(NODES, cluster.pk, nodes, new=True))

    stored = Node.objects.filter(cluster=cluster)
    assert stored.count() == N
    gpu = stored.get(name="n1")
    # JSON columns other than obj are serialised as themselves (not as obj).
    assert gpu.gpu_resources == ["nvidia.com/gpu"]
    assert (gpu.gpu_capacity, gpu.gpu_allocatable, gpu.ready) == (8, 8, True)
    assert stored.get(name="n0").gpu_resources == []
    assert gpu.obj["metadata"]["name"] == "n1" and gpu.obj["kind"] == "Node"
    assert gpu.updated_at is not None


def test_rows_wrongly_thought_new_are_upserted(db, caplog):
    cluster = ensure_live_cluster("c")
    apply_changes(cluster.pk, _changes(PODS, cluster.pk, [b.pod("p0", gpus=1)], new=True))
    pods = [b.pod(f"p{i}", gpus=2, node="n1") for i in range(N)]

    # p0 is stored already: the COPY into the table fails on the unique key,
    # its savepoint is rolled back and the whole batch is upserted instead.
    with caplog.at_level(logging.INFO, logger="dashboard.cluster.services.cluster_state"):
        apply_changes(cluster.pk, _changes(PODS, cluster.pk, pods, new=True))

    assert "exist already" in caplog.text
    stored = Pod.objects.filter(cluster=cluster)
    assert stored.count() == N
    assert set(stored.values_list("gpu_requested", "node_name")) == {(2, "n1")}


def test_a_batch_mixes_new_and_stored_rows(db):
    cluster = ensure_live_cluster("c")
    old = [b.pod(f"p{i}") for i in range(N)]
    apply_changes(cluster.pk, _changes(PODS, cluster.pk, old, new=True))

    changes = Changes()
    for i in range(2 * N):  # the first N are updates, the rest new
        obj = b.pod(f"p{i}", gpus=3)
        changes.upsert(PODS, object_row(PODS, cluster.pk, obj), new=i >= N)
    changes.delete(PODS, ("default", "p0"))
    apply_changes(cluster.pk, changes)

    stored = Pod.objects.filter(cluster=cluster)
    assert stored.count() == 2 * N - 1
    assert not stored.filter(name="p0").exists()
    assert set(stored.values_list("gpu_requested", flat=True)) == {3}
