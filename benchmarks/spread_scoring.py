"""PodTopologySpread's scoring path in one run, for instruction counts (callgrind).

benchmarks/engine.py's workloads never score with PodTopologySpread (spread's
pods carry DoNotSchedule constraints only; basic's have nothing the default
constraints select by). Here 600 pods with ScheduleAnyway zone and hostname
constraints go onto 300 nodes in three zones; it prints how many were placed
and a fingerprint of the placements, so two trees can be checked to decide
alike as well as compared in instructions:

    PYTHONHASHSEED=0 valgrind --tool=callgrind .venv/bin/python TREE/benchmarks/spread_scoring.py
"""

from __future__ import annotations

import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.engine import default_pod, node_obj  # noqa: E402
from scheduler_engine.cluster import build_cluster  # noqa: E402
from scheduler_engine.simulate import simulate  # noqa: E402

KEYS = ("topology.kubernetes.io/zone", "kubernetes.io/hostname")


def main() -> int:
    nodes = [node_obj(i, zone=f"moon-{i % 3 + 1}") for i in range(300)]
    pods = []
    for i in range(600):
        p = default_pod(f"soft-{i}", i)
        p["metadata"]["labels"] = {"color": "blue"}
        p["spec"]["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": k,
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"color": "blue"}},
            }
            for k in KEYS
        ]
        pods.append(p)
    out = simulate(build_cluster(nodes + pods), None, seed=1, explain=False)
    placed = [r.node or "" for r in out.results]
    digest = hashlib.sha256("\n".join(placed).encode()).hexdigest()[:16]
    print(f"{sum(1 for n in placed if n)} of {len(placed)} placed; placements {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
