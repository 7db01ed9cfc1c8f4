"""Page benchmark: every dashboard page with 5,000 nodes and 50,000 pods in PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench_pages \
    .venv/bin/python benchmarks/pages.py [--nodes 5000 --pods 50000 --pending 5000 --runs 20]

Loads a synthetic GPU fleet through the snapshot import service (the mirror's
bulk writer), then renders each page through Django's test client (middleware,
session, templates: the whole server side) --runs times and reports p50/p95
server time and the bytes shipped. Goals: <= 300 ms and <= 1 MB per page.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "schedlab.settings.dev")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/schedlab_bench_pages")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,localhost")
os.environ.setdefault("DJANGO_DEBUG", "0")

POOLS = ("a100", "h100", "l40s", "cpu")
NAMESPACES = ("ml-training", "ml-inference", "batch", "web", "data")
PRIORITIES = (0, 100, 1000, 10000)
GPU_SIZES = (0, 1, 2, 4, 8)


def _ensure_database() -> None:
    import psycopg

    url = os.environ["DATABASE_URL"]
    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname=%s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def node(i: int) -> dict[str, Any]:
    pool = POOLS[i % len(POOLS)]
    gpus = 0 if pool == "cpu" else 8
    alloc = {"cpu": "96", "memory": "1000Gi", "pods": "110"}
    labels = {
        "kubernetes.io/hostname": f"node-{i}",
        "topology.kubernetes.io/zone": f"zone-{i % 3}",
        "pool": pool,
    }
    if gpus:
        alloc["nvidia.com/gpu"] = str(gpus)
        labels |= {
            "nvidia.com/gpu.product": {
                "a100": "NVIDIA-A100-SXM4-80GB",
                "h100": "NVIDIA-H100-80GB-HBM3",
                "l40s": "NVIDIA-L40S",
            }[pool],
            "nvidia.com/gpu.count": str(gpus),
            "nvidia.com/gpu.memory": "81920",
        }
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"node-{i}", "uid": f"node-uid-{i}", "labels": labels},
        "status": {
            "capacity": alloc,
            "allocatable": alloc,
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod(i: int, node_name: str, gpus: int) -> dict[str, Any]:
    requests = {"cpu": "2", "memory": "8Gi"}
    if gpus:
        requests["nvidia.com/gpu"] = str(gpus)
    spec: dict[str, Any] = {
        "containers": [{"name": "main", "image": "app:1", "resources": {"requests": requests}}],
        "priority": PRIORITIES[i % len(PRIORITIES)],
    }
    if node_name:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"pod-{i}",
            "namespace": NAMESPACES[i % len(NAMESPACES)],
            "uid": f"pod-uid-{i}",
            "creationTimestamp": f"2025-03-01T{10 + i % 10}:{i % 60:02d}:00Z",
            "labels": {"app": f"app-{i % 50}"},
        },
        "spec": spec,
        "status": {"phase": "Running" if node_name else "Pending"},
    }


def event(i: int, ns: str, name: str, nodes: int) -> dict[str, Any]:
    gpu_nodes = nodes * 3 // 4
    message = (
        f"0/{nodes} nodes are available: {gpu_nodes} Insufficient nvidia.com/gpu, "
        f"{nodes - gpu_nodes} node(s) had untolerated taint(s). preemption: 0/{nodes} nodes "
        f"are available: {nodes} Preemption is not helpful for scheduling."
        if i % 3
        else f"0/{nodes} nodes are available: {nodes} Insufficient cpu. preemption: "
        f"0/{nodes} nodes are available: {nodes} No preemption victims found for incoming pod."
    )
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.{i:x}", "namespace": ns, "uid": f"ev-{i}"},
        "reason": "FailedScheduling",
        "message": message,
        "type": "Warning",
        "count": 1 + i % 5,
        "involvedObject": {"kind": "Pod", "namespace": ns, "name": name},
        "lastTimestamp": "2025-03-01T12:00:00Z",
    }


def fleet(nodes: int, pods: int, pending: int) -> list[dict[str, Any]]:
    objs = [node(i) for i in range(nodes)]
    gpu_nodes = [i for i in range(nodes) if POOLS[i % len(POOLS)] != "cpu"]
    running = pods - pending
    for i in range(running):
        gpus = GPU_SIZES[i % len(GPU_SIZES)] if i % 4 == 0 else 0
        host = gpu_nodes[i % len(gpu_nodes)] if gpus else i % nodes
        # at most 8 GPUs per node: GPU pods spread round-robin over GPU nodes
        objs.append(pod(i, f"node-{host}", min(gpus, 1)))
    for j in range(pending):
        i = running + j
        objs.append(pod(i, "", GPU_SIZES[j % len(GPU_SIZES)]))
        ns = NAMESPACES[i % len(NAMESPACES)]
        objs.append(event(i, ns, f"pod-{i}", nodes))
    return objs


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("--pending", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--reload", action="store_true", help="re-import even if the cluster exists")
    args = ap.parse_args()

    _ensure_database()
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    from dashboard.models import Cluster, Pod
    from dashboard.services.clusters import ensure_snapshot_cluster
    from dashboard.services.snapshots import import_objects

    call_command("migrate", verbosity=0)
    cluster = ensure_snapshot_cluster("bench-pages", "synthetic")
    if args.reload or Pod.objects.filter(cluster=cluster).count() != args.pods:
        t0 = time.perf_counter()
        Cluster.objects.filter(pk=cluster.pk).delete()
        cluster = ensure_snapshot_cluster("bench-pages", "synthetic")
        import_objects(cluster, fleet(args.nodes, args.pods, args.pending))
        print(f"loaded {args.nodes} nodes, {args.pods} pods in {time.perf_counter() - t0:.1f} s")
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("ANALYZE")

    user, _ = User.objects.get_or_create(username="bench-pages", defaults={"is_superuser": True})
    client = Client(SERVER_NAME="localhost")
    client.force_login(user)
    c = cluster.name
    pending_pod = Pod.objects.filter(cluster=cluster, node_name="").order_by("-id").first()
    pod_url = f"/clusters/{c}/pods/{pending_pod.namespace}/{pending_pod.name}/"
    pages = [
        ("overview", f"/clusters/{c}/"),
        ("overview.json (live refresh)", f"/clusters/{c}/overview.json"),
        ("pending, page 1", f"/clusters/{c}/pending/"),
        ("pending, page 60", f"/clusters/{c}/pending/?page=60"),
        (
            "pending, filtered (ns, gpu, reason)",
            f"/clusters/{c}/pending/?namespace=batch&gpu=any&reason=taint",
        ),
        ("pending rows fragment (live)", f"/clusters/{c}/pending/rows/?page=2"),
        ("nodes & GPUs", f"/clusters/{c}/nodes/"),
        ("nodes rows fragment, page 80", f"/clusters/{c}/nodes/rows/?page=80"),
        ("gpu-topology.json (live)", f"/clusters/{c}/gpu-topology.json"),
        ("pod explanation page", pod_url),
        ("pod explanation fragment (engine, warm)", pod_url + "explanation/"),
    ]
    ms = 1000
    rows = []
    for label, url in pages:
        first = time.perf_counter()
        r = client.get(url)
        first = time.perf_counter() - first
        assert r.status_code == 200, (url, r.status_code, r.content[:300])
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            r = client.get(url)
            times.append(time.perf_counter() - t)
        size = len(r.content)
        ok = _pct(times, 0.95) <= 0.3 and size <= 1_000_000
        rows.append((label, first, _pct(times, 0.5), _pct(times, 0.95), size, ok))
        print(
            f"{label:42s} first {ms * first:7.0f} ms  p50 {ms * _pct(times, 0.5):6.0f} ms  "
            f"p95 {ms * _pct(times, 0.95):6.0f} ms  {size / 1024:7.1f} KiB  {'ok' if ok else 'OVER'}"
        )
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
