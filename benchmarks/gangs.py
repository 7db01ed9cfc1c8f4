"""Gang throughput: Coscheduling over a GPU cluster.

1,000 nodes of 8 GPUs (64 CPU / 512Gi), 200 Coscheduling PodGroups of 8 to 64
pods each (1 GPU, 4 CPU, 32Gi per pod; drawn from a seeded RNG), the profile
configured as scheduler-plugins documents it (Coscheduling in multiPoint and
as the only queueSort plugin).  The pods outnumber the GPUs, so some gangs fit
and the rest wait at Permit and are released whole.  Reports gangs/s and
pods/s of the whole ``simulate`` call (one process, one core) and how many
gangs and pods were placed.

    .venv/bin/python benchmarks/gangs.py                 # the issue's sizes
    .venv/bin/python benchmarks/gangs.py --nodes 100 --gangs 20
    .venv/bin/python benchmarks/gangs.py --native        # the v1.36 pod-group cycle instead
    .venv/bin/python benchmarks/gangs.py --plain         # the same pods, no gangs (baseline)

Instructions of the ``simulate`` call alone (``--callgrind`` switches
callgrind's instrumentation on around it and off after):

    PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --instr-atstart=no \
        .venv/bin/python benchmarks/gangs.py --gangs 20 --callgrind
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from benchmarks.common import zoned_node  # noqa: E402
from scheduler_engine import build_cluster, simulate  # noqa: E402
from scheduler_engine.config import load_config  # noqa: E402
from scheduler_engine.framework.registry import default_registry  # noqa: E402

GPU = "nvidia.com/gpu"
LABEL = "scheduling.x-k8s.io/pod-group"


def node(i: int) -> dict[str, Any]:
    res = {"cpu": "64", "memory": "512Gi", "pods": "110", GPU: "8"}
    return zoned_node(f"gpu-{i:04d}", f"zone-{i % 4}", res)


def pod(group: str, i: int, ts: str, native: bool | None) -> dict[str, Any]:
    req = {"cpu": "4", "memory": "32Gi", GPU: "1"}
    spec: dict[str, Any] = {
        "containers": [
            {
                "name": "worker",
                "image": "trainer",
                "resources": {"requests": req, "limits": {GPU: "1"}},
            }
        ]
    }
    meta: dict[str, Any] = {
        "name": f"{group}-{i}",
        "namespace": "train",
        "uid": f"{group}-{i}",
        "creationTimestamp": ts,
    }
    if native:
        spec["schedulingGroup"] = {"podGroupName": group}
    elif native is not None:
        meta["labels"] = {LABEL: group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def pod_group(name: str, size: int, ts: str, native: bool) -> dict[str, Any]:
    meta = {"name": name, "namespace": "train", "creationTimestamp": ts}
    if native:
        return {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": "PodGroup",
            "metadata": meta,
            "spec": {"schedulingPolicy": {"gang": {"minCount": size}}},
        }
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": meta,
        "spec": {"minMember": size},
    }


def workload(
    nodes: int, gangs: int, seed: int, native: bool | None
) -> tuple[list[dict[str, Any]], int]:
    """Nodes, PodGroups and pods; ``native`` None: the same pods without any group."""
    rng = random.Random(seed)
    objs = [node(i) for i in range(nodes)]
    pods = 0
    for g in range(gangs):
        size = rng.randint(8, 64)
        ts = f"2026-01-01T00:{g // 60:02d}:{g % 60:02d}Z"
        name = f"job-{g:03d}"
        if native is not None:
            objs.append(pod_group(name, size, ts, native))
        objs += [pod(name, i, ts, native) for i in range(size)]
        pods += size
    return objs, pods


def config(native: bool | None) -> Any:
    reg = default_registry()
    if native is None:
        return load_config(None, **reg.config_kwargs()), reg
    if native:
        gates = {"GenericWorkload": True, "GangScheduling": True}
        return load_config(None, feature_gates=gates, **reg.config_kwargs()), reg
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {
                    "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                    "queueSort": {
                        "enabled": [{"name": "Coscheduling"}],
                        "disabled": [{"name": "*"}],
                    },
                },
            }
        ],
    }
    return load_config(doc, **reg.config_kwargs()), reg


def instrument(state: str) -> None:
    """Switch callgrind's instrumentation of this process ``on`` or ``off``."""
    cmd = ["callgrind_control", "-i", state, str(os.getpid())]
    subprocess.run(cmd, check=True, capture_output=True, timeout=60)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--gangs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--native", action="store_true", help="the v1.36 workload API instead")
    ap.add_argument("--plain", action="store_true", help="the same pods without gangs")
    ap.add_argument(
        "--callgrind",
        action="store_true",
        help="under valgrind --instr-atstart=no: count the simulate call only",
    )
    args = ap.parse_args()
    mode = None if args.plain else args.native
    objs, n_pods = workload(args.nodes, args.gangs, args.seed, mode)
    cfg, reg = config(mode)
    cluster = build_cluster(objs)
    if args.callgrind:
        instrument("on")
    t0, c0 = time.perf_counter(), time.process_time()
    res = simulate(cluster, cfg, registry=reg, seed=args.seed)
    secs = time.perf_counter() - t0
    cpu = time.process_time() - c0
    if args.callgrind:
        instrument("off")
    gangs = res.summary.get("gangs", [])
    placed_gangs = sum(1 for g in gangs if g["status"] == "Scheduled")
    out = {
        "api": "none" if mode is None else "native" if mode else "coscheduling",
        "nodes": args.nodes,
        "gpus": args.nodes * 8,
        "gangs": args.gangs,
        "pods": n_pods,
        "seconds": round(secs, 3),
        # CPU time of this process: steadier than the wall clock on a shared machine
        "cpuSeconds": round(cpu, 3),
        "podsPerCpuSecond": round(n_pods / cpu, 1),
        "gangsPerSecond": round(args.gangs / secs, 1),
        "podsPerSecond": round(n_pods / secs, 1),
        "attempts": res.summary["attempts"],
        "gangsScheduled": placed_gangs,
        "podsScheduled": res.summary["counts"]["Scheduled"],
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
