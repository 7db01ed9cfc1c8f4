"""Two colliding schedulers on a GPU fleet, and the orphan scan, timed.

    .venv/bin/python benchmarks/collisions.py [--nodes 1000] [--pods 2000] [--lags 0,5,50]

Half the pending pods (4 GPUs each) belong to a second scheduler; the fleet
has room for all of them only once. Prints, per lag, the engine's time, the
pods bound and the kubelet's refusals; then the time of ``find_orphans`` over
the same pending pods with every second one gated and every third one naming
a missing PodGroup.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scheduler_engine import build_cluster, load_config
from scheduler_engine.collisions import simulate_colliding
from scheduler_engine.orphans import find_orphans
from tests.support import synthetic

TWO = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "profiles": [{"schedulerName": "default-scheduler"}, {"schedulerName": "batch-scheduler"}],
}


def objects(nodes: int, pods: int) -> list[dict]:
    objs = [synthetic.node(i) for i in range(nodes)]
    for i in range(pods):
        p = synthetic.pod(i, gpus=4)
        if i % 2:
            p["spec"]["schedulerName"] = "batch-scheduler"
        objs.append(p)
    return objs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--lags", default="0,5,50")
    args = ap.parse_args()
    objs = objects(args.nodes, args.pods)
    cluster = build_cluster(objs)
    config = load_config(TWO)
    print(f"{args.nodes} nodes (8 GPUs each), {args.pods} pending pods of 4 GPUs, 2 schedulers")
    for lag in (int(x) for x in args.lags.split(",")):
        t = time.perf_counter()
        doc = simulate_colliding(cluster, config, lag_cycles=lag)
        dt = time.perf_counter() - t
        bound = doc["summary"]["counts"].get("Scheduled", 0)
        refused = doc["collisions"]["refusedByReason"]
        admitted = bound - sum(refused.values())
        print(
            f"lag {lag:>3}: {dt:6.2f} s, {bound} bound, {admitted} admitted, "
            f"refused {refused or 'none'}"
        )
    pods = [o for o in objs if o["kind"] == "Pod"]
    for i, p in enumerate(pods):
        if i % 2 == 0:
            p["spec"]["schedulingGates"] = [{"name": "example.com/hold"}]
        if i % 3 == 0:
            p["spec"]["schedulingGroup"] = {"podGroupName": f"group-{i}"}
    t = time.perf_counter()
    found = find_orphans(pods, [], served_schedulers={"default-scheduler"})
    dt = time.perf_counter() - t
    print(f"find_orphans over {len(pods)} pending pods: {dt * 1000:.1f} ms, {len(found)} findings")


if __name__ == "__main__":
    main()
