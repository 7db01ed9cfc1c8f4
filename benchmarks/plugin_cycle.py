"""What a Python Score plugin adds to whole scheduling cycles, against its own cost.

``GPUMemoryScore`` (``examples/plugins/gpu_memory_score.py``) is enabled at
Score beside the default profile and ``simulate`` is timed on the same cluster
with and without it, alternating (A B A B ...) and keeping each side's best
round: the difference, per scored node per pod, is what the plugin costs a
cycle.  Its own cost is its PreScore, Score on every node and NormalizeScore
called directly.  Every node is scored (``percentageOfNodesToScore: 100``) so
that both figures count the same nodes.

    .venv/bin/python benchmarks/plugin_cycle.py
    .venv/bin/python benchmarks/plugin_cycle.py --nodes 2000 --pods 20 --repeat 7

On a busy machine wall-clock figures swing; instruction counts do not.
``--only without|with|own --times K`` runs one part K times after the set-up,
so that under ``valgrind --tool=callgrind`` the part's instructions are
``(Ir(K=3) - Ir(K=1)) / 2``:

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python benchmarks/plugin_cycle.py --nodes 300 --pods 10 --only with --times 3
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from examples.plugins.gpu_memory_score import GPUMemoryScore, GPUMemoryScoreArgs  # noqa: E402
from scheduler_engine import build_cluster, load_config, simulate  # noqa: E402
from scheduler_engine.framework.cycle_state import CycleState  # noqa: E402
from scheduler_engine.framework.snapshot import Snapshot  # noqa: E402
from scheduler_engine.plugin_api import NodeScore  # noqa: E402
from scheduler_engine.plugin_loader import build_registry  # noqa: E402

SPEC = "examples.plugins.gpu_memory_score:GPUMemoryScore"


def _node(i: int) -> dict[str, Any]:
    return {
        "kind": "Node",
        "metadata": {
            "name": f"gpu-{i}",
            "labels": {
                "kubernetes.io/hostname": f"gpu-{i}",
                "nvidia.com/gpu.memory": str(40960 if i % 3 else 81920),
            },
        },
        "status": {
            "allocatable": {"cpu": "96", "memory": "1000Gi", "pods": "110", "nvidia.com/gpu": "8"}
        },
    }


def _pod(i: int) -> dict[str, Any]:
    gpu = {"nvidia.com/gpu": "1"}
    return {
        "kind": "Pod",
        "metadata": {"name": f"job-{i}", "namespace": "default", "uid": f"u-{i}"},
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "x",
                    "resources": {"requests": {"cpu": "1", **gpu}, "limits": gpu},
                }
            ]
        },
    }


def _config(with_plugin: bool) -> dict[str, Any]:
    prof: dict[str, Any] = {"schedulerName": "default-scheduler", "percentageOfNodesToScore": 100}
    if with_plugin:
        prof["plugins"] = {"multiPoint": {"enabled": [{"name": "GPUMemoryScore", "weight": 1}]}}
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [prof],
    }


def own_cost_ns(cluster: Any, repeat: int) -> float:
    """PreScore + Score on every node + NormalizeScore, called directly, per node."""
    snap = Snapshot(cluster.nodes, cluster.running_pods, cluster.namespaces)
    infos = snap.node_info_list
    handle = type("H", (), {"cluster": cluster})()
    plugin = GPUMemoryScore(GPUMemoryScoreArgs(), handle)  # type: ignore[arg-type]
    pod = cluster.pending_pods[0]
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(10):
            state = CycleState()
            plugin.pre_score(state, pod, infos)
            scores = [NodeScore(ni.node.name, plugin.score(state, pod, ni)) for ni in infos]
            plugin.normalize_score(state, pod, scores)
        best = min(best, (time.perf_counter() - t0) / 10)
    return best * 1e9 / len(infos)


def _only(part: str, times: int, cluster: Any, configs: dict[bool, Any], reg: Any) -> int:
    """One part, ``times`` times: a whole simulate, or the plugin's own calls for every pod."""
    if part == "own":
        snap = Snapshot(cluster.nodes, cluster.running_pods, cluster.namespaces)
        infos = snap.node_info_list
        handle = type("H", (), {"cluster": cluster})()
        plugin = GPUMemoryScore(GPUMemoryScoreArgs(), handle)  # type: ignore[arg-type]
        for _ in range(times):
            for pod in cluster.pending_pods:
                state = CycleState()
                plugin.pre_score(state, pod, infos)
                scores = [NodeScore(ni.node.name, plugin.score(state, pod, ni)) for ni in infos]
                plugin.normalize_score(state, pod, scores)
        return 0
    for _ in range(times):
        simulate(cluster, configs[part == "with"], registry=reg)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument(
        "--gc-freeze",
        action="store_true",
        help="move the cluster out of the garbage collector's generations (gc.freeze) first, "
        "as a long-lived process would",
    )
    ap.add_argument("--only", choices=("without", "with", "own"), help="run one part only")
    ap.add_argument("--times", type=int, default=1, help="with --only: how many times")
    a = ap.parse_args(argv)
    cluster = build_cluster([_node(i) for i in range(a.nodes)] + [_pod(i) for i in range(a.pods)])
    if a.gc_freeze:
        gc.collect()
        gc.freeze()
    reg = build_registry([SPEC])
    configs = {w: load_config(_config(w), **reg.config_kwargs()) for w in (False, True)}
    if a.only:
        return _only(a.only, a.times, cluster, configs, reg)
    best = {False: float("inf"), True: float("inf")}
    for _ in range(a.repeat):
        for w in (False, True):
            gc.collect()
            t0 = time.perf_counter()
            simulate(cluster, configs[w], registry=reg)
            best[w] = min(best[w], time.perf_counter() - t0)
    added = (best[True] - best[False]) * 1e9 / (a.nodes * a.pods)
    own = own_cost_ns(cluster, a.repeat)
    print(
        f"{a.nodes} nodes, {a.pods} pods: simulate {best[False] * 1e3:.0f} ms without, "
        f"{best[True] * 1e3:.0f} ms with GPUMemoryScore; it adds {added:.0f} ns per node per "
        f"cycle, its own cost (PreScore + Score + NormalizeScore) {own:.0f} ns per node "
        f"({added / own:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
