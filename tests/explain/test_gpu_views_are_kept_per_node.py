"""The dashboard's per-node GPU views equal the engine's, and a change recomputes only its node."""

from __future__ import annotations

import copy
import random

import pytest

from benchmarks.gpu_pages import fleet
from dashboard.explain import hardware
from scheduler_engine import hardware_view
from scheduler_engine.documents import read_objects
from scheduler_engine.warm_cluster import WarmCluster
from tests.support import gpus, objects
from tests.support.fixtures import DEMO


def _as_dicts(views: dict) -> dict:
    return {k: v.to_dict() for k, v in views.items()}


@pytest.mark.parametrize("source", ["demo", "fleet"])
def test_the_kept_views_are_the_engines_after_random_changes(source):
    objs = read_objects(DEMO) if source == "demo" else fleet(60)
    rng = random.Random(11)
    warm = WarmCluster(copy.deepcopy(objs))
    cluster_id = -1 - len(source)
    nodes = [o["metadata"]["name"] for o in objs if o["kind"] == "Node"]
    for step in range(12):
        state = warm.state()
        assert _as_dicts(hardware._views(cluster_id, state)) == _as_dicts(
            hardware_view.gpu_views(state)
        ), step
        node = rng.choice(nodes)
        change = rng.randrange(5)
        if change == 0:  # a GPU pod arrives
            warm.apply([objects.pod(f"p{step}", node=node, gpus=rng.choice([1, 2, 4]))])
        elif change == 1:  # a pod with a claim goes
            held = [o for o in objs if o["kind"] == "Pod" and o["spec"].get("resourceClaims")]
            if held:
                victim = rng.choice(held)
                meta = victim["metadata"]
                warm.apply(deletes=[("Pod", meta["namespace"], meta["name"])])
        elif change == 2:  # a claim is allocated on the node's pool
            claim = gpus.allocated_claim(f"c{step}", node, [f"gpu-{rng.randrange(8)}"], pod="x")
            warm.apply([claim])
        elif change == 3:  # the node's device plugin count changes
            n = gpus.gpu_node(node, gpus=rng.choice([0, 4, 7, 8]), gfd_count=8)
            warm.apply([n])
        else:  # its topology is republished
            warm.apply([gpus.nrt(node, [(4, rng.randrange(5)), (4, 4)])])


def test_a_change_recomputes_only_its_node():
    warm = WarmCluster(fleet(40))
    first = hardware._views(-100, warm.state())
    warm.apply([objects.pod("late", node="gpu-0003", gpus=2)])
    second = hardware._views(-100, warm.state())
    changed = [n for n in first if first[n] is not second[n]]
    assert changed == ["gpu-0003"]
    assert second["gpu-0003"].requested == first["gpu-0003"].requested + 2


def test_the_warm_state_parses_topologies_once_and_rejects_bad_ones():
    warm = WarmCluster([gpus.gpu_node("n1"), gpus.nrt("n1", [(4, 4), (4, 1)])])
    first = warm.state().node_topologies["n1"]
    assert warm.state().node_topologies["n1"] is first  # parsed on arrival, not per state()
    bad = gpus.nrt("n1", [(4, 4)])
    bad["zones"][0]["resources"][2]["available"] = "lots"
    warm.apply([bad])
    assert "n1" not in warm.state().node_topologies
    [(key, reason)] = warm.rejected.items()
    assert key == ("NodeResourceTopology", "", "n1") and "available" in reason
    warm.apply([gpus.nrt("n1", [(8, 8)])])
    assert warm.state().node_topologies["n1"].numa_zones[0].name == "node-0"
    warm.apply(deletes=[("NodeResourceTopology", "", "n1")])
    assert warm.state().node_topologies == {} and not warm.rejected
