"""Defragmentation plan for an 8-GPU pod on a fragmented GPU fleet.

1,000 nodes of 8 GPUs (64 CPU / 512Gi), each filled by a seeded RNG with
ReplicaSet pods of 1, 2 or 4 GPUs up to 5-7 GPUs used, so that every node has
1-3 GPUs free (hundreds free in all) and no node has 8.  A 4-GPU pod has
nowhere else to go, so the cheapest plan moves three small pods.  One pending
pod asks for 8 GPUs.  Reports the seconds of one ``plan_defragmentation`` call
(its first call in the process, imports done), the plan's size and the check
that applying it makes the pod schedule.

    .venv/bin/python benchmarks/defrag.py                  # the issue's sizes
    .venv/bin/python benchmarks/defrag.py --nodes 100 --seed 3
    .venv/bin/python benchmarks/defrag.py --explain        # simulate --explain, fixes included
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.common import zoned_node  # noqa: E402
from scheduler_engine import build_cluster, default_registry, simulate  # noqa: E402
from scheduler_engine.whatif.defrag import plan_defragmentation  # noqa: E402
from scheduler_engine.whatif.moves import Scheduling, replaced, with_moves  # noqa: E402

GPU = "nvidia.com/gpu"


def node(i: int) -> dict[str, Any]:
    res = {"cpu": "64", "memory": "512Gi", "pods": "110", GPU: "8"}
    return zoned_node(f"gpu-{i:04d}", f"z{i % 4}", res)


def pod(name: str, gpus: int, where: str = "") -> dict[str, Any]:
    req = {"cpu": "4", "memory": "32Gi", GPU: str(gpus)}
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "main",
                "image": "app:1",
                "resources": {"requests": req, "limits": {GPU: str(gpus)}},
            }
        ]
    }
    meta: dict[str, Any] = {
        "name": name,
        "namespace": "default",
        "uid": f"uid-{name}",
        "creationTimestamp": "2026-11-01T00:00:00Z",
        "labels": {"app": name.rsplit("-", 1)[0]},
    }
    if where:
        spec["nodeName"] = where
        meta["ownerReferences"] = [
            {
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "rs",
                "uid": "rs-uid",
                "controller": True,
            }
        ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": spec,
        "status": {"phase": "Running" if where else "Pending"},
    }


def fleet(nodes: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    objs = [node(i) for i in range(nodes)]
    k = 0
    for i in range(nodes):
        target = rng.choice((5, 6, 7))
        used = 0
        while used < target:
            size = rng.choice([s for s in (1, 2, 4) if used + s <= target])
            objs.append(pod(f"w{size}-{k}", size, f"gpu-{i:04d}"))
            used += size
            k += 1
    objs.append(pod("train", 8))
    return objs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--explain",
        action="store_true",
        help="time simulate(explain=True) without and with whatif (the fixes, move included)",
    )
    args = ap.parse_args()
    objs = fleet(args.nodes, args.seed)
    cluster = build_cluster(objs)
    registry = default_registry()  # loads the plugins (CEL's grammar among them) once
    if args.explain:
        timed: dict[str, Any] = {"nodes": args.nodes}
        for whatif in (False, True):
            t0 = time.perf_counter()
            doc = simulate(cluster, explain=True, whatif=whatif, registry=registry).to_dict()
            timed["whatif" if whatif else "explainOnly"] = round(time.perf_counter() - t0, 3)
        timed["fixes"] = [f["kind"] for f in doc["results"][0].get("fixes") or []]
        print(json.dumps(timed))
        return
    t0 = time.perf_counter()
    plan = plan_defragmentation(
        cluster,
        "default/train",
        Scheduling.with_defaults(simulate, registry=registry, seed=args.seed),
    )
    secs = time.perf_counter() - t0
    out: dict[str, Any] = {
        "nodes": args.nodes,
        "gpus": args.nodes * 8,
        "freeGpus": args.nodes * 8
        - sum(p.requests.scalar.get(GPU, 0) for p in cluster.running_pods),
        "runningPods": len(cluster.running_pods),
        "seconds": round(secs, 3),
        "moves": len(plan.moves) if plan else None,
        "gpusDisturbed": plan.gpus_disturbed if plan else None,
    }
    if plan is not None:
        moved = with_moves(cluster, plan.moves)
        check = simulate(
            replaced(
                moved, pods=[p for p in moved.pods if p.node_name or p.key == "default/train"]
            ),
            registry=registry,
        )
        out["podSchedulesAfterMoves"] = check.results[0].status == "Scheduled"
        out["plan"] = plan.to_fix()["summary"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
