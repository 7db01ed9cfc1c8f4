"""Nearest fit and verified fixes for one pending pod on 5,000 nodes (issue 14's "Speed").

A fleet of ``--nodes`` nodes in 3 zones: three quarters GPU nodes (8 GPUs,
tainted ``nvidia.com/gpu=present:NoSchedule``, half of them also cordon-free
but full), a quarter CPU nodes; ``--pods-per-node`` running pods on each,
of two priorities, some under a PodDisruptionBudget, and three PriorityClasses. The pending pod asks
for 8 GPUs and tolerates nothing, so every node rejects it and several kinds
of change apply (a toleration, a smaller request, preemption, a priority, a
new node, moves). The warm state is built once (as the web process holds
it); then ``WarmCluster.explain_pod`` (what the pod page and the API ask)
runs ``--repeat`` times each, alternating, with every fix producer and with
all but the defragmentation (``move``) one; the figure is the time of the
``what_if`` call in it (nearest nodes and verified fixes), median of the runs.

    .venv/bin/python benchmarks/whatif.py                 # 5,000 nodes
    .venv/bin/python benchmarks/whatif.py --nodes 1000 --repeat 3
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.common import zoned_node  # noqa: E402
from scheduler_engine import default_config  # noqa: E402
from scheduler_engine.warm_cluster import WarmCluster  # noqa: E402
from scheduler_engine.whatif import report  # noqa: E402

GPU = "nvidia.com/gpu"


def node(i: int, gpu: bool) -> dict[str, Any]:
    res = {"cpu": "64", "memory": "512Gi", "pods": "110"}
    if not gpu:
        return zoned_node(f"cpu-{i:05d}", f"z{i % 3}", res)
    taint = {"key": GPU, "value": "present", "effect": "NoSchedule"}
    return zoned_node(f"gpu-{i:05d}", f"z{i % 3}", {**res, GPU: "8"}, taints=[taint])


def pod(name: str, where: str, gpus: int, priority: int, app: str) -> dict[str, Any]:
    req: dict[str, str] = {"cpu": "2", "memory": "8Gi"}
    res: dict[str, Any] = {"requests": req}
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "app:1", "resources": res}]}
    if gpus:
        req[GPU] = str(gpus)
        res["limits"] = {GPU: str(gpus)}
        spec["tolerations"] = [
            {"key": GPU, "operator": "Equal", "value": "present", "effect": "NoSchedule"}
        ]
    if where:
        spec["nodeName"] = where
    spec["priority"] = priority
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "labels": {"app": app},
            "creationTimestamp": "2026-11-01T00:00:00Z",
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": app,
                    "uid": f"rs-{app}",
                    "controller": True,
                }
            ],
        },
        "spec": spec,
        "status": {"phase": "Running" if where else "Pending"},
    }


def fleet(nodes: int, per_node: int) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = []
    for i in range(nodes):
        gpu = i % 4 != 3
        n = node(i, gpu)
        objs.append(n)
        name = n["metadata"]["name"]
        for j in range(per_node):
            # GPU nodes: one or two GPU pods using 6-7 of the 8 GPUs; the rest CPU-only
            gpus = (4 if j == 0 else 3 if j == 1 and i % 2 else 2 if j == 1 else 0) if gpu else 0
            prio = 1000 if j % 2 == 0 else 10
            app = "train" if prio == 1000 else ("infer" if i % 5 else "db")
            objs.append(pod(f"{name}-p{j}", name, gpus, prio, app))
    for name, value in (("batch-low", 10), ("training", 1000), ("critical", 100000)):
        objs.append(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
        )
    objs.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "db"}}, "minAvailable": 1},
            "status": {"disruptionsAllowed": 0},
        }
    )
    return objs


def pending() -> dict[str, Any]:
    p = pod("want-8-gpus", "", 8, 100, "new")
    p["spec"].pop("tolerations")
    p["spec"]["preemptionPolicy"] = "Never"
    p["metadata"].pop("ownerReferences")
    return p


def _timed_what_if(times: list[float]) -> None:
    """Time each ``what_if`` call the simulation makes (nearest and fixes of one pod)."""
    sim = sys.modules["scheduler_engine.simulate"]
    inner = report.what_if

    def timed(*args: Any, **kwargs: Any) -> dict[str, Any]:
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            times.append(time.perf_counter() - t)

    sim.what_if = timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods-per-node", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    t0 = time.perf_counter()
    warm = WarmCluster(fleet(args.nodes, args.pods_per_node), source="bench")
    built = time.perf_counter() - t0
    # as dashboard/explain/live.py does once the warm state is built
    gc.collect()
    gc.freeze()
    config = default_config()
    want = pending()
    every = report.PRODUCERS
    without_moves = tuple(p for p in every if p.__name__ != "move_candidates")
    times: dict[str, list[float]] = {"all producers": [], "without moves": []}
    last: dict[str, dict[str, Any]] = {}
    warm.explain_pod(want, config)  # first call: imports and lazy tables
    for _ in range(args.repeat):
        for label, producers in (("all producers", every), ("without moves", without_moves)):
            report.PRODUCERS = producers
            _timed_what_if(times[label])
            last[label] = warm.explain_pod(want, config)
    report.PRODUCERS = every
    print(
        json.dumps(
            {
                "nodes": args.nodes,
                "runningPods": args.nodes * args.pods_per_node,
                "warmBuildSeconds": round(built, 2),
                "whatIfMedianSeconds": {
                    k: round(statistics.median(v), 3) for k, v in times.items()
                },
                "runs": {k: [round(x, 3) for x in v] for k, v in times.items()},
                "status": last["all producers"].get("status"),
                "nearest": [
                    (n["node"], n["distance"]) for n in last["all producers"]["nearest"][:3]
                ],
                "fixes": {
                    k: [(f["kind"], f["cost"], f["summary"][:100]) for f in d.get("fixes", [])]
                    for k, d in last.items()
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
