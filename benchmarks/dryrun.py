"""Dry-run benchmark: 10,000 pods on 5,000 nodes through the REST API and a real worker.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench \
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/dryrun.py [--nodes N --pods N]

Reports the worker's load / engine / store seconds (the issue's bar: time outside
the engine < 25% of engine time) and the live explanation endpoint's latency on
a mirrored cluster of --nodes nodes and --mirror-pods pods (cold, then warm).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks import common  # noqa: E402

common.django_env("schedlab_bench", "testserver,localhost", redis=True)
os.environ.setdefault("CELERY_TASK_DEFAULT_QUEUE", f"schedlab-bench-{os.getpid()}")
# the worker's start-up prewarm would compete with the measured run (see benchmarks/explain_prewarm.py)
os.environ.setdefault("SCHEDLAB_EXPLAIN_PREWARM", "0")


def main() -> int:
    args = common.arguments(
        __doc__,
        nodes=5000,
        pods=(10000, "pods of the dry-run"),
        mirror_pods=(50000, "pods of the mirrored cluster the explanations read"),
        explain_samples=(20, "timed explanations"),
        only_explain=(False, "skip the dry-run part"),
    ).parse_args()

    common.setup_django()
    from django.conf import settings
    from django.core.management import call_command
    from rest_framework.test import APIClient

    settings.CELERY_TASK_DEFAULT_QUEUE = os.environ["CELERY_TASK_DEFAULT_QUEUE"]
    call_command("migrate", verbosity=0)
    user = common.superuser("bench")
    client = APIClient(SERVER_NAME="localhost")
    client.force_authenticate(user)

    worker = common.start_worker(
        os.environ["CELERY_TASK_DEFAULT_QUEUE"],
        env={"SCHEDLAB_MAX_SNAPSHOT_BYTES": str(512 * 1024 * 1024)},
    )
    try:
        if not args.only_explain:
            _dry_run(args, client)
        _explanations(args, client)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    return 0


def _dry_run(args: argparse.Namespace, client) -> None:
    from dashboard.cluster.services.clusters import ensure_snapshot_cluster
    from tests.support.synthetic import fleet, pod

    cluster = ensure_snapshot_cluster("bench-dryrun", "synthetic")
    snapshot = fleet(args.nodes, running=0, pending=0)
    snapshot += [pod(i, gpus=(i % 3 == 0) * 1) for i in range(args.pods)]
    t0 = time.perf_counter()
    r = client.post(
        "/api/v1/dry-runs/",
        {"cluster": cluster.pk, "source": "snapshot", "snapshot": snapshot, "seed": 1},
        format="json",
    )
    t_post = time.perf_counter() - t0
    assert r.status_code == 202, r.content[:500]
    run_id = r.json()["id"]
    while True:
        d = client.get(f"/api/v1/dry-runs/{run_id}/").json()
        if d["status"] in ("succeeded", "failed", "cancelled"):
            break
        time.sleep(0.5)
    t_total = time.perf_counter() - t0
    assert d["status"] == "succeeded", d.get("error")
    outside = d["load_seconds"] + d["store_seconds"]
    t1 = time.perf_counter()
    client.get(f"/api/v1/dry-runs/{run_id}/results/?offset=5000&limit=1000")
    t_page = time.perf_counter() - t1
    print(
        f"dry-run {args.pods} pods on {args.nodes} nodes: status {d['status']}, "
        f"placed {d['pods_placed']}"
    )
    print(f"  POST (validate + freeze, in the web process): {t_post:.2f} s")
    print(
        f"  worker load {d['load_seconds']:.2f} s, engine {d['engine_seconds']:.2f} s, "
        f"store {d['store_seconds']:.2f} s, engine {d['pods_per_second']} pods/s"
    )
    print(
        f"  outside the engine in the worker: {outside:.2f} s = "
        f"{100 * outside / d['engine_seconds']:.1f}% of engine time (bar: < 25%)"
    )
    print(
        f"  end to end (POST to succeeded): {t_total:.2f} s; one results page: "
        f"{1000 * t_page:.0f} ms"
    )


def _explanations(args: argparse.Namespace, client) -> None:
    """The live explanation endpoint on a mirrored cluster: cold, warm, after mirror writes."""
    from dashboard.cluster.kinds import KINDS_BY_KIND, to_row
    from dashboard.cluster.services.cluster_state import Changes, apply_changes
    from dashboard.cluster.services.clusters import ensure_snapshot_cluster
    from dashboard.cluster.services.snapshots import import_objects
    from tests.support.synthetic import fleet, pod

    live = ensure_snapshot_cluster("bench-live", "synthetic")
    objs = fleet(args.nodes, running=args.mirror_pods - 100, pending=100)
    import_objects(live, objs)
    first_pending = args.mirror_pods - 100

    def get(i: int = 99) -> tuple[float, int]:
        # a different pending pod each time: an answer is kept until the state changes
        name = f"pod-{first_pending + i % 100}"
        t = time.perf_counter()
        r = client.get(f"/api/v1/clusters/{live.pk}/pods/default/{name}/explanation/")
        dt = time.perf_counter() - t
        assert r.status_code == 200, r.content[:300]
        return dt, len(r.content)

    cold, size = get()
    warm = [get(i)[0] for i in range(args.explain_samples)]
    # the mirror writes batches of 50 changed running pods between requests
    after: list[float] = []
    spec = KINDS_BY_KIND["Pod"]
    for round_ in range(min(10, args.explain_samples)):
        changes = Changes()
        for j in range(50):
            i = (round_ * 50 + j) * 7 % (args.mirror_pods - 100)
            o = pod(i, node_name=f"node-{(i + round_ + 1) % args.nodes}")
            changes.upsert(spec, to_row(spec, live.pk, o))
        apply_changes(live.pk, changes)
        after.append(get()[0])
    ms = 1000
    print(
        f"explanation, {args.nodes} nodes / {args.mirror_pods} pods mirrored "
        f"(response {size / 1e6:.1f} MB):"
    )
    print(f"  first request (builds the warm state): {ms * cold:.0f} ms")
    print(
        f"  warm, {len(warm)} requests: p50 {ms * common.pct(warm, 0.5):.0f} ms, "
        f"p95 {ms * common.pct(warm, 0.95):.0f} ms, max {ms * max(warm):.0f} ms (bar: <= 500 ms)"
    )
    print(
        f"  after a mirror batch of 50 pod changes, {len(after)} requests: "
        f"p50 {ms * common.pct(after, 0.5):.0f} ms, p95 {ms * common.pct(after, 0.95):.0f} ms"
    )


if __name__ == "__main__":
    raise SystemExit(main())
