"""The warm engine state (scheduler_engine.warm_cluster) decides exactly as a fresh simulation.

Pure engine, no database: each pending pod of the demo cluster is explained on
the warm state and on a cluster built from scratch with the same objects; then
the warm state follows deltas (pods bound and deleted, a node relabelled,
cordoned and removed, a priority class changed) and must still agree.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import scheduler_engine
from scheduler_engine import build_cluster, default_config, simulate
from scheduler_engine.documents import read_objects
from scheduler_engine.errors import InputError
from scheduler_engine.warm_cluster import WarmCluster, object_key
from tests.support.synthetic import fleet, node, pod
from tests.support.warm import mirror_batch, node_state

DEMO = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"


def _fresh(objects: list[dict[str, Any]], pending: dict[str, Any]) -> dict[str, Any]:
    state = build_cluster([*objects, pending])
    return simulate(state, default_config(), explain=True, whatif=True).to_dict()["results"][0]


def _same(warm: WarmCluster, objects: list[dict[str, Any]], pending: dict[str, Any]) -> None:
    got = warm.explain_pod(pending, default_config())
    got.pop("summary")
    want = _fresh(objects, pending)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


def _put(objects: list[dict[str, Any]], *new: dict[str, Any]) -> None:
    """Replace in place (an update keeps the object's place, as the mirror's rows do)."""
    for o in new:
        at = [i for i, x in enumerate(objects) if object_key(x) == object_key(o)]
        if at:
            objects[at[0]] = o
        else:
            objects.append(o)


def _split(objects: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    base, pending = [], []
    for o in objects:
        if o.get("kind") == "Pod" and not (o.get("spec") or {}).get("nodeName"):
            pending.append(o)
        else:
            base.append(o)
    return base, pending


def test_it_explains_every_demo_pending_pod_like_a_fresh_simulation() -> None:
    base, pending = _split(read_objects(DEMO))
    warm = WarmCluster(base)
    assert pending
    for p in pending:
        _same(warm, base, p)
        _same(warm, base, p)  # the run left the warm snapshot as it was


def test_it_schedules_every_demo_pending_pod_in_queue_order_like_a_fresh_simulation() -> None:
    """What the overview's engine messages come from: the whole queue on the warm state."""
    objects = read_objects(DEMO)
    base, pending = _split(objects)
    warm = WarmCluster(base)
    want = simulate(build_cluster(objects), default_config()).to_dict()["results"]
    for _ in range(2):  # the run left the warm snapshot as it was
        got = warm.schedule(pending, default_config())["results"]
        assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert {r["status"] for r in want} >= {"Scheduled", "Unschedulable"}


def test_pods_scheduled_earlier_in_the_queue_take_room_from_later_ones() -> None:
    warm = WarmCluster(fleet(1))  # one node, 8 GPUs
    first, second = pod(1, gpus=8), pod(2, gpus=8)
    results = warm.schedule([first, second], default_config())["results"]
    assert [r["status"] for r in results] == ["Scheduled", "Unschedulable"]
    assert "Insufficient nvidia.com/gpu" in results[1]["message"]
    # alone, the second pod fits: nothing of the first run stayed behind
    assert warm.explain_pod(second, default_config())["status"] == "Scheduled"


def test_it_follows_pod_and_node_deltas() -> None:
    objects = fleet(30, running=200)
    warm = WarmCluster(objects)
    want = pod(9000, gpus=8)

    # fill node-3 and node-4 with GPU pods, delete a running pod, finish another
    extra = [pod(5000 + i, node_name=f"node-{3 + i % 2}", gpus=4) for i in range(4)]
    finished = copy.deepcopy(objects[30 + 7])
    finished["status"]["phase"] = "Succeeded"
    warm.apply([*extra, finished], deletes=[("Pod", "default", "pod-8")])
    objects = [o for o in objects if o["metadata"]["name"] != "pod-8"]
    _put(objects, *extra, finished)
    _same(warm, objects, want)

    # relabel one node (zone moves: the node order changes), cordon another, drop a third
    moved = node(5)
    moved["metadata"]["labels"]["topology.kubernetes.io/zone"] = "zone-9"
    cordoned = node(6)
    cordoned["spec"] = {"unschedulable": True}
    warm.apply([moved, cordoned], deletes=[("Node", "", "node-7")])
    objects = [o for o in objects if object_key(o) != ("Node", "", "node-7")]
    _put(objects, moved, cordoned)
    _same(warm, objects, want)

    # the node comes back: its pods are on it again
    warm.apply([node(7)])
    objects.append(node(7))
    _same(warm, objects, want)


def test_it_reresolves_priorities_when_a_priority_class_changes() -> None:
    objects = fleet(2)
    hi = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "hi"},
        "value": 10,
    }
    low = pod(1, node_name="node-0", gpus=8)
    low["spec"]["priorityClassName"] = "hi"
    objects += [hi, low, pod(2, node_name="node-1", gpus=8)]
    warm = WarmCluster(objects)
    preemptor = pod(3, gpus=8)
    preemptor["spec"]["priority"] = 100
    _same(warm, objects, preemptor)
    _same(warm, objects, preemptor)  # the victims are back after the run
    hi2 = {**hi, "value": 1000}
    warm.apply([hi2])
    _put(objects, hi2)
    _same(warm, objects, preemptor)


def test_it_skips_objects_the_engine_cannot_parse_and_names_them() -> None:
    bad = pod(1, node_name="node-0")
    bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    warm = WarmCluster([*fleet(1), bad])
    assert warm.counts["runningPods"] == 0
    assert object_key(bad) in warm.rejected
    assert "cpu" in warm.rejected[object_key(bad)]


def test_it_refuses_to_explain_a_bound_pod() -> None:
    warm = WarmCluster(fleet(1))
    with pytest.raises(InputError, match="spec.nodeName"):
        warm.explain_pod(pod(1, node_name="node-0"), default_config())
    with pytest.raises(InputError, match="spec.nodeName"):
        warm.schedule([pod(2), pod(1, node_name="node-0")], default_config())


def _storage_class() -> dict[str, Any]:
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "local"},
        "provisioner": "kubernetes.io/no-provisioner",
        "volumeBindingMode": "WaitForFirstConsumer",
    }


def _claim() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default"},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "local",
            "resources": {"requests": {"storage": "10Gi"}},
        },
        "status": {"phase": "Pending"},
    }


def _volume(name: str, node_name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {
            "capacity": {"storage": "100Gi"},
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": "local",
            "local": {"path": "/mnt/disk"},
            "nodeAffinity": {
                "required": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {
                                    "key": "kubernetes.io/hostname",
                                    "operator": "In",
                                    "values": [node_name],
                                }
                            ]
                        }
                    ]
                }
            },
        },
        "status": {"phase": "Available"},
    }


def test_it_follows_volume_objects_for_a_pod_with_a_claim() -> None:
    objects = [*fleet(3), _storage_class(), _claim()]
    warm = WarmCluster(objects)
    want = pod(9000)
    want["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]

    # no volume yet: every node lacks one
    _same(warm, objects, want)
    assert "didn't find available persistent volumes to bind" in warm.explain_pod(want)["message"]

    # a local volume on node-1 arrives: the pod goes there
    pv = _volume("pv-1", "node-1")
    warm.apply([pv])
    _put(objects, pv)
    _same(warm, objects, want)
    got = warm.explain_pod(want)
    assert (got["status"], got["node"]) == ("Scheduled", "node-1")

    # the volume moves to node-2 (an update in place)
    moved = _volume("pv-1", "node-2")
    warm.apply([moved])
    _put(objects, moved)
    _same(warm, objects, want)
    assert warm.explain_pod(want)["node"] == "node-2"

    # the claim is deleted: the pod cannot be scheduled at all
    warm.apply(deletes=[("PersistentVolumeClaim", "default", "data")])
    objects = [o for o in objects if o["kind"] != "PersistentVolumeClaim"]
    _same(warm, objects, want)
    assert 'persistentvolumeclaim "data" not found' in warm.explain_pod(want)["message"]

    # and comes back
    warm.apply([_claim()])
    objects.append(_claim())
    _same(warm, objects, want)
    assert warm.counts["otherObjects"] == 3


@pytest.mark.parametrize("seed", [5, 17, 311])
def test_views_kept_between_runs_follow_runs_and_deltas(seed: int) -> None:
    """Node tables and affinity counts outlive a run: each explanation still matches."""
    import random

    from tests.engine.randomgen import random_cluster

    rng = random.Random(seed)
    base, pending = _split(random_cluster(rng, min_nodes=8, max_nodes=20, max_pending=8))
    warm = WarmCluster(base)
    nodes = [o["metadata"]["name"] for o in base if o["kind"] == "Node"]
    for i, p in enumerate(pending):
        _same(warm, base, p)
        running = [o for o in base if o["kind"] == "Pod"]
        if i % 2 and running:
            # a running pod goes away
            gone = rng.choice(running)
            warm.apply(deletes=[object_key(gone)])
            base.remove(gone)
        else:
            # the pod just explained is bound somewhere (whether it fits or not)
            bound = copy.deepcopy(p)
            bound["spec"]["nodeName"] = rng.choice(nodes)
            warm.apply([bound])
            base.append(bound)
    for p in pending[:3]:
        _same(
            warm,
            base,
            {**p, "metadata": {**p["metadata"], "name": "again-" + p["metadata"]["name"]}},
        )


def test_its_clock_starts_where_a_fresh_simulations_would_after_deltas(monkeypatch) -> None:
    """The running pods' clock is kept between runs; a delta must move it on."""
    import scheduler_engine.warm_cluster as wc
    from scheduler_engine.simulate import default_clock

    def stamped(p: dict[str, Any], when: str) -> dict[str, Any]:
        p["metadata"]["creationTimestamp"] = when
        return p

    objects = [*fleet(2), stamped(pod(1, node_name="node-0"), "2026-01-01T00:00:00Z")]
    warm = WarmCluster(copy.deepcopy(objects))
    starts: list[float] = []
    real = wc.simulate

    def recording(*args: Any, now: float | None = None, **kw: Any) -> Any:
        starts.append(now)
        return real(*args, now=now, **kw)

    monkeypatch.setattr(wc, "simulate", recording)
    pending = stamped(pod(99), "2025-06-01T00:00:00Z")
    for later in ("2026-03-01T00:00:00Z", "2026-05-01T00:00:00Z"):
        warm.explain_pod(pending, default_config())
        state = build_cluster([*objects, pending])
        assert starts[-1] == default_clock(state.pods, state.of_kind("PodGroup"))
        newer = stamped(pod(len(objects), node_name="node-1"), later)
        objects.append(newer)
        warm.apply([copy.deepcopy(newer)])
    warm.explain_pod(pending, default_config())
    assert starts[-1] == default_clock(build_cluster([*objects, pending]).pods, ())
    assert starts[0] < starts[1] < starts[2]
    # the latest pod goes: the clock goes back to the one before
    newest = objects.pop()
    warm.apply((), [object_key(newest)])
    warm.explain_pod(pending, default_config())
    assert starts[-1] == starts[1]
    # a node's change leaves the clock alone; a running pod's rewrite keeps it right
    relabelled = copy.deepcopy(objects[0])
    relabelled["metadata"].setdefault("labels", {})["x"] = "y"
    warm.apply([relabelled, stamped(pod(1, node_name="node-0"), "2026-06-01T00:00:00Z")])
    warm.explain_pod(pending, default_config())
    assert starts[-1] > starts[2]


@pytest.mark.parametrize("seed", [3, 29, 71, 404])
def test_after_random_mirror_batches_it_is_a_fresh_build(seed: int) -> None:
    """Status and metadata churn reuses parsed pods; the state is still exactly a fresh build's."""
    import random

    from scheduler_engine.simulate import default_clock
    from tests.engine.randomgen import random_cluster

    rng = random.Random(seed)
    base, pending = _split(random_cluster(rng, min_nodes=6, max_nodes=16, max_pending=4))
    warm = WarmCluster(copy.deepcopy(base))
    nodes = [o["metadata"]["name"] for o in base if o["kind"] == "Node"]
    for _ in range(6):
        batch = mirror_batch(rng, base, nodes)
        warm.apply(copy.deepcopy(batch))
        _put(base, *batch)
        fresh = WarmCluster(copy.deepcopy(base))
        assert node_state(warm) == node_state(fresh)
        # the running pods (a fresh build lists them in the rows' order, which the
        # database does not fix: the engine's answers must not depend on it)
        assert sorted(warm._pods) == sorted(fresh._pods)
        if warm._clock is not None:
            assert warm._clock == default_clock(fresh._pods.values(), ())
        for p in pending[:2]:
            _same(warm, base, p)
