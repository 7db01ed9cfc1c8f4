"""Page benchmark: every dashboard page with 5,000 nodes and 50,000 pods in PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench_pages \
    .venv/bin/python benchmarks/pages.py [--nodes 5000 --pods 50000 --pending 5000 --runs 20]
        [--dryrun-pods 10000] [--rerun] [--only SUBSTRING]

Loads a synthetic GPU fleet through the snapshot import service (the mirror's
bulk writer), then renders each page through Django's test client (middleware,
session, templates: the whole server side) --runs times and reports p50/p95
server time and the bytes shipped. Goals: <= 300 ms and <= 1 MB per page.

The dry-run pages need two finished runs on the same frozen state: a
--nodes-node / --dryrun-pods-pod snapshot (GPU nodes, a reserved pool full of
low-priority pods that high-priority 8-GPU pods preempt, a PDB some victims
break, pods no node can hold) run in-process through the dry-run service
(``run_dry_run``; no Celery) with the default profile and with a bin-packing
one. They are kept between invocations (--rerun makes new ones).
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
from benchmarks import common  # noqa: E402
from benchmarks.common import django_env, pct, synthetic_cluster  # noqa: E402

django_env("schedlab_bench_pages", "testserver,localhost", debug=False)

POOLS = ("a100", "h100", "l40s", "cpu")
NEW_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
"""
NAMESPACES = ("ml-training", "ml-inference", "batch", "web", "data")
PRIORITIES = (0, 100, 1000, 10000)
GPU_SIZES = (0, 1, 2, 4, 8)


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


def _resources(requests: dict[str, str]) -> dict[str, dict[str, str]]:
    """Requests, and the limits the API server requires of extended resources (= requests)."""
    limits = {k: v for k, v in requests.items() if k == "nvidia.com/gpu"}
    return {"requests": requests, "limits": limits} if limits else {"requests": requests}


def _pod(
    meta: dict[str, Any], cpu: str, memory: str, gpus: int, node_name: str, **spec: Any
) -> dict[str, Any]:
    """A pod of one container, running on ``node_name`` or Pending without one."""
    requests = {"cpu": cpu, "memory": memory}
    if gpus:
        requests["nvidia.com/gpu"] = str(gpus)
    container = {"name": "main", "image": "app:1", "resources": _resources(requests)}
    spec = {"containers": [container], **spec}
    if node_name:
        spec["nodeName"] = node_name
    phase = "Running" if node_name else "Pending"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": spec,
        "status": {"phase": phase},
    }


def pod(i: int, node_name: str, gpus: int) -> dict[str, Any]:
    meta = {
        "name": f"pod-{i}",
        "namespace": NAMESPACES[i % len(NAMESPACES)],
        "uid": f"pod-uid-{i}",
        "creationTimestamp": f"2025-03-01T{10 + i % 10}:{i % 60:02d}:00Z",
        "labels": {"app": f"app-{i % 50}"},
    }
    return _pod(meta, "2", "8Gi", gpus, node_name, priority=PRIORITIES[i % len(PRIORITIES)])


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


RESERVED_NODES = 100
PREEMPTORS = 150
IMPOSSIBLE = 400
BENCH_BINPACK = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
        - {name: nvidia.com/gpu, weight: 5}
"""


def dryrun_fleet(nodes: int, pods: int) -> list[dict[str, Any]]:
    """The frozen state of the dry-run pages: ``pods`` pending pods on ``nodes`` GPU nodes."""
    objs: list[dict[str, Any]] = [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        for name, value in (("batch-low", 0), ("training-high", 100000))
    ]
    objs.append(
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "batch-guard", "namespace": "batch"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}},
            "status": {"disruptionsAllowed": 0},
        }
    )
    for i in range(nodes):
        n = node(i)
        n["metadata"]["labels"]["pool"] = "reserved" if i < RESERVED_NODES else "shared"
        n["status"]["allocatable"] = n["status"]["capacity"] = {
            "cpu": "64",
            "memory": "512Gi",
            "pods": "110",
            "nvidia.com/gpu": "8",
        }
        objs.append(n)

    def gpu_pod(
        name: str, ns: str, gpus: int, cls: str, prio: int, node_name: str = "", **extra: Any
    ) -> dict[str, Any]:
        meta = {
            "name": name,
            "namespace": ns,
            "uid": f"uid-{ns}-{name}",
            "labels": {"app": "guarded" if name.endswith(("0", "1")) else "batch"},
            "creationTimestamp": "2025-03-01T10:00:00Z",
        }
        return _pod(
            meta, "1", "2Gi", gpus, node_name, priorityClassName=cls, priority=prio, **extra
        )

    for i in range(RESERVED_NODES):
        for g in range(8):
            objs.append(gpu_pod(f"low-{i}-{g}", "batch", 1, "batch-low", 0, f"node-{i}"))
    reserved = {"nodeSelector": {"pool": "reserved"}}
    for j in range(pods):
        if j < PREEMPTORS:
            objs.append(
                gpu_pod(f"train-{j}", "ml-training", 8, "training-high", 100000, **reserved)
            )
        elif j < PREEMPTORS + IMPOSSIBLE:
            objs.append(gpu_pod(f"huge-{j}", "ml-training", 16, "batch-low", 0))
        else:
            objs.append(gpu_pod(f"job-{j}", NAMESPACES[j % 5], int(j % 3 == 0), "batch-low", 0))
    return objs


def _dry_runs(cluster: Any, user: Any, args: argparse.Namespace) -> tuple[Any, Any]:
    """Two succeeded runs (default profile, bin-packing) on one frozen state; kept."""
    from unittest import mock

    from dashboard.dryruns import tasks
    from dashboard.dryruns.indexes import INDEX_VERSION
    from dashboard.dryruns.models import DryRun, Profile
    from dashboard.dryruns.services.dryruns import create_dry_run
    from dashboard.dryruns.services.profiles import create_profile, create_version
    from dashboard.dryruns.services.runner import run_dry_run

    versions = []
    for name, document in (("bench-default", NEW_PROFILE), ("bench-binpack", BENCH_BINPACK)):
        profile = Profile.objects.filter(cluster=cluster, name=name).first()
        if profile is None:
            version = create_profile(name=name, document=document, cluster=cluster, author=user)
            # a history to list and diff, as an edited profile has
            for k in range(1, 30):
                version = create_version(
                    version.profile,
                    document=document + f"# revision {k}\n",
                    author=user,
                    message=f"revision {k}",
                )
            profile = version.profile
        versions.append(profile.versions.order_by("-number").first())
    runs = []
    objects = None
    for version in versions:
        run = (
            DryRun.objects.filter(
                cluster=cluster,
                profile_version=version,
                status=DryRun.Status.SUCCEEDED,
                result_count=args.dryrun_pods,
                index_version=INDEX_VERSION,
            )
            .order_by("-id")
            .first()
        )
        if run is None or args.rerun:
            objects = objects or dryrun_fleet(args.nodes, args.dryrun_pods)
            t0 = time.perf_counter()
            # in-process: the service's own worker entry point, no broker or worker
            with mock.patch.object(tasks.run_dry_run_task, "delay"):
                run = create_dry_run(
                    cluster,
                    profile_version=version,
                    source=DryRun.Source.SNAPSHOT,
                    snapshot=objects,
                    user=user,
                )
            run_dry_run(run.pk)
            run.refresh_from_db()
            assert run.status == DryRun.Status.SUCCEEDED, run.error
            print(
                f"dry-run #{run.pk} ({version}): {run.pods_placed}/{run.result_count} placed, "
                f"{run.pending_count} pending, {run.victim_count} victims of "
                f"{run.preemptor_count} preemptors in {time.perf_counter() - t0:.1f} s"
            )
        runs.append(run)
    # the list at scale: finished runs of other people before these two
    if DryRun.objects.count() < 500:
        DryRun.objects.bulk_create(
            DryRun(
                cluster=cluster,
                profile_version=versions[i % 2],
                status=DryRun.Status.CANCELLED,
                snapshot=b"",
                created_by=user,
                metrics={"after": {"cpuAllocated": 0.5}},
            )
            for i in range(500)
        )
    return runs[0], runs[1]


def main() -> int:
    args = common.arguments(
        __doc__,
        nodes=5000,
        pods=50000,
        pending=5000,
        runs=(20, "times each page is rendered"),
        reload=False,
        dryrun_pods=(10000, "pods of each of the two dry-runs"),
        rerun=(False, "new dry-runs even if kept ones exist"),
        only=("", "only pages whose label contains this"),
    ).parse_args()

    common.setup_django()
    from dashboard.cluster.models import Pod

    cluster = synthetic_cluster(
        "bench-pages",
        lambda c: Pod.objects.filter(cluster=c).count() == args.pods,
        lambda: fleet(args.nodes, args.pods, args.pending),
        reload=args.reload,
    )

    user = common.superuser("bench-pages")
    client = common.logged_in_client(user)
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
    base, binpack = _dry_runs(cluster, user, args)
    profile = binpack.profile_version.profile_id
    pages += [
        ("dry-run list", "/dry-runs/"),
        ("dry-run list, one cluster, page 5", f"/dry-runs/?cluster={c}&page=5"),
        (f"dry-run results ({binpack.result_count:,} pods)", f"/dry-runs/{binpack.pk}/"),
        (
            "dry-run results, placements p50, pending p10",
            f"/dry-runs/{binpack.pk}/?page=50&pending=10",
        ),
        ("compare two dry-runs", f"/dry-runs/{binpack.pk}/compare/{base.pk}/"),
        (
            "compare two dry-runs, changes page 5",
            f"/dry-runs/{binpack.pk}/compare/{base.pk}/?page=5",
        ),
        ("profile list", f"/profiles/?cluster={c}"),
        ("profile editor (30 versions, runs)", f"/profiles/{profile}/?cluster={c}"),
        ("profile diff", f"/profiles/{profile}/diff/?a=1&b=30"),
    ]
    pages = [p for p in pages if args.only in p[0]]
    ms = 1000
    rows = []
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
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
        ok = pct(times, 0.5) <= 0.3 and pct(times, 0.95) <= 0.3 and size <= 1_000_000
        rows.append((label, first, pct(times, 0.5), pct(times, 0.95), size, ok))
        print(
            f"{label:42s} first {ms * first:7.0f} ms  p50 {ms * pct(times, 0.5):6.0f} ms  "
            f"p95 {ms * pct(times, 0.95):6.0f} ms  {size / 1024:7.1f} KiB  {'ok' if ok else 'OVER'}"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
