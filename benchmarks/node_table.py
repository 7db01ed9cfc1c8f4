"""Building the NodeTable (the engine's resource matrices) for a whole snapshot, CPU time.

    .venv/bin/python benchmarks/node_table.py [--nodes 5000 15000 --repeat 20]

Per size: nodes with cpu, memory, pods and a GPU column (0 to 2 each), a
pod of 100m on every fifth node, as tests/engine/plugins/test_node_table.py
builds them; the table is built --repeat times on a fresh snapshot each time
(the first build is the one every scheduling run pays) and the median and
the largest process CPU time of the build are printed. CPU time, not wall
time, so the figure holds on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from scheduler_engine.framework import Snapshot  # noqa: E402
from scheduler_engine.framework.node_table import NodeTable  # noqa: E402
from scheduler_engine.objects.node import parse_node  # noqa: E402
from scheduler_engine.objects.pod import parse_pod  # noqa: E402


def objects(n: int) -> tuple[list, list]:
    nodes = [
        parse_node(
            {
                "kind": "Node",
                "metadata": {"name": f"n{i}"},
                "status": {
                    "allocatable": {
                        "cpu": "4",
                        "memory": "32Gi",
                        "pods": "110",
                        "example.com/gpu": str(i % 3),
                    }
                },
            }
        )
        for i in range(n)
    ]
    pods = [
        parse_pod(
            {
                "kind": "Pod",
                "metadata": {"name": f"p{i}", "namespace": "default", "uid": f"u{i}"},
                "spec": {
                    "nodeName": f"n{i}",
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}],
                },
            }
        )
        for i in range(0, n, 5)
    ]
    return nodes, pods


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, nargs="+", default=[5000, 15000])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    for n in args.nodes:
        nodes, pods = objects(n)
        cpu: list[float] = []
        for _ in range(args.repeat):
            snap = Snapshot(nodes, pods)
            t0 = time.process_time()
            table = NodeTable.of(snap)
            cpu.append(time.process_time() - t0)
            assert len(table) == n
        print(
            f"{n} nodes, {len(pods)} pods: NodeTable build CPU median "
            f"{1000 * statistics.median(cpu):.1f} ms, max {1000 * max(cpu):.1f} ms "
            f"over {args.repeat} builds",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
