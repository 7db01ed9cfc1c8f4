"""The dry-run worker's load of a frozen state, in one process: no Celery, no database.

    .venv/bin/python benchmarks/dryrun_load.py                # 15,000 nodes / 150,000 pods
    .venv/bin/python benchmarks/dryrun_load.py --quick        # a tenth of it
    .venv/bin/python benchmarks/dryrun_load.py --profile 25   # and cProfile's top 25

Builds a synthetic frozen state with the mirror's object makers
(``benchmarks/mirror_fleet.py``: ``--nodes`` GPU nodes, ``--pods`` running GPU
pods) plus a Job of ``--pending`` pending pods as a dry-run's workload expands it
(``benchmarks/engine_scale.py``), and packs it as the POST does
(``codec.pack_items``). Then, in a fresh process (so that the peak RSS is the
load's own), does what the worker does before the engine runs
(``dryruns/services/runner.py``): ``codec.unpack`` and ``build_cluster``, timed
in two parts (inflate + JSON decode, then the cluster's build), wall and CPU
seconds, then the CPU of the first 100,000 allocations after it (the young
collections that walk the loaded state unless it is frozen), and peak RSS
(``VmHWM``) over the process at start; ``--simulate`` then runs the engine.
``--run-on DATABASE`` runs the whole dry-run instead, as the worker does
(``run_dry_run`` in-process, no Celery) on that PostgreSQL database, and prints
the load, engine and store seconds the run records. ``--repeat N``
measures N fresh processes and prints each. The packed state is cached in
``--cache-dir`` by size.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import gzip
import hashlib
import os
import pstats
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.engine_scale import job_pods  # noqa: E402
from benchmarks.mirror_fleet import make_node, make_pod  # noqa: E402
from dashboard.dryruns import codec  # noqa: E402
from scheduler_engine.cluster import build_cluster  # noqa: E402

try:
    from scheduler_engine.collector import frozen_after
except ImportError:  # a tree from before it: loaded as its worker loaded
    frozen_after = contextlib.nullcontext

FULL = {"nodes": 15000, "pods": 150000, "pending": 10000}
QUICK = {"nodes": 1500, "pods": 15000, "pending": 1000}


def frozen(nodes: int, pods: int, pending: int) -> bytes:
    """The packed state: nodes, running pods, then the Job's pending pods."""

    def objects():
        yield from (make_node(i) for i in range(nodes))
        yield from (make_pod(i, nodes) for i in range(pods))
        yield from job_pods(pending)

    data, _ = codec.pack_items(objects())
    return data


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def simulate_after(state: object) -> None:
    """``simulate`` as the worker runs it (default profile, no explanations), timed."""
    from scheduler_engine.config import load_config
    from scheduler_engine.plugin_loader import build_registry
    from scheduler_engine.simulate import simulate

    registry = build_registry(())
    config = load_config(None, **registry.config_kwargs())
    t0, c0 = time.perf_counter(), time.process_time()
    summary = simulate(state, config, seed=1, registry=registry, controllers=True).summary
    t1, c1 = time.perf_counter(), time.process_time()
    print(
        f"engine {t1 - t0:.2f} s ({c1 - c0:.2f} s CPU), counts {summary['counts']}, "
        f"collections by generation {[g['collections'] for g in gc.get_stats()]}",
        flush=True,
    )


def run_whole(path: Path, database: str) -> None:
    """The whole worker's side in this process (no Celery): a dry-run of the packed state on
    PostgreSQL database ``database`` (made and migrated if needed), ``run_dry_run``, and the
    load, engine and store seconds it records."""
    from benchmarks.common import django_env, setup_django

    django_env(database, "localhost")
    setup_django()
    from dashboard.cluster.models import Cluster
    from dashboard.dryruns.models import DryRun
    from dashboard.dryruns.services.runner import run_dry_run

    cluster, _ = Cluster.objects.get_or_create(
        name="dryrun-load", defaults={"source": Cluster.Source.SNAPSHOT, "snapshot_path": "bench"}
    )
    DryRun.objects.filter(cluster=cluster).delete()
    run = DryRun.objects.create(cluster=cluster, snapshot=path.read_bytes(), seed=1)
    c0 = time.process_time()
    status = run_dry_run(run.pk)
    cpu = time.process_time() - c0
    run.refresh_from_db()
    print(
        f"run_dry_run: {status}, {run.pods_placed} placed; load {run.load_seconds} s, engine "
        f"{run.engine_seconds} s, store {run.store_seconds} s (wall); {cpu:.1f} s CPU in all; "
        f"peak RSS {_status_kib('VmHWM') / 1024:.0f} MiB; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def measure(path: Path, profile: int, engine: bool) -> None:
    """One load of the packed state at ``path``, as the worker does it; prints one line."""
    data = path.read_bytes()
    start_kib = _status_kib("VmRSS")
    prof = cProfile.Profile() if profile else None
    if prof:
        prof.enable()
    t0, c0 = time.perf_counter(), time.process_time()
    with frozen_after():  # as the worker loads it (dryruns/services/runner.py)
        objects = codec.unpack(data)
        t1, c1 = time.perf_counter(), time.process_time()
        state = build_cluster(objects, source="snapshot")
    t2, c2 = time.perf_counter(), time.process_time()
    # the engine's first allocations: they walked the whole loaded state when it was not frozen
    _ = [[i] for i in range(100_000)]
    c3 = time.process_time()
    if prof:
        prof.disable()
    peak = (_status_kib("VmHWM") - start_kib) / 1024
    print(
        f"unpack {t1 - t0:.2f} s ({c1 - c0:.2f} s CPU), build {t2 - t1:.2f} s "
        f"({c2 - c1:.2f} s CPU), load {t2 - t0:.2f} s ({c2 - c0:.2f} s CPU), "
        f"100,000 allocations after it {c3 - c2:.2f} s CPU; "
        f"{len(state.nodes)} nodes, {len(state.pods)} pods; peak RSS +{peak:.0f} MiB; "
        f"load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    if prof:
        pstats.Stats(prof).sort_stats("tottime").print_stats(profile)
    if engine:
        simulate_after(state)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the full size")
    for name in FULL:
        ap.add_argument(f"--{name}", type=int, help=f"default {FULL[name]} ({QUICK[name]} quick)")
    ap.add_argument("--repeat", type=int, default=1, help="fresh processes to measure")
    ap.add_argument("--profile", type=int, default=0, help="print cProfile's top N by own time")
    ap.add_argument(
        "--simulate", action="store_true", help="then run the engine as the worker does"
    )
    ap.add_argument(
        "--run-on",
        metavar="DATABASE",
        help="instead: the whole dry-run as the worker runs it, on this PostgreSQL database",
    )
    ap.add_argument("--cache-dir", default="/tmp", help="where the packed state is kept")
    ap.add_argument("--measure", help=argparse.SUPPRESS)  # the child: the packed file
    args = ap.parse_args()
    if args.measure and args.run_on:
        run_whole(Path(args.measure), args.run_on)
        return 0
    if args.measure:
        measure(Path(args.measure), args.profile, args.simulate)
        return 0
    sizes = {
        k: getattr(args, k) if getattr(args, k) is not None else v
        for k, v in (QUICK if args.quick else FULL).items()
    }
    path = Path(args.cache_dir) / "dryrun-load-{nodes}-{pods}-{pending}.gz".format(**sizes)
    if not path.exists():
        t0 = time.perf_counter()
        data = frozen(**sizes)
        path.write_bytes(data)
        print(f"packed in {time.perf_counter() - t0:.1f} s", flush=True)
    data = path.read_bytes()
    raw = len(gzip.decompress(data))
    print(
        f"sizes {sizes}: {len(data) / 2**20:.1f} MiB packed, {raw / 2**20:.0f} MiB of JSON, "
        f"sha256 {hashlib.sha256(data).hexdigest()[:12]}",
        flush=True,
    )
    for _ in range(args.repeat):
        cmd = [sys.executable, __file__, "--measure", str(path), "--profile", str(args.profile)]
        cmd += ["--simulate"] if args.simulate else []
        cmd += ["--run-on", args.run_on] if args.run_on else []
        subprocess.run(cmd, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
