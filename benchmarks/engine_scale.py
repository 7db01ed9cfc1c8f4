"""A dry-run of the mirrored 15,000-node state, engine only (no Django, no database).

    .venv/bin/python benchmarks/engine_scale.py                 # full size, tens of minutes
    .venv/bin/python benchmarks/engine_scale.py --quick         # a tenth of it
    .venv/bin/python benchmarks/engine_scale.py --limit-pods 200   # growth over 200 pods

Builds what ``benchmarks/mirror.py`` mirrors (its object makers,
``benchmarks/mirror_fleet.py``): ``--nodes`` GPU nodes, ``--running`` running
GPU pods and ``--pending-mirror`` pending ones (every tenth pod of the mirror;
priorities up to 3,000, on GPUs the running pods already overcommit, so each
goes through preemption), plus a Job of ``--job`` pending pods (100m CPU,
128Mi each) as a dry-run's workload expands it. Then runs ``simulate`` as the
dry-run worker does: the default configuration, the plugin registry,
``controllers=True``, a progress callback, no explanations (a run this size
is past ``SCHEDLAB_DRYRUN_EXPLAIN_MAX_PAIRS``).

Defaults: 15,000 / 135,000 / 15,000 / 10,000; ``--quick``: 1,500 / 13,500 /
1,500 / 1,000. ``--limit-pods N`` stops after N attempts (the scheduling queue
takes the mirror's higher-priority GPU pods first; a pod tried again in a later
round counts again, and "pods" below are attempts). Prints pods per second
(attempts over engine wall time), the engine's CPU seconds, peak RSS
(``ru_maxrss``) and RSS growth per pod (current RSS after the last pod less
RSS after the first ``--warm`` pods, over the pods in between). Wall times on
a shared machine are noisy: the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.mirror_fleet import make_node, make_pod  # noqa: E402
from scheduler_engine.cluster import build_cluster  # noqa: E402
from scheduler_engine.config import load_config  # noqa: E402
from scheduler_engine.plugin_loader import build_registry  # noqa: E402
from scheduler_engine.simulate import simulate  # noqa: E402

FULL = {"nodes": 15000, "running": 135000, "pending_mirror": 15000, "job": 10000}
QUICK = {"nodes": 1500, "running": 13500, "pending_mirror": 1500, "job": 1000}


def job_pods(n: int) -> list[dict]:
    """A Job's pods as a dry-run's workload expands them (``dryruns/services/workload.py``)."""
    owner = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "name": "scale",
        "uid": "dryrun-default-job-scale",
        "controller": True,
        "blockOwnerDeletion": True,
    }
    requests = {"cpu": "100m", "memory": "128Mi"}
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"scale-{i}",
                "namespace": "default",
                "labels": {"job": "scale"},
                "uid": f"dryrun-default-scale-{i}",
                "ownerReferences": [dict(owner)],
            },
            "spec": {
                "containers": [
                    {"name": "main", "image": "app:1", "resources": {"requests": requests}}
                ]
            },
            "status": {"phase": "Pending"},
        }
        for i in range(n)
    ]


def objects(nodes: int, running: int, pending_mirror: int, job: int) -> list[dict]:
    """The mirror's pattern: pod i is pending when i % 10 == 0 (``pending_mirror`` of them)."""
    objs = [make_node(i) for i in range(nodes)]
    objs += [make_pod(10 * k, nodes, node=False) for k in range(pending_mirror)]
    i = placed = 0
    while placed < running:
        if i % 10 or i // 10 >= pending_mirror:
            objs.append(make_pod(i, nodes))
            placed += 1
        i += 1
    return objs + job_pods(job)


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class Stop(Exception):
    """Raised by the progress callback to end the run after ``--limit-pods``."""


class Progress:
    """The dry-run worker's callback, measuring instead of saving: RSS at ``warm`` and at the end."""

    def __init__(self, warm: int, limit: int | None, every: int) -> None:
        self.warm, self.limit, self.every = warm, limit, every
        self.done = 0
        self.rss_warm: float | None = None
        self.t0 = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        # called once an attempt: a pod tried again in a later round counts again
        self.done += 1
        done = self.done
        if done == self.warm:
            self.rss_warm = rss_mib()
        if self.every and done % self.every == 0:
            print(
                f"  {done}/{total} pods, {time.perf_counter() - self.t0:.1f} s, "
                f"RSS {rss_mib():.0f} MiB",
                flush=True,
            )
        if self.limit is not None and done >= self.limit:
            raise Stop


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the full size")
    for name in FULL:
        ap.add_argument(f"--{name.replace('_', '-')}", type=int, dest=name)
    ap.add_argument("--limit-pods", type=int, help="stop after this many pods")
    ap.add_argument("--warm", type=int, default=20, help="RSS growth is measured from this pod on")
    ap.add_argument("--every", type=int, default=0, help="print progress every N pods")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sizes = {
        k: getattr(args, k) if getattr(args, k) is not None else v
        for k, v in (QUICK if args.quick else FULL).items()
    }
    print(f"sizes {sizes}, load average {os.getloadavg()[0]:.1f}", flush=True)

    t0, c0 = time.perf_counter(), time.process_time()
    cluster = build_cluster(objects(**sizes), source="snapshot")
    registry = build_registry(())
    config = load_config(None, **registry.config_kwargs())
    t1, c1 = time.perf_counter(), time.process_time()
    rss_built = rss_mib()
    print(f"built in {t1 - t0:.1f} s ({c1 - c0:.1f} s CPU), RSS {rss_built:.0f} MiB", flush=True)

    progress = Progress(args.warm, args.limit_pods, args.every)
    summary = None
    try:
        result = simulate(
            cluster, config, seed=args.seed, progress=progress, registry=registry, controllers=True
        )
        summary = result.summary
    except Stop:
        pass
    t2, c2 = time.perf_counter(), time.process_time()
    rss_end = rss_mib()
    done = progress.done
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"attempts {done} in {t2 - t1:.1f} s wall, {c2 - c1:.1f} s CPU "
        f"({(c2 - c1) / max(done, 1):.3f} s CPU a pod), load average {os.getloadavg()[0]:.1f}"
    )
    if summary is not None:
        print(
            f"summary: counts {summary['counts']}, attempts {summary['attempts']}, "
            f"evictions {summary['evictions']}, podsPerSecond {summary['podsPerSecond']}"
        )
    else:
        print(f"pods per second {done / (t2 - t1):.1f} (stopped at --limit-pods)")
    print(
        f"peak RSS {peak:.0f} MiB, RSS after build {rss_built:.0f} MiB, at the end {rss_end:.0f} MiB"
    )
    if progress.rss_warm is not None and done > args.warm:
        growth = (rss_end - progress.rss_warm) / (done - args.warm)
        print(f"RSS growth {growth:.3f} MiB a pod (pods {args.warm} to {done})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
