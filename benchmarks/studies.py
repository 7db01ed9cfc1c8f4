"""Study benchmark: one small real study's wall time on 1 and on 2 Celery worker processes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench \
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/studies.py \
        [--data /work/shared/data/openb] [--every 6] [--seeds 2] [--workers 1 2]
        [--policies random best-fit dot-product gpu-packing gpu-clustering fgd]

The study is the built-in ``nodes-to-score`` study (percentageOfNodesToScore
5, 10, 20, 30, 50, 75, 100 under the default profile) x ``--seeds`` seeds, on
a slice of the openb trace: every ``--every``-th GPU node, and the pods whose
GPU type is among those nodes' (inflate mode, 1.3 x capacity).  For each
worker count it starts that many worker processes (solo pool), waits until
they answer, starts the study through the service and reports the wall time
from start to the last run's end, and the sum of the runs' own wall times.
``--policies`` runs those policies (at percentageOfNodesToScore 100) instead
of the preset: ``--every 1 --seeds 1 --policies ...`` is one seed of the FGD
reproduction on the whole trace.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.common import django_env, setup_django, start_worker  # noqa: E402

django_env("schedlab_bench", "testserver,localhost", redis=True)
os.environ.setdefault("CELERY_TASK_DEFAULT_QUEUE", f"schedlab-bench-{os.getpid()}")
os.environ.setdefault("SCHEDLAB_EXPLAIN_PREWARM", "0")


def _slice(data: Path, every: int) -> tuple[str, str, int, int]:
    with open(data / "openb_node_list_gpu_node.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    nodes = rows[::every]
    models = {r["model"] for r in nodes}
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(nodes)
    nodes_csv = out.getvalue()
    with open(data / "openb_pod_list_default.csv", encoding="utf-8") as f:
        pods = list(csv.DictReader(f))
    kept = [p for p in pods if not p["gpu_spec"] or set(p["gpu_spec"].split("|")) <= models]
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=list(pods[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(kept)
    return nodes_csv, out.getvalue(), len(nodes), len(kept)


def _workers(n: int, tag: str) -> list[subprocess.Popen]:
    return [start_worker(os.environ["CELERY_TASK_DEFAULT_QUEUE"], f"{tag}-{i}") for i in range(n)]


def _wait_answering(app, names: list[str], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        replies = app.control.ping(destination=names, timeout=0.5) or []
        if set(names) <= {k for r in replies for k in r}:
            return
    raise SystemExit(f"workers {names} did not answer within {timeout}s")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data/openb")
    ap.add_argument("--every", type=int, default=6, help="take every N-th GPU node")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument(
        "--policies", nargs="+", help="policies instead of the nodes-to-score preset (e.g. fgd)"
    )
    args = ap.parse_args()

    setup_django()
    from django.conf import settings
    from django.core.management import call_command

    settings.CELERY_TASK_DEFAULT_QUEUE = os.environ["CELERY_TASK_DEFAULT_QUEUE"]
    call_command("migrate", verbosity=0)
    from dashboard.studies.models import FINISHED, Study
    from dashboard.studies.services.studies import NODES_TO_SCORE, create_study
    from schedlab.celery import app

    nodes_csv, pods_csv, n_nodes, n_pods = _slice(Path(args.data), args.every)
    seeds = [42 + i for i in range(args.seeds)]
    print(f"trace: {n_nodes} GPU nodes, {n_pods} pods (openb default, every {args.every}th node)")
    for n in args.workers:
        tag = f"bench-{os.getpid()}-{n}"
        procs = _workers(n, tag)
        try:
            _wait_answering(app, [f"{tag}-{i}@{socket.gethostname()}" for i in range(n)])
            t0 = time.perf_counter()
            study = create_study(
                user=None,
                name=f"bench {n} worker(s)",
                preset="" if args.policies else NODES_TO_SCORE,
                policies=args.policies,
                traces=[{"name": "openb-slice", "nodes_csv": nodes_csv, "pods_csv": pods_csv}],
                seeds=seeds,
            )
            while Study.objects.get(pk=study.pk).status not in FINISHED:
                time.sleep(0.2)
            wall = time.perf_counter() - t0
            study.refresh_from_db()
            runs = list(study.runs.all())
            own = sum((r.summary or {}).get("wallSeconds", 0.0) for r in runs)
            workers = sorted({r.worker for r in runs})
            at100 = {
                r.config_label: (r.summary or {}).get("unallocatedGpuPercentAt100") for r in runs
            }
            if args.policies:
                print(f"  unallocated GPU % at 100% arrived: {at100}")
            print(
                f"{n} worker(s): {len(runs)} runs {study.status}, wall {wall:.1f} s, "
                f"sum of run times {own:.1f} s, runs per worker "
                f"{[sum(r.worker == w for r in runs) for w in workers]}"
            )
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                p.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
