"""NodeResourcesBalancedAllocation: upstream's balanced_allocation_test.go table (v1.36 formula).

Every case also runs the batch path; hypothesis checks batch == per node on
random clusters, including three-resource (standard deviation) cases.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_engine.framework import CycleState
from scheduler_engine.framework.status import Code
from scheduler_engine.plugins.noderesources import balanced_allocation
from scheduler_engine.plugins.noderesources.resource_allocation import (
    balanced_resource_score,
    balanced_resource_scorer,
)
from tests.engine.plugins.test_noderesources_fit import (
    FakeHandle,
    _cluster,
    clusters,
    make_pod,
    score_all,
)

GPU = "nvidia.com/gpu"
DEFAULT = {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
WITH_GPU = {"resources": [*DEFAULT["resources"], {"name": GPU, "weight": 1}]}


def cpu(c: str) -> dict[str, str]:
    return {"cpu": c}


def cm(c: str, m: str, gpu: str | None = None) -> dict[str, str]:
    out = {"cpu": c, "memory": m}
    if gpu is not None:
        out[GPU] = gpu
    return out


def node(name: str, milli_cpu: int, memory: int, gpus: int | None = None) -> tuple[str, dict]:
    alloc: dict[str, Any] = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    if gpus is not None:
        alloc[GPU] = str(gpus)
    return name, alloc


CASES = [
    # (name, args, pod, nodes, existing [(node, containers...)], expected)
    ("nothing scheduled, resources requested, differently sized nodes", DEFAULT,
     make_pod(cm("1000m", "2000"), cm("2000m", "3000")),
     [node("node1", 4000, 10000), node("node2", 6000, 10000)], [], [68, 75]),
    ("resources requested, pods scheduled with resources", DEFAULT,
     make_pod(cm("1000m", "2000"), cm("2000m", "3000")),
     [node("node1", 10000, 20000), node("node2", 10000, 20000)],
     [("node1", cpu("1000m"), cpu("2000m")), ("node2", cm("1000m", "2000"), cm("2000m", "3000"))],
     [73, 74]),
    ("resources requested, pods scheduled with resources, differently sized nodes", DEFAULT,
     make_pod(cm("1000m", "2000"), cm("2000m", "3000")),
     [node("node1", 10000, 20000), node("node2", 10000, 50000)],
     [("node1", cpu("1000m"), cpu("2000m")), ("node2", cm("1000m", "2000"), cm("2000m", "3000"))],
     [73, 70]),
    ("resources requested, pods scheduled with resources, nodes to reach min/max score", DEFAULT,
     make_pod({"memory": "2000"}, {"memory": "3000"}),
     [node("node1", 3000, 5000), node("node2", 3000, 5000)],
     [("node1", cpu("1000m"), cpu("2000m"))], [100, 50]),
    ("requested resources at node capacity", DEFAULT,
     make_pod(cpu("1000m"), cpu("2000m")),
     [node("node1", 6000, 10000), node("node2", 6000, 10000)],
     [("node1", cpu("1000m"), cpu("2000m")), ("node2", cm("1000m", "2000"), cm("2000m", "3000"))],
     [62, 62]),
    ("scalar resource is included in the score computation if pod requests the scalar resource", WITH_GPU,
     make_pod(cm("0", "0", "1")),
     [node("node1", 3500, 40000, 8), node("node2", 3500, 40000, 8)],
     [("node1", cm("1000m", "2000"), cm("2000m", "3000", "3")), ("node2", cm("1000m", "2000"), cm("2000m", "3000"))],
     [75, 76]),
    ("scalar resource is not included in the score computation if pod doesn't request the scalar resource", WITH_GPU,
     make_pod(cm("1000m", "2000"), cm("2000m", "3000")),
     [node("node1", 3500, 40000, 8), node("node2", 3500, 40000)], [], [56, 56]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "pod", "nodes", "existing", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
@pytest.mark.parametrize("run_pre_score", [True, False], ids=["prescore", "no-prescore"])
def test_balanced_allocation_scores(args, pod, nodes, existing, want, run_pre_score) -> None:
    snapshot = _cluster(nodes, existing)
    plugin = balanced_allocation.new(args, FakeHandle(snapshot))
    assert score_all(plugin, snapshot, pod, run_pre_score) == want


def test_pre_score_skips_a_pod_that_requests_nothing() -> None:
    snapshot = _cluster([node("node1", 4000, 10000), node("node2", 4000, 10000)], [])
    plugin = balanced_allocation.new(DEFAULT, FakeHandle(snapshot))
    got = plugin.pre_score(CycleState(), make_pod(), snapshot.node_info_list)
    assert got is not None and got.code == Code.SKIP


def test_pre_score_skips_a_container_without_requests_despite_non_zero_defaults() -> None:
    # balanced allocation counts actual requests: no 100m/200Mi defaults
    snapshot = _cluster([node("node1", 4000, 10000)], [])
    plugin = balanced_allocation.new(DEFAULT, FakeHandle(snapshot))
    got = plugin.pre_score(CycleState(), make_pod({}), snapshot.node_info_list)
    assert got is not None and got.code == Code.SKIP


def test_score_without_pre_score_for_best_effort_pod_is_zero() -> None:
    snapshot = _cluster([node("node1", 4000, 10000)], [])
    plugin = balanced_allocation.new({}, FakeHandle(snapshot))
    assert plugin.score(CycleState(), make_pod(), snapshot.node_info_list[0]) == 0


def test_default_resources_are_cpu_and_memory() -> None:
    plugin = balanced_allocation.new({}, None)
    assert [(r.name, r.weight) for r in plugin.resources] == [("cpu", 1), ("memory", 1)]
    assert plugin.score_extensions() is None


SCORER_CASES = [
    # (requested, allocated, allocatable, balance with, balance without, score)
    ("two resources use half the difference", [3000, 5000], [0, 0], [4000, 10000], 87, 100, 68),
    # uncapped, 1.5 and 0 would give a balance of 25
    ("fractions are capped at one", [4500, 0], [1500, 0], [3000, 3000], 50, 75, 62),
    ("three resources use the standard deviation", [3000, 5000, 4], [3000, 5000, 3], [3500, 40000, 8], 70, 69, 75),
    ("one resource is always balanced", [5, 0], [0, 0], [10, 0], 100, 100, 75),
    ("a worse balance truncates toward zero", [1000, 0], [0, 0], [1000, 1000], 50, 100, 50),
]  # fmt: skip


@pytest.mark.parametrize(
    ("requested", "allocated", "allocatable", "with_pod", "without_pod", "score"),
    [c[1:] for c in SCORER_CASES],
    ids=[c[0] for c in SCORER_CASES],
)
def test_balanced_resource_scorer(
    requested, allocated, allocatable, with_pod, without_pod, score
) -> None:
    assert balanced_resource_score(requested, allocatable) == with_pod
    assert balanced_resource_score(allocated, allocatable) == without_pod
    assert balanced_resource_scorer(requested, allocated, allocatable) == score


def test_float_fraction_error_truncates_like_go() -> None:
    # 1 - 0.68/2 is 0.6599999999999999 in float64: Go's int64() gives 65, not 66
    assert balanced_resource_score([0, 68], [100, 100]) == 65
    # with 99, without 100: 50 + (50 + 99 - 100) / 2 = 50 + 24
    assert balanced_resource_scorer([51, 49], [50, 50], [100, 100]) == 74


ARGS = st.sampled_from(
    [
        DEFAULT,
        {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                       {"name": "example.com/gpu", "weight": 1}]},
        {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
                       {"name": "ephemeral-storage", "weight": 1}, {"name": "example.com/gpu", "weight": 1},
                       {"name": "hugepages-2Mi", "weight": 1}]},
        {"resources": [{"name": "example.com/gpu", "weight": 1}, {"name": "cpu", "weight": 1}]},
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters(), ARGS)
def test_batch_path_equals_per_node_path(cluster, args) -> None:
    nodes, existing, pod = cluster
    snapshot = _cluster(nodes, existing)
    plugin = balanced_allocation.new(args, FakeHandle(snapshot))
    state = CycleState()
    infos = snapshot.node_info_list
    status = plugin.pre_score(state, pod, infos)
    if status is not None:
        assert status.code == Code.SKIP
        return
    want = [plugin.score(state, pod, ni) for ni in infos]
    assert plugin.score_batch(state, pod, infos).tolist() == want
    snapshot.add_pod(pod, infos[-1].name)
    assert plugin.score_batch(state, pod, infos).tolist() == [
        plugin.score(state, pod, ni) for ni in infos
    ]
