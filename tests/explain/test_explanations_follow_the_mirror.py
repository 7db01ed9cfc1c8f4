"""The warm explanation state follows what the mirror writes, without rebuilding."""

from __future__ import annotations

import copy
import random

import pytest

from dashboard.cluster.models import Node, Pod
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.explain import live as warm
from dashboard.explain.live import explain_pod
from tests.support.mirror import write_batch
from tests.support.synthetic import fleet, pod
from tests.support.warm import mirror_batch, node_state


def _explain(cluster, name="pod-999"):
    return explain_pod(cluster, "default", name)


def _fresh(cluster, name="pod-999"):
    warm.forget(cluster.pk)
    return _explain(cluster, name)


def test_an_explanation_follows_binds_deletes_and_node_changes(db):

    cluster = ensure_snapshot_cluster("warm", "synthetic")
    import_objects(cluster, [*fleet(4, running=8), pod(999, gpus=8)])
    first = _explain(cluster)
    assert first["status"] == "Scheduled"
    built = warm.warm_stats(cluster)
    assert built is not None and built["runningPods"] == 8

    # every node's GPUs get taken: the pod no longer fits anywhere
    hogs = [pod(100 + i, node_name=f"node-{i}", gpus=8) for i in range(4)]
    write_batch(cluster, upserts=hogs)
    now = _explain(cluster)
    assert now["status"] == "Unschedulable"
    assert "Insufficient nvidia.com/gpu" in now["message"]
    assert warm.warm_stats(cluster)["lastRefresh"]["changes"] == 4
    assert now == {**_fresh(cluster), "summary": now["summary"]}

    # one hog goes away and its node is cordoned: still no room
    cordoned = copy.deepcopy(Node.objects.get(cluster=cluster, name="node-2").obj)
    cordoned["spec"] = {"unschedulable": True}
    write_batch(cluster, upserts=[cordoned], deletes=[("Pod", "default", "pod-102")])
    now = _explain(cluster)
    assert now["status"] == "Unschedulable"
    assert now["filterFailures"]["node-2"]["plugin"] == "NodeUnschedulable"
    assert now["record"] == _fresh(cluster)["record"]

    # another hog leaves: the pod fits on its node
    write_batch(cluster, deletes=[("Pod", "default", "pod-101")])
    now = _explain(cluster)
    assert (now["status"], now["node"]) == ("Scheduled", "node-1")


def test_a_pod_replaced_under_the_same_name_is_seen(db):

    cluster = ensure_snapshot_cluster("warm-replace", "synthetic")
    import_objects(cluster, [*fleet(1), pod(1, node_name="node-0", gpus=8), pod(999, gpus=8)])
    assert _explain(cluster)["status"] == "Unschedulable"
    # deleted and created again (new row id), now asking for nothing
    Pod.objects.filter(cluster=cluster, name="pod-1").delete()
    write_batch(cluster, upserts=[pod(1, node_name="node-0")])
    assert _explain(cluster)["status"] == "Scheduled"


@pytest.mark.parametrize("seed", [11, 12])
def test_after_random_mirror_batches_the_warm_state_is_a_fresh_build(db, seed):
    """Status churn (parses reused) and real changes, through the mirror's writer."""
    cluster = ensure_snapshot_cluster(f"warm-batches-{seed}", "synthetic")
    objects = [*fleet(6, running=30), pod(999, gpus=8), pod(998, gpus=2)]
    import_objects(cluster, objects)
    rng = random.Random(seed)
    running = [o for o in objects if o["kind"] == "Pod" and o["spec"].get("nodeName")]
    nodes = [o["metadata"]["name"] for o in objects if o["kind"] == "Node"]
    _explain(cluster)
    for _ in range(4):
        batch = mirror_batch(rng, running, nodes)
        write_batch(cluster, upserts=batch)
        names = {b["metadata"]["name"] for b in batch}
        running = [*batch, *(o for o in running if o["metadata"]["name"] not in names)]
        now = [_explain(cluster, name) for name in ("pod-999", "pod-998")]
        kept = warm.warm_cluster(cluster)
        assert warm.warm_stats(cluster)["lastRefresh"]["changes"] == len(batch)
        fresh = [_fresh(cluster, name) for name in ("pod-999", "pod-998")]
        assert [{**a, "summary": None} for a in now] == [{**b, "summary": None} for b in fresh]
        assert node_state(kept) == node_state(warm.warm_cluster(cluster))
