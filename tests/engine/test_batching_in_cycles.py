"""OpportunisticBatching over whole runs: where it changes a placement, and where it must not.

Upstream v1.36 (``schedule_one.go``, ``framework/runtime/batch.go``): the
next identical pod is offered the previous cycle's next-best node when the
previous pod's node can no longer take it; the hinted node is filtered alone,
outside the ``percentageOfNodesToScore`` window, and the rotating start index
stays where it was.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler_engine import build_cluster, simulate
from scheduler_engine.config import load_config
from scheduler_engine.features import parse_feature_gates, resolve_feature_gates
from tests.engine.builders import cluster_objects, make_node, make_pod
from tests.engine.randomgen import random_cluster
from tests.engine.test_random_clusters import SETTINGS, check_run, decisions

NO_SPREAD = {"plugins": {"multiPoint": {"disabled": [{"name": "PodTopologySpread"}]}}}


def config(profile: dict[str, Any] | None, batching: bool):
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", **(profile or {})}],
    }
    return load_config(
        doc, feature_gates=resolve_feature_gates({"OpportunisticBatching": batching})
    )


def placements(objs: list[dict[str, Any]], profile: dict[str, Any] | None, batching: bool, **kw):
    res = simulate(build_cluster(copy.deepcopy(objs)), config(profile, batching), **kw)
    return {r.pod: r.node for r in res.results}


def window_cluster() -> list[dict[str, Any]]:
    """200 nodes that hold one pod each; the best nodes are n050, then n060 (both in the
    first 100 nodes searched), and n150 in the next 100."""
    cpu = {50: "4", 60: "3", 150: "3500m"}
    nodes = [
        make_node(f"n{i:03d}").alloc("cpu", cpu.get(i, "1")).alloc("memory", "4Gi").alloc("pods", 1)
        for i in range(200)
    ]
    pods = [make_pod(f"p{i}").req(cpu="500m").created(f"2026-01-01T00:00:0{i}Z") for i in range(2)]
    return cluster_objects(*nodes, *pods)


def test_the_next_identical_pod_takes_the_previous_cycles_next_best_node() -> None:
    got = placements(window_cluster(), NO_SPREAD, True)
    assert got == {"default/p0": "n050", "default/p1": "n060"}


@pytest.mark.parametrize("seed", range(4))
def test_the_hint_among_tied_nodes_is_the_next_pop_of_upstreams_heap(seed: int) -> None:
    """n0 is best, n1..n7 tie: popping n0 moves n7 to the root, so n7 is the hint
    (every seed); without batching the next pod's own heap over n1..n7 gives n1."""
    cpu = {0: "4"}
    nodes = [
        make_node(f"n{i}").alloc("cpu", cpu.get(i, "1")).alloc("memory", "4Gi").alloc("pods", 1)
        for i in range(8)
    ]
    pods = [make_pod(f"p{i}").req(cpu="500m").created(f"2026-01-01T00:00:0{i}Z") for i in range(2)]
    objs = cluster_objects(*nodes, *pods)
    assert placements(objs, NO_SPREAD, True, seed=seed) == {"default/p0": "n0", "default/p1": "n7"}
    assert placements(objs, NO_SPREAD, False, seed=seed) == {"default/p0": "n0", "default/p1": "n1"}


def test_without_the_gate_the_next_pod_searches_the_next_window() -> None:
    got = placements(window_cluster(), NO_SPREAD, False)
    assert got == {"default/p0": "n050", "default/p1": "n150"}


def test_the_default_profile_never_batches() -> None:
    for batching in (True, False):
        got = placements(window_cluster(), None, batching)
        assert got == {"default/p0": "n050", "default/p1": "n150"}


def test_a_nominated_node_goes_first_and_the_unused_hint_ends_the_list() -> None:
    objs = window_cluster()
    objs += cluster_objects(make_pod("p2").req(cpu="500m").created("2026-01-01T00:00:02Z"))
    p1 = next(o for o in objs if o["kind"] == "Pod" and o["metadata"]["name"] == "p1")
    p1["status"] = {"nominatedNodeName": "n100"}
    got = placements(objs, NO_SPREAD, True)
    # p1 takes its nomination, not the hint n060; the list is dropped, so p2
    # searches the next window from where p0 left the start index
    assert got == {"default/p0": "n050", "default/p1": "n100", "default/p2": "n150"}


def test_pods_that_differ_get_no_hint() -> None:
    objs = window_cluster()
    objs[-1]["metadata"]["labels"] = {"app": "other"}
    assert placements(objs, NO_SPREAD, True)["default/p1"] == "n150"


def test_a_previous_node_that_still_fits_the_pod_means_no_hint() -> None:
    objs = window_cluster()
    for o in objs:
        if o["kind"] == "Node" and o["metadata"]["name"] == "n050":
            o["status"]["allocatable"]["pods"] = "2"
            o["status"]["capacity"]["pods"] = "2"
    # p1 still fits n050: the previous scores cannot rank it, so it searches as usual
    assert placements(objs, NO_SPREAD, True) == placements(objs, NO_SPREAD, False)


def test_the_gate_is_switchable_like_the_others() -> None:
    assert parse_feature_gates("OpportunisticBatching=false")["OpportunisticBatching"] is False
    assert resolve_feature_gates({})["OpportunisticBatching"] is True


def test_explaining_decides_as_not_explaining_with_hints() -> None:
    objs = window_cluster()
    fast = simulate(build_cluster(copy.deepcopy(objs)), config(NO_SPREAD, True)).to_dict()
    slow = simulate(build_cluster(copy.deepcopy(objs)), config(NO_SPREAD, True), explain=True)
    assert decisions(fast) == decisions(slow.to_dict())
    # the check on the previous pod's node is not part of p1's explanation
    p1 = slow.by_pod()["default/p1"]
    assert p1.node == "n060"
    assert "n050" not in (p1.to_dict(True).get("filterFailures") or {})


# -- random clusters: where batching must not matter, and what must hold with it ----------
def with_replicas(objs: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """Each pending pod followed by up to three identical copies (a Deployment's replicas)."""
    out = []
    for o in objs:
        out.append(o)
        if o["kind"] == "Pod" and not o["spec"].get("nodeName"):
            for k in range(rng.randint(0, 3)):
                c = copy.deepcopy(o)
                c["metadata"]["name"] = f"{o['metadata']['name']}-r{k}"
                c["metadata"].pop("uid", None)
                out.append(c)
    return out


@settings(max_examples=25, **SETTINGS)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_the_gate_changes_nothing_in_the_default_profile(seed: int) -> None:
    rng = random.Random(seed)
    objs = with_replicas(random_cluster(rng), rng)
    on = simulate(build_cluster(copy.deepcopy(objs)), config(None, True), seed=seed).to_dict()
    off = simulate(build_cluster(copy.deepcopy(objs)), config(None, False), seed=seed).to_dict()
    assert on["results"] == off["results"]


@settings(max_examples=25, **SETTINGS)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_batching_profiles_decide_alike_explained_and_keep_the_invariants(seed: int) -> None:
    rng = random.Random(seed)
    objs = with_replicas(random_cluster(rng, max_pending=15), rng)
    fast = simulate(build_cluster(copy.deepcopy(objs)), config(NO_SPREAD, True), seed=seed)
    slow = simulate(
        build_cluster(copy.deepcopy(objs)), config(NO_SPREAD, True), seed=seed, explain=True
    )
    assert decisions(fast.to_dict()) == decisions(slow.to_dict())
    check_run(objs, fast.to_dict())
