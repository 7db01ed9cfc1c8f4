"""Each policy's score on constructed nodes, hand-computed from the simulator's formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.registry import default_registry
from scheduler_engine.plugins.gpupolicies import POLICIES
from scheduler_engine.plugins.gpupolicies.common import min_max_normalize
from scheduler_engine.plugins.gpupolicies.fragmentation import PodShape, TypicalPod

from .gpus import gpu_node, gpu_pod, handle_over, running


def _cluster() -> tuple:
    nodes = [gpu_node("idle", cpu=64000, gpus=4), gpu_node("shared", cpu=64000, gpus=4)]
    # on "shared": a 0.6 GPU pod on GPU 0 (16 CPUs), a whole-GPU pod on GPU 1 (8 CPUs)
    pods = [
        running(gpu_pod("a", cpu=16000, gpus=1, milli=600), "shared", "0"),
        running(gpu_pod("b", cpu=8000, gpus=1, milli=1000), "shared", "1"),
    ]
    return nodes, pods


def _scores(plugin: str, pod, args=None, seed: int = 0) -> dict[str, int]:
    nodes, pods = _cluster()
    handle = handle_over(nodes, pods, seed)
    pl = default_registry().factory(plugin)(args or {}, handle)
    infos = handle.snapshot().node_info_list
    state = CycleState()
    if hasattr(pl, "pre_score"):
        pl.pre_score(state, pod, infos)
    batch = pl.score_batch(state, pod, infos).tolist()
    single = [pl.score(state, pod, ni) for ni in infos]
    assert batch == single
    return {ni.name: v for ni, v in zip(infos, batch, strict=True)}


SHARE = gpu_pod("p", cpu=4000, gpus=1, milli=300)
WHOLE = gpu_pod("w", cpu=4000, gpus=2, milli=1000)


def test_every_policy_is_registered() -> None:
    reg = default_registry()
    assert all(name in reg for name in [*POLICIES.values(), "OpenGpuShare"])


def test_best_fit() -> None:
    # raw = int((1 - (0.5*(cpuLeft-cpu)/128000 + 0.5*(gpuLeft-gpu)/8000)) * 100)
    idle = int((1 - (0.5 * (64000 - 4000) / 128000 + 0.5 * (4000 - 300) / 8000)) * 100)
    shared = int((1 - (0.5 * (40000 - 4000) / 128000 + 0.5 * (2400 - 300) / 8000)) * 100)
    assert _scores("BestFitScore", SHARE) == {"idle": idle, "shared": shared}
    assert min_max_normalize(np.array([idle, shared])).tolist() == [0, 100]


def test_dot_product() -> None:
    def dot(cpu_left: int, gpu_left: int) -> int:
        d = (cpu_left / 128000) * (4000 / 128000) + (gpu_left / 8000) * (300 / 8000)
        return int(100 * (1 - d / 2))

    got = _scores("DotProductScore", SHARE, {"dimExtMethod": "merge", "normMethod": "max"})
    assert got == {"idle": dot(64000, 4000), "shared": dot(40000, 2400)}


def test_gpu_packing() -> None:
    # idle: all 4 GPUs free: 33 - 4 = 29; shared: the share fits on GPU 0 (400 free):
    # 100 - (400*100/1000)/10 = 96
    assert _scores("GpuPackingScore", SHARE) == {"idle": 29, "shared": 96}
    # two whole GPUs: idle 29 again; shared must use 2 free GPUs: max(50 - 2, 33) = 48
    assert _scores("GpuPackingScore", WHOLE) == {"idle": 29, "shared": 48}
    assert _scores("GpuPackingScore", gpu_pod("cpu", cpu=1000)) == {"idle": 0, "shared": 0}


def test_gpu_clustering() -> None:
    # b = 25 * (8000 - free) / 8000; idle node +25; "shared" runs share-gpu and 1-gpu pods
    b_idle, b_shared = 25 * (8000 - 4000) // 8000, 25 * (8000 - 2400) // 8000
    assert _scores("GpuClusteringScore", SHARE) == {"idle": b_idle + 25, "shared": b_shared + 50}
    # a 2-GPU pod: no 2-gpu pods on "shared" (other shapes only): b
    assert _scores("GpuClusteringScore", WHOLE) == {"idle": b_idle + 25, "shared": b_shared}


def test_random_gives_one_feasible_node_100() -> None:
    got = _scores("RandomScore", SHARE, seed=3)
    assert sorted(got.values()) == [0, 100]


def test_fgd_by_hand() -> None:
    typ = [TypicalPod(PodShape(4000, 500, 1), 1.0)]
    args = {"typicalPods": [{"cpu": 4000, "milli": 500, "count": 1, "freq": 1.0}]}

    def sig(before: float, after: float) -> int:
        return int(100 / (1 + math.exp(-(before - after) / 1000)))

    # idle: no fragment before; a 0.3 share on any GPU leaves 700 free: fragment 0 after
    # shared: GPU 0 has 400 free (< 500: fragment 400); on GPU 0 it leaves 100 (fragment 100),
    # on a free GPU it leaves 700 and GPU 0 stays 400: the best is GPU 0
    got = _scores("FGDScore", SHARE, args)
    assert got == {"idle": sig(0, 0), "shared": sig(400, 100)}
    assert typ[0].freq == 1.0


@pytest.mark.parametrize("policy", sorted(POLICIES.values()))
def test_every_policy_scores_within_0_and_100_on_random_nodes(policy: str) -> None:
    import random

    rng = random.Random(policy)
    nodes, pods = [], []
    for i in range(20):
        g = rng.choice([1, 2, 4, 8])
        nodes.append(gpu_node(f"n{i}", cpu=rng.choice([32000, 64000, 96000]), gpus=g))
        for j in range(rng.randrange(0, g + 1)):
            m = rng.choice([100, 250, 500, 1000])
            pods.append(running(gpu_pod(f"p{i}-{j}", cpu=1000, gpus=1, milli=m), f"n{i}", str(j)))
    handle = handle_over(nodes, pods, 1)
    args = {"typicalPods": [{"cpu": 1000, "milli": 500, "count": 1, "freq": 1.0}]}
    pl = default_registry().factory(policy)(args, handle)
    infos = handle.snapshot().node_info_list
    pod = gpu_pod("x", cpu=1000, gpus=1, milli=100)
    state = CycleState()
    if hasattr(pl, "pre_score"):
        pl.pre_score(state, pod, infos)
    raw = pl.score_batch(state, pod, infos)
    ext = pl.score_extensions()
    final = ext.normalize_score_batch(state, pod, raw) if ext is not None else raw
    assert int(final.min()) >= 0 and int(final.max()) <= 100
    assert raw.tolist() == [pl.score(state, pod, ni) for ni in infos]
