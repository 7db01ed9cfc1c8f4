"""What the framework runtime adds per node to a Python Score plugin.

A trivial out-of-tree Score plugin (one attribute read and an addition) is
timed two ways over the same nodes:

* its own cost: the plugin's ``score`` called in a plain list comprehension;
* through the runtime: ``Framework.run_score_plugins`` with only that plugin,
  minus the same call with the plugin skipped (what scoring costs anyway).

The difference between the two, per node, is the runtime's overhead; the
issue asks that it be no more than the plugin's own cost.  Each figure is the
best of ``--repeat`` rounds of ``--loops`` calls, timed in the thread's CPU
time (a loaded machine then adds little; noise only adds time).

    .venv/bin/python benchmarks/plugin_overhead.py
    .venv/bin/python benchmarks/plugin_overhead.py --nodes 5000 --repeat 9
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from scheduler_engine.cluster import build_cluster  # noqa: E402
from scheduler_engine.config.types import PluginRef, ProfileConfig  # noqa: E402
from scheduler_engine.framework.build import new_framework  # noqa: E402
from scheduler_engine.framework.cycle_state import CycleState  # noqa: E402
from scheduler_engine.framework.handle import SimulationContext  # noqa: E402
from scheduler_engine.framework.registry import Registry  # noqa: E402
from scheduler_engine.framework.snapshot import Snapshot  # noqa: E402


class PodCount:
    """A Score plugin as simple as one can be: fewer pods on the node, higher score."""

    NAME = "PodCount"

    def score(self, state: CycleState, pod: Any, node_info: Any) -> int:
        return 100 - len(node_info.pods)

    def score_extensions(self) -> None:
        return None


def _node(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"node-{i}", "labels": {"kubernetes.io/hostname": f"node-{i}"}},
        "status": {"allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"}},
    }


def _pod() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default", "uid": "p"},
        "spec": {"containers": [{"name": "c", "image": "x"}]},
    }


def _best(fn: Callable[[], Any], loops: int, repeat: int) -> float:
    """Seconds per call, the best of ``repeat`` rounds of ``loops`` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.thread_time()
        for _ in range(loops):
            fn()
        best = min(best, (time.thread_time() - t0) / loops)
    return best


def measure(nodes: int, loops: int, repeat: int) -> dict[str, float]:
    cluster = build_cluster([_node(i) for i in range(nodes)] + [_pod()])
    snap = Snapshot(cluster.nodes, cluster.running_pods, cluster.namespaces)
    ctx = SimulationContext(cluster, snap, random.Random(0))
    reg = Registry()
    plugin = PodCount()
    reg.register(PodCount.NAME, lambda args, h: plugin, PodCount)
    profile = ProfileConfig("default-scheduler", {"score": (PluginRef(PodCount.NAME),)})
    fwk = new_framework(profile, reg, ctx)
    pod = cluster.pods[0]
    infos = snap.node_info_list
    state = CycleState()
    skipped = CycleState()
    skipped.skip_score_plugins = {PodCount.NAME}
    score = plugin.score

    def own() -> Any:
        return [score(state, pod, ni) for ni in infos]

    res, s = fwk.run_score_plugins(state, pod, infos)
    assert s is None and res is not None and res.totals.tolist() == own()
    t_own = _best(own, loops, repeat)
    t_run = _best(lambda: fwk.run_score_plugins(state, pod, infos), loops, repeat)
    t_none = _best(lambda: fwk.run_score_plugins(skipped, pod, infos), loops, repeat)
    per = 1e9 / nodes
    return {
        "own_ns": t_own * per,
        "runtime_ns": (t_run - t_none) * per,
        "overhead_ns": (t_run - t_none - t_own) * per,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--loops", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args(argv)
    m = measure(a.nodes, a.loops, a.repeat)
    print(
        f"{a.nodes} nodes: the plugin's own cost {m['own_ns']:.0f} ns/node, "
        f"through run_score_plugins {m['runtime_ns']:.0f} ns/node, "
        f"runtime overhead {m['overhead_ns']:.0f} ns/node "
        f"({m['overhead_ns'] / m['own_ns']:.2f} of the plugin's own cost)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
