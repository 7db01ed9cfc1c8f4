"""Engine throughput in the shape of upstream's scheduler_perf workloads.

Workloads (``test/integration/scheduler_perf``, kubernetes v1.36):

* ``basic`` — SchedulingBasic: nodes of 4 CPU / 32Gi / 110 pods
  (``templates/node-default.yaml``), pods requesting 100m / 500Mi
  (``templates/pod-default.yaml``); ``initPods`` are scheduled first, then
  ``measurePods`` are scheduled and timed.
* ``antiaffinity`` — SchedulingPodAntiAffinity: nodes labelled
  ``kubernetes.io/hostname``, init pods in ``sched-0`` and measured pods in
  ``sched-1``, every pod labelled ``color: green`` with a required
  anti-affinity to green pods of both namespaces on the same host.
* ``spread`` — TopologySpreading: nodes in zones ``moon-1..3`` (round robin
  here; upstream picks at random), default init pods, measured pods with a
  ``DoNotSchedule`` zone constraint (``maxSkew: 5``) on ``color: blue``.

As upstream, init pods go through the scheduler (untimed); the measured phase
starts from the resulting placements.  Each case runs in a fresh Python
process so its peak RSS (``ru_maxrss``) is its own.

    .venv/bin/python benchmarks/engine.py                 # the full set (minutes)
    .venv/bin/python benchmarks/engine.py --quick         # small sizes, seconds
    .venv/bin/python benchmarks/engine.py --workloads basic --nodes 5000
    .venv/bin/python benchmarks/engine.py --workloads basic --nodes 5000 --profile /tmp/basic.prof

The engine is reached only through its public API:
``simulate(cluster, config, seed=..., explain=False)``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# (init pods, measured pods) per workload and node count; upstream's sizes,
# except basic's measured count, which the issue fixes at 10,000.
SIZES: dict[str, dict[int, tuple[int, int]]] = {
    "basic": {500: (1000, 10000), 5000: (1000, 10000)},
    "antiaffinity": {500: (100, 400), 5000: (1000, 1000)},
    "spread": {500: (1000, 1000), 5000: (5000, 2000)},
}
QUICK: dict[str, dict[int, tuple[int, int]]] = {
    "basic": {500: (100, 1000)},
    "antiaffinity": {500: (100, 400)},
    "spread": {500: (500, 500)},
}
DEFAULT_CASES = [("basic", 500), ("basic", 5000), ("antiaffinity", 5000), ("spread", 5000)]
QUICK_CASES = [("basic", 500), ("antiaffinity", 500), ("spread", 500)]

_EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def _ts(i: int) -> str:
    return (_EPOCH + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- object templates --------------------------------------------------------------


def node_obj(i: int, zone: str | None = None) -> dict[str, Any]:
    name = f"scheduler-perf-{i:05d}"
    labels = {"kubernetes.io/hostname": name}
    if zone is not None:
        labels["topology.kubernetes.io/zone"] = zone
    capacity = {"pods": "110", "cpu": "4", "memory": "32Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {},
        "status": {
            "capacity": capacity,
            "allocatable": dict(capacity),
            "conditions": [{"status": "True", "type": "Ready"}],
            "phase": "Running",
        },
    }


def _container() -> dict[str, Any]:
    res = {"cpu": "100m", "memory": "500Mi"}
    return {
        "image": "registry.k8s.io/pause:3.10.2",
        "name": "pause",
        "ports": [{"containerPort": 80}],
        "resources": {"limits": dict(res), "requests": dict(res)},
    }


def default_pod(name: str, seq: int, namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{name}",
            "creationTimestamp": _ts(seq),
        },
        "spec": {"containers": [_container()]},
    }


def anti_affinity_pod(name: str, seq: int, namespace: str) -> dict[str, Any]:
    pod = default_pod(name, seq, namespace)
    pod["metadata"]["labels"] = {"color": "green"}
    pod["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"color": "green"}},
                    "topologyKey": "kubernetes.io/hostname",
                    "namespaces": ["sched-1", "sched-0"],
                }
            ]
        }
    }
    return pod


def spreading_pod(name: str, seq: int) -> dict[str, Any]:
    pod = default_pod(name, seq)
    pod["metadata"]["labels"] = {"color": "blue"}
    pod["spec"]["topologySpreadConstraints"] = [
        {
            "maxSkew": 5,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"color": "blue"}},
        }
    ]
    return pod


def workload_objects(
    workload: str, nodes: int, init: int, measure: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(nodes + namespaces, init pods, measured pods) as API objects."""
    base: list[dict[str, Any]]
    init_pods: list[dict[str, Any]]
    measured: list[dict[str, Any]]
    if workload == "basic":
        base = [node_obj(i) for i in range(nodes)]
        init_pods = [default_pod(f"init-pod-{i:05d}", i) for i in range(init)]
        measured = [default_pod(f"pod-{i:05d}", init + i) for i in range(measure)]
    elif workload == "antiaffinity":
        base = [node_obj(i) for i in range(nodes)]
        base += [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}
            for ns in ("sched-0", "sched-1")
        ]
        init_pods = [anti_affinity_pod(f"init-pod-{i:05d}", i, "sched-0") for i in range(init)]
        measured = [
            anti_affinity_pod(f"anti-affinity-pod-{i:05d}", init + i, "sched-1")
            for i in range(measure)
        ]
    elif workload == "spread":
        zones = ("moon-1", "moon-2", "moon-3")
        base = [node_obj(i, zones[i % 3]) for i in range(nodes)]
        init_pods = [default_pod(f"init-pod-{i:05d}", i) for i in range(init)]
        measured = [spreading_pod(f"spreading-pod-{i:05d}", init + i) for i in range(measure)]
    else:
        raise SystemExit(f"unknown workload {workload!r}")
    return base, init_pods, measured


# -- the engine's public API ----------------------------------------------------------


def _simulate_api() -> Callable[..., Any]:
    try:
        from scheduler_engine import simulate  # type: ignore[attr-defined]

        return simulate
    except ImportError:
        from scheduler_engine.simulate import simulate  # type: ignore[no-redef]

        return simulate


def _results(out: Any) -> list[dict[str, Any]]:
    """The per-pod results, whatever container ``simulate`` returns them in."""
    if isinstance(out, dict):
        return list(out["results"])
    res = getattr(out, "results", out)
    return [r if isinstance(r, dict) else _as_dict(r) for r in res]


def _as_dict(r: Any) -> dict[str, Any]:
    to_dict = getattr(r, "to_dict", None) or getattr(r, "as_dict", None)
    if to_dict is not None:
        return to_dict()
    return {"pod": getattr(r, "pod", None), "status": r.status, "node": getattr(r, "node", None)}


def _pod_key(r: dict[str, Any]) -> str:
    p = r["pod"]
    return p if isinstance(p, str) else p.key


def run_case(
    workload: str, nodes: int, init: int, measure: int, seed: int, profile: str | None
) -> dict[str, Any]:
    from scheduler_engine.cluster import build_cluster

    simulate = _simulate_api()
    base, init_pods, measured = workload_objects(workload, nodes, init, measure)

    # phase 1 (untimed): the init pods go through the scheduler, as upstream's createPods
    t0 = time.perf_counter()
    placed = _results(simulate(build_cluster(base + init_pods), None, seed=seed, explain=False))
    init_seconds = time.perf_counter() - t0
    where = {_pod_key(r): r.get("node") for r in placed}
    bound = []
    for p in init_pods:
        node = where.get(f"{p['metadata']['namespace']}/{p['metadata']['name']}")
        if node:
            p = {**p, "spec": {**p["spec"], "nodeName": node}}
            bound.append(p)

    # phase 2 (timed): the measured pods on top of the placed ones
    cluster = build_cluster(base + bound + measured)
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    t0 = time.perf_counter()
    out = _results(simulate(cluster, None, seed=seed, explain=False))
    seconds = time.perf_counter() - t0
    if prof is not None:
        prof.disable()
        prof.dump_stats(profile)
    statuses: dict[str, int] = {}
    for r in out:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    return {
        "workload": workload,
        "nodes": nodes,
        "init_pods": init,
        "init_scheduled": len(bound),
        "init_seconds": round(init_seconds, 2),
        "measured_pods": measure,
        "statuses": statuses,
        "seconds": round(seconds, 2),
        "pods_per_second": round(measure / seconds, 1) if seconds else None,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


# -- CLI ------------------------------------------------------------------------------------


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--workloads", help="comma list of basic, antiaffinity, spread")
    ap.add_argument("--nodes", help="comma list of node counts (500, 5000, or any)")
    ap.add_argument("--init", type=int, help="init pods (overrides the table)")
    ap.add_argument("--measure", type=int, help="measured pods (overrides the table)")
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", help="write cProfile stats of the measured phase to this file")
    ap.add_argument("--json", action="store_true", help="print one JSON line per case")
    ap.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def _cases(args: argparse.Namespace) -> list[tuple[str, int, int, int]]:
    table = QUICK if args.quick else SIZES
    if args.workloads or args.nodes:
        workloads = (args.workloads or "basic,antiaffinity,spread").split(",")
        sizes = [int(n) for n in (args.nodes or "500,5000").split(",")]
        pairs = [(w, n) for w in workloads for n in sizes]
    else:
        pairs = QUICK_CASES if args.quick else DEFAULT_CASES
    out = []
    for w, n in pairs:
        sizes_for = table.get(w) or SIZES[w]
        init, measure = sizes_for.get(n) or SIZES[w].get(n) or next(iter(sizes_for.values()))
        out.append((w, n, args.init if args.init is not None else init, args.measure or measure))
    return out


def _print_row(r: dict[str, Any]) -> None:
    print(
        f"{r['workload']:<13} {r['nodes']:>6} nodes  init {r['init_scheduled']:>5}/{r['init_pods']:<5}"
        f" measured {r['measured_pods']:>6}  {r['seconds']:>8.2f} s  "
        f"{r['pods_per_second']:>8} pods/s  peak RSS {r['peak_rss_mib']:>7} MiB  {r['statuses']}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    cases = _cases(args)
    if args.in_process:
        for w, n, init, measure in cases:
            r = run_case(w, n, init, measure, args.seed, args.profile)
            print(json.dumps(r), flush=True)
        return 0
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; one process per case")
    for w, n, init, measure in cases:
        cmd = [
            sys.executable,
            os.path.abspath(__file__),
            "--in-process",
            "--workloads",
            w,
            "--nodes",
            str(n),
            "--init",
            str(init),
            "--measure",
            str(measure),
            "--seed",
            str(args.seed),
        ]
        if args.profile:
            cmd += ["--profile", args.profile]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            return proc.returncode
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        print(json.dumps(r) if args.json else "", end="\n" if args.json else "")
        if not args.json:
            _print_row(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
