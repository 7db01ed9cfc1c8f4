"""A burst of dry-runs submitted at once on a fixed number of Celery workers: all finish, none lost.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench_pages \
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/dryrun_burst.py \
        [--runs 20 --workers 2 --nodes 200 --pending 1000]

Starts --workers worker processes (``--pool=solo``, a queue of this run's own
on the shared Redis), submits --runs dry-runs of a synthetic fleet at once
through the Celery task (on the cluster --cluster, created empty if missing: each
run carries its own snapshot), and waits until every run has finished; prints how
long the burst took, each status, and the attempts (1 each when none was lost).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.common import arguments, django_env, setup_django, start_worker  # noqa: E402

django_env("schedlab_bench_pages", "testserver,localhost", redis=True)


def main() -> int:
    args = arguments(
        __doc__,
        cluster="bench-pages",
        runs=(20, "dry-runs submitted at once"),
        workers=(2, "Celery worker processes"),
        nodes=200,
        pending=1000,
        timeout=(600.0, "seconds to wait for every run to finish"),
    ).parse_args()

    setup_django()
    from dashboard.cluster.models import Cluster
    from dashboard.dryruns import codec
    from dashboard.dryruns.models import DryRun
    from dashboard.dryruns.tasks import run_dry_run_task
    from tests.support.synthetic import fleet

    queue = f"bench-burst-{os.getpid()}"
    workers = [start_worker(queue, f"burst{i}-{os.getpid()}") for i in range(args.workers)]
    try:
        cluster, _ = Cluster.objects.get_or_create(  # the runs bring their own snapshots
            name=args.cluster,
            defaults={"source": Cluster.Source.SNAPSHOT, "snapshot_path": "synthetic"},
        )
        snapshot = codec.pack(fleet(args.nodes, pending=args.pending))
        runs = [
            DryRun.objects.create(cluster=cluster, snapshot=snapshot, seed=i)
            for i in range(args.runs)
        ]
        pks = [r.pk for r in runs]
        t0 = time.monotonic()
        for pk in pks:
            run_dry_run_task.apply_async((pk,), queue=queue)
        while DryRun.objects.filter(pk__in=pks, finished_at__isnull=True).exists():
            if time.monotonic() - t0 > args.timeout:
                break
            time.sleep(0.5)
        took = time.monotonic() - t0
        rows = list(DryRun.objects.filter(pk__in=pks).values_list("status", "attempts"))
        statuses = Counter(s for s, _ in rows)
        attempts = Counter(a for _, a in rows)
        print(
            f"{args.runs} dry-runs of {args.pending} pending pods on {args.nodes} nodes, "
            f"{args.workers} workers: {took:.1f} s; statuses {dict(statuses)}; "
            f"attempts {dict(attempts)}",
            flush=True,
        )
        return 0 if statuses.get("succeeded") == args.runs else 1
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            try:
                w.wait(30)
            except subprocess.TimeoutExpired:
                w.kill()


if __name__ == "__main__":
    raise SystemExit(main())
