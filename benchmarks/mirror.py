"""Mirror benchmark against the local wire-protocol API server.

    .venv/bin/python benchmarks/mirror.py [--nodes 5000] [--pods 50000]

Measures, with PostgreSQL and Redis on 127.0.0.1 (as `make test` starts them):
  * initial sync: `manage.py mirror` subprocess start -> the mirror reports every list
    stored (its cluster row says `watching`), then every node and pod is counted once
    (`--count-rows`: until COUNT(*), polled, finds them all)
  * steady-state watch throughput: N pod updates -> all stored
  * single watch event -> websocket client (through Daphne's ASGI app and the Redis layer)
  * the mirror process's peak RSS (VmHWM) and its CPU seconds for the initial
    sync (a steadier figure than wall time on a shared machine)
It uses a scratch database `schedlab_bench` (or `SCHEDLAB_BENCH_DB`), dropped and created on each run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from tests.support.kubeserver import KubeServer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.common import arguments, ensure_database, rss_mib  # noqa: E402
from benchmarks.mirror_fleet import make_node, make_pod  # noqa: E402

# SCHEDLAB_BENCH_DB: a database of one's own, which no other benchmark drops meanwhile
DB_NAME = os.environ.get("SCHEDLAB_BENCH_DB", "schedlab_bench")
DB_URL = f"postgres://postgres@127.0.0.1:5432/{DB_NAME}"
os.environ.update(
    DJANGO_SETTINGS_MODULE="schedlab.settings.test",
    SCHEDLAB_TEST_ID="bench",  # shared channel-layer prefix with the mirror subprocess
    DATABASE_URL=DB_URL,
)


def wait_for(predicate: Callable[[], object], timeout: float, poll: float = 0.05) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(poll)
    raise SystemExit(f"timed out after {timeout}s")


def cpu_seconds(pid: int) -> float:
    """user + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def database_cpu_seconds() -> float:
    """CPU time of the PostgreSQL backends serving other connections to the bench database."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [DB_NAME],
        )
        pids = [pid for (pid,) in cursor.fetchall()]
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError):  # ended meanwhile
            total += cpu_seconds(pid)
    return total


def wait_for_sync(cluster_id: int, nodes: int, pods: int, *, count_rows: bool) -> float:
    """Seconds until the mirror says it is watching (every kind listed, its list
    stored), then checks the rows once; ``count_rows``: until COUNT(*) finds them."""
    from dashboard.cluster.models import Cluster, Node, Pod

    def stored() -> bool:
        return (
            Pod.objects.filter(cluster_id=cluster_id).count() == pods
            and Node.objects.filter(cluster_id=cluster_id).count() == nodes
        )

    if count_rows:
        return wait_for(stored, timeout=300, poll=0.25)
    watching = Cluster.objects.filter(pk=cluster_id, mirror_status=Cluster.MirrorStatus.WATCHING)
    sync = wait_for(watching.exists, timeout=300, poll=0.1)
    if not stored():
        raise SystemExit("the mirror said it was watching before every row was stored")
    return sync


def session_headers() -> list[tuple[bytes, bytes]]:
    """A viewer's session cookie: the websocket refuses anonymous clients (4401)."""
    from django.conf import settings
    from django.contrib.auth.models import Group, User
    from django.test import Client

    user, _ = User.objects.get_or_create(username="bench-viewer")
    user.groups.add(Group.objects.get_or_create(name="viewer")[0])
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return [(b"cookie", f"{name}={client.cookies[name].value}".encode())]


async def websocket_latency(kube: KubeServer, samples: int, headers: list) -> list[float]:
    from channels.testing import WebsocketCommunicator

    from schedlab.asgi import application
    from tests.support.objects import pod

    communicator = WebsocketCommunicator(
        application, "/ws/clusters/bench/?kinds=pods", headers=headers
    )
    connected, _ = await communicator.connect()
    assert connected
    loop = asyncio.get_running_loop()
    latencies = []
    for i in range(samples):
        start = time.perf_counter()
        await loop.run_in_executor(None, kube.apply, pod(f"probe-{i}", namespace="bench"))
        while True:
            message = await communicator.receive_json_from(timeout=10)
            names = {u["name"] for u in message.get("upserted", [])}
            if f"probe-{i}" in names:
                break
        latencies.append(time.perf_counter() - start)
        await asyncio.sleep(0.05)
    await communicator.disconnect()
    return latencies


def main() -> None:
    args = arguments(
        __doc__,
        nodes=(5000, "nodes the API server serves"),
        pods=(50000, "pods the API server serves"),
        updates=(5000, "pod updates for the watch throughput"),
        samples=(20, "watch events timed to the websocket"),
        count_rows=(
            False,
            "time the sync until COUNT(*) finds every row, polled 4 times a second (the "
            "figure before 1 December 2026; at 150,000 pods each count costs PostgreSQL "
            "~0.4 s of CPU), not until the mirror reports every list stored",
        ),
    ).parse_args()

    ensure_database(fresh=True)
    import django

    django.setup()
    from django.core.management import call_command

    from dashboard.cluster.models import Pod
    from dashboard.cluster.services.clusters import ensure_live_cluster
    from tests.support.kubeserver import KubeServer

    call_command("migrate", verbosity=0)
    kube = KubeServer(bookmark_interval=5.0).start()
    t = time.monotonic()
    kube.load(make_node(i) for i in range(args.nodes))
    kube.load(make_pod(i, args.nodes, node=i % 10 != 0) for i in range(args.pods))
    pod_bytes = sum(len(it.body) for it in kube.store.items["pods"].values()) / args.pods
    print(f"server loaded in {time.monotonic() - t:.1f}s (avg pod {pod_bytes:.0f} bytes of JSON)")

    tmp = Path(tempfile.mkdtemp())
    kubeconfig = kube.write_kubeconfig(tmp / "kubeconfig")
    cluster = ensure_live_cluster("bench", kubeconfig=str(kubeconfig), context="test")
    env = {**os.environ, "LOG_LEVEL": "WARNING", "MIRROR_PAGE_SIZE": "500"}
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "mirror", "--cluster", "bench"], cwd=ROOT, env=env
    )

    try:
        sync = wait_for_sync(cluster.pk, args.nodes, args.pods, count_rows=args.count_rows)
        sync_cpu, db_cpu = cpu_seconds(proc.pid), database_cpu_seconds()
        print(
            f"initial sync: {sync:.1f}s for {args.nodes} nodes + {args.pods} pods "
            f"(CPU: mirror process {sync_cpu:.1f}s, PostgreSQL {db_cpu:.1f}s; "
            f"load average {os.getloadavg()[0]:.1f})"
        )
        wait_for(lambda: rss_mib(proc.pid, peak=True) > 0, 5)

        # Steady state: a burst of pod updates (e.g. a scheduler binding pods).
        t0 = time.monotonic()
        last = None
        for i in range(args.updates):
            last = kube.apply(make_pod(i, args.nodes, node=True) | {})
        rv = last["metadata"]["resourceVersion"]
        produced = time.monotonic() - t0
        burst = wait_for(
            lambda: Pod.objects.filter(cluster=cluster, resource_version=rv).exists(), 120
        )
        total = produced + burst
        print(
            f"watch throughput: {args.updates} updates stored in {total:.2f}s "
            f"({args.updates / total:.0f} events/s)"
        )

        latencies = asyncio.run(websocket_latency(kube, args.samples, session_headers()))
        print(
            f"watch event -> websocket: median {statistics.median(latencies) * 1000:.0f} ms, "
            f"max {max(latencies) * 1000:.0f} ms over {len(latencies)} events"
        )
        rss = rss_mib(proc.pid, peak=True)
        print(f"mirror peak RSS: {rss:.0f} MiB")
        print(
            json.dumps(
                {
                    "initial_sync_s": round(sync, 2),
                    "initial_sync_cpu_s": round(sync_cpu, 2),
                    "initial_sync_db_cpu_s": round(db_cpu, 2),
                    "watch_events_per_s": round(args.updates / total),
                    "ws_latency_median_ms": round(statistics.median(latencies) * 1000),
                    "ws_latency_max_ms": round(max(latencies) * 1000),
                    "mirror_peak_rss_mib": round(rss),
                    "started": round(time.monotonic() - start, 1),
                }
            )
        )
    finally:
        proc.terminate()
        proc.wait(30)
        kube.stop()


if __name__ == "__main__":
    main()
