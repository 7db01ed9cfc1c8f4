"""Scale: one web process and one worker on a large mirrored cluster, their RSS together, and a
dry-run of many pending pods on the mirrored state.

    .venv/bin/python benchmarks/mirror.py --nodes 15000 --pods 150000   # leaves schedlab_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench \\
    REDIS_URL=redis://127.0.0.1:6379/0 .venv/bin/python benchmarks/scale.py \\
        [--cluster bench --pending 10000]

Starts one web process as production does (``schedlab.serve --processes 1``, prewarm
on) and one Celery worker (prewarm on too: by design it builds no warm state), waits
for the web process's prewarm, then POSTs a dry-run of the mirrored cluster plus a
workload of --pending pods (100m CPU, 128Mi each) through the REST API over HTTP
(the web process freezes the cluster's state), and waits until the worker stored
it. Prints each process's RSS after the prewarm and its peak (VmHWM) at the end,
their sum, and the dry-run's seconds (load, engine, store; POST to succeeded).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks import common  # noqa: E402

# a Redis database of its own: the web process queues on the default queue, which no other
# worker on the shared Redis may take
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/7")
common.django_env("schedlab_bench", "127.0.0.1,localhost", redis=True, debug=False)
SNAPSHOT_BYTES = str(1 << 30)  # the frozen state of 150,000 pods is larger than the default cap


def workload(pending: int) -> list[dict]:
    requests_ = {"cpu": "100m", "memory": "128Mi"}
    container = {"name": "main", "image": "app:1", "resources": {"requests": requests_}}
    return [
        {
            "kind": "Job",
            "name": "scale",
            "namespace": "default",
            "replicas": pending,
            "podTemplate": {
                "metadata": {"labels": {"job": "scale"}},
                "spec": {"containers": [container]},
            },
        }
    ]


def start_web() -> tuple:
    """One web process under schedlab.serve; returns (supervisor, child pid, base URL)."""
    port = common.free_port()
    env = {
        **os.environ,
        "SCHEDLAB_EXPLAIN_PREWARM": "1",
        "LOG_LEVEL": "INFO",
        "SCHEDLAB_MAX_SNAPSHOT_BYTES": SNAPSHOT_BYTES,
    }
    proc = common.start_daphne(port, env, processes=1)
    child: list[int] = []
    warm = threading.Event()

    def read_log() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            if "started, pid" in line:
                child.append(int(line.rsplit(" ", 1)[1]))
            if "explanation prewarm" in line:
                print(line.strip()[-160:], flush=True)
                warm.set()

    threading.Thread(target=read_log, daemon=True).start()
    t0 = time.monotonic()
    warm.wait(900)
    print(f"web prewarm done at {time.monotonic() - t0:.1f} s", flush=True)
    return proc, child[0], f"http://127.0.0.1:{port}"


def dry_run(base: str, token: str, cluster_id: int, pending: int) -> dict:
    s = requests.Session()
    s.headers["Authorization"] = f"Token {token}"
    t0 = time.monotonic()
    r = s.post(
        f"{base}/api/v1/dry-runs/",
        json={"cluster": cluster_id, "workload": workload(pending), "seed": 1},
        timeout=600,
    )
    assert r.status_code == 202, r.text[:500]
    posted = time.monotonic() - t0
    run_id = r.json()["id"]
    while True:
        d = s.get(f"{base}/api/v1/dry-runs/{run_id}/", timeout=60).json()
        if d["status"] in ("succeeded", "failed", "cancelled"):
            break
        time.sleep(1)
    d["post_seconds"] = posted
    d["total_seconds"] = time.monotonic() - t0
    return d


def main() -> int:
    args = common.arguments(
        __doc__, cluster="bench", pending=(10000, "pods of the dry-run's workload")
    ).parse_args()
    common.setup_django()
    from rest_framework.authtoken.models import Token

    from dashboard.cluster.models import Cluster, Node, Pod

    cluster = Cluster.objects.get(name=args.cluster)
    nodes = Node.objects.filter(cluster=cluster).count()
    pods = Pod.objects.filter(cluster=cluster).count()
    print(f"cluster {cluster.name}: {nodes} nodes, {pods} pods", flush=True)
    token = Token.objects.get_or_create(user=common.superuser("bench-scale"))[0].key
    worker_env = {"SCHEDLAB_EXPLAIN_PREWARM": "1", "SCHEDLAB_MAX_SNAPSHOT_BYTES": SNAPSHOT_BYTES}
    worker = common.start_worker(None, f"scale-{os.getpid()}", env=worker_env)
    web, child, base = start_web()
    try:
        web_rss, worker_rss = common.rss_mib(child), common.rss_mib(worker.pid)
        print(f"after the prewarm: web {web_rss} MiB, worker {worker_rss} MiB", flush=True)
        d = dry_run(base, token, cluster.pk, args.pending)
        web_peak, worker_peak = (
            common.rss_mib(child, peak=True),
            common.rss_mib(worker.pid, peak=True),
        )
    finally:
        web.terminate()
        worker.terminate()
        web.wait(60)
        worker.wait(60)
    print(
        f"dry-run of {args.pending} pending pods on the mirrored state: {d['status']} "
        f"{d.get('error', '')[:200]}; placed {d.get('pods_placed')}; POST {d['post_seconds']:.1f} s; "
        f"worker load {d.get('load_seconds')} s, engine {d.get('engine_seconds')} s, "
        f"store {d.get('store_seconds')} s; POST to succeeded {d['total_seconds']:.1f} s",
        flush=True,
    )
    print(
        f"peak RSS: web {web_peak} MiB + worker {worker_peak} MiB = {web_peak + worker_peak} MiB; "
        f"load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    return 0 if d["status"] == "succeeded" else 1


if __name__ == "__main__":
    raise SystemExit(main())
