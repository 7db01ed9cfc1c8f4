"""OpenGpuShare: which nodes fit, which GPU a pod gets, and how the result explains it."""

from __future__ import annotations

import random

import pytest

from scheduler_engine.cluster import ClusterState
from scheduler_engine.config import load_config
from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.registry import default_registry
from scheduler_engine.plugins.gpushare import (
    ERR_MODEL,
    ERR_NO_GPU,
    ERR_NOT_ENOUGH,
    OpenGpuShare,
    choose_best,
    choose_worst,
)
from scheduler_engine.plugins.gpushare.resources import GPU_INDEX, GpuRequest, parse_gpu_request
from scheduler_engine.replay.profiles import default_config_doc
from scheduler_engine.simulate import simulate

from .gpus import gpu_node, gpu_pod, handle_over, running


def _config():
    caps = default_registry().capabilities()
    from scheduler_engine.config import DEFAULT_CAPABILITIES

    return load_config(default_config_doc(), capabilities={**DEFAULT_CAPABILITIES, **caps})


def test_filter_reasons() -> None:
    nodes = [
        gpu_node("cpu-only", gpus=0, model=""),
        gpu_node("t4", model="T4"),
        gpu_node("full", gpus=1),
    ]
    pods = [running(gpu_pod("hog", gpus=1, milli=900), "full", "0")]
    handle = handle_over(nodes, pods)
    pl = OpenGpuShare({}, handle)
    want = gpu_pod("p", gpus=1, milli=200, spec="V100")
    got = {ni.name: pl.filter(CycleState(), want, ni) for ni in handle.snapshot().node_info_list}
    assert got["cpu-only"].reasons == (ERR_NO_GPU,)
    assert got["t4"].reasons == (ERR_MODEL,)
    assert got["full"].reasons == (ERR_NOT_ENOUGH,)
    mask = pl.filter_batch(CycleState(), want, handle.snapshot().node_info_list)
    assert mask.tolist() == [False, False, False]
    fits = gpu_pod("q", gpus=1, milli=100, spec="V100|T4")
    assert pl.filter_batch(CycleState(), fits, handle.snapshot().node_info_list).tolist() == [
        False,
        True,
        True,
    ]


def test_batch_and_per_node_filters_agree_on_random_clusters() -> None:
    rng = random.Random(11)
    for _ in range(20):
        nodes, pods = [], []
        for i in range(12):
            g = rng.choice([0, 1, 2, 4, 8])
            nodes.append(gpu_node(f"n{i}", gpus=g, model=rng.choice(["T4", "V100", ""])))
            for j in range(g):
                if rng.random() < 0.6:
                    m = rng.choice([100, 300, 500, 1000])
                    pods.append(running(gpu_pod(f"p{i}-{j}", gpus=1, milli=m), f"n{i}", str(j)))
        handle = handle_over(nodes, pods)
        pl = OpenGpuShare({}, handle)
        infos = handle.snapshot().node_info_list
        for _ in range(10):
            n = rng.choice([1, 1, 2, 4, 8])
            m = 1000 if n > 1 else rng.choice([100, 500, 1000])
            pod = gpu_pod("x", gpus=n, milli=m, spec=rng.choice(["", "T4", "T4|V100"]))
            batch = pl.filter_batch(CycleState(), pod, infos).tolist()
            single = [pl.filter(CycleState(), pod, ni) is None for ni in infos]
            assert batch == single


@pytest.mark.parametrize(
    ("left", "req", "best", "worst"),
    [
        ([1000, 400, 300, 1000], GpuRequest(250, 1), [2], [0]),
        ([1000, 400, 300, 1000], GpuRequest(350, 1), [1], [0]),
        ([1000, 400, 1000, 1000], GpuRequest(1000, 2), [0, 2], [0, 2]),
        ([100, 100], GpuRequest(500, 1), [], []),
    ],
)
def test_gpu_choice(left: list[int], req: GpuRequest, best: list[int], worst: list[int]) -> None:
    assert choose_best(left, req) == best
    assert choose_worst(left, req) == worst


def test_bad_annotations_are_reported() -> None:
    assert "must be an integer" in parse_gpu_request({"alibabacloud.com/gpu-milli": "x"}).error
    assert (
        "needs alibabacloud.com/gpu-count 1"
        in parse_gpu_request(
            {"alibabacloud.com/gpu-milli": "500", "alibabacloud.com/gpu-count": "2"}
        ).error
    )


def test_simulate_names_the_gpu_and_why_not_the_others() -> None:
    node = gpu_node("n", gpus=4)
    pods = [
        running(gpu_pod("a", gpus=1, milli=700), "n", "0"),
        running(gpu_pod("b", gpus=1, milli=500), "n", "1"),
        gpu_pod("new", gpus=1, milli=400),
    ]
    cluster = ClusterState(nodes=[node], pods=pods)
    res = simulate(cluster, _config(), explain=True).by_pod()["default/new"]
    assert res.status == "Scheduled"
    got = res.to_dict(explain=True)["pluginResults"]["OpenGpuShare"]
    # best fit: GPU 1 (500 free) is the tightest that fits 400
    assert got["gpus"] == [1]
    assert got["others"]["0"] == "300m free, less than the 400m asked"
    assert got["others"]["2"] == "1000m free, not chosen by best"
    # the caller's pod object is untouched; the result carries the annotation
    assert GPU_INDEX not in (pods[2].raw["metadata"].get("annotations") or {})


def test_simulate_rejects_a_pod_no_gpu_fits() -> None:
    # 600 thousandths free in all (the extended resource fits), 300 on each GPU
    node = gpu_node("n", gpus=2)
    pods = [
        running(gpu_pod("a", gpus=1, milli=700), "n", "0"),
        running(gpu_pod("b", gpus=1, milli=700), "n", "1"),
        gpu_pod("new", gpus=1, milli=400),
    ]
    res = simulate(ClusterState(nodes=[node], pods=pods), _config()).by_pod()["default/new"]
    assert res.status == "Unschedulable"
    assert f"1 {ERR_NOT_ENOUGH}" in res.message
