"""GPU page benchmark: a node's GPU topology and the GPU fleet at 1,000 GPU nodes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench_gpu \
    .venv/bin/python benchmarks/gpu_pages.py [--nodes 1000 --runs 20] [--reload]

Loads a fleet of 8-GPU nodes through the snapshot import service: half publish
their GPUs as NVIDIA DRA devices (ResourceSlices with NUMA node, PCIe root and
NVLink clique; claims holding some GPUs for running pods), half only a
device-plugin count with a NodeResourceTopology (running pods requesting
nvidia.com/gpu); NVLink domains of 18 nodes; a few nodes whose counts disagree.
Then renders each page through Django's test client (middleware, session,
templates: the whole server side) --runs times, two ways:

- *unchanged*: the cluster did not change since the last request (the hardware
  view is kept with the warm state);
- *after a change*: one pod is rewritten before each request, as the mirror
  does, so the request brings the warm state up to date and computes the
  hardware view again. This is what a page fetches on every live update.

Goals: node topology page (8-GPU node) <= 100 ms, fleet view <= 500 ms (p50 and
p95, after a change).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks import common  # noqa: E402
from benchmarks.common import django_env, pct, synthetic_cluster  # noqa: E402
from tests.support import gpus, objects  # noqa: E402

django_env("schedlab_bench_gpu", "testserver,localhost", debug=False)

DOMAIN_NODES = 18  # an NVL72-style NVLink domain spans 18 nodes


def fleet(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        name = f"gpu-{i:04d}"
        clique = f"7c1b3a2e-5d4f-4e8a-9b6c-0d1e2f3a4b5c.{i // DOMAIN_NODES}"
        used = i % 3  # 0, 1 or 2 pods of 2 GPUs; every third node whole free
        if i % 2 == 0:  # DRA
            node = gpus.gpu_node(name, gpus=0, gfd_count=8, clique=clique)
            out.append(node)
            skip = (7,) if i % 97 == 0 else ()  # an unhealthy GPU the driver stopped publishing
            out.append(gpus.gpu_slice(name, clique=clique, skip=skip))
            for p in range(used):
                claim, pod = f"{name}-claim-{p}", f"{name}-pod-{p}"
                devices = [f"gpu-{2 * p}", f"gpu-{2 * p + 1}"]
                out.append(gpus.allocated_claim(claim, name, devices, pod=pod))
                out.append(gpus.claim_pod(pod, name, claim))
        else:  # device plugin + NodeResourceTopology
            alloc = 7 if i % 89 == 1 else 8
            out.append(gpus.gpu_node(name, gpus=alloc, gfd_count=8, clique=clique))
            out.append(gpus.nrt(name, [(4, 4 - 2 * used if used < 2 else 0), (4, 4)]))
            for p in range(used):
                out.append(objects.pod(f"{name}-pod-{p}", node=name, gpus=2))
    return out


def main() -> int:
    args = common.arguments(
        __doc__, nodes=1000, runs=(20, "times each page is rendered"), reload=False
    ).parse_args()

    common.setup_django()
    from dashboard.cluster.kinds import KINDS_BY_KIND, to_row
    from dashboard.cluster.models import Node
    from dashboard.cluster.services.cluster_state import Changes, apply_changes

    cluster = synthetic_cluster(
        "bench-gpu",
        lambda c: Node.objects.filter(cluster=c).count() == args.nodes,
        lambda: fleet(args.nodes),
        reload=args.reload,
    )

    client = common.logged_in_client(common.superuser("bench-gpu"))
    c = cluster.name
    spec = KINDS_BY_KIND["Pod"]
    churn = [0]

    def change() -> None:
        """One pod rewritten, as a mirror batch writes it (then broadcast after commit)."""
        churn[0] += 1
        pod = objects.pod("churn", node="gpu-0001", gpus=0)
        pod["metadata"]["labels"] = {"rev": str(churn[0])}
        changes = Changes()
        changes.upsert(spec, to_row(spec, cluster.pk, pod))
        apply_changes(cluster.pk, changes)

    pages = [
        ("node topology, DRA 8-GPU node", f"/clusters/{c}/gpus/gpu-0002/", 0.1),
        ("node topology, device-plugin 8-GPU node", f"/clusters/{c}/gpus/gpu-0001/", 0.1),
        ("node topology fragment (live)", f"/clusters/{c}/gpus/gpu-0002/body/", 0.1),
        (f"fleet view, {args.nodes:,} GPU nodes", f"/clusters/{c}/gpus/", 0.5),
        ("fleet fragment (live)", f"/clusters/{c}/gpus/body/", 0.5),
        # reported, no goal of their own
        ("API gpus/ (fleet JSON)", f"/api/v1/clusters/{cluster.pk}/gpus/", None),
        ("API gpus/{node}/", f"/api/v1/clusters/{cluster.pk}/gpus/gpu-0002/", None),
        ("overview (with inconsistencies)", f"/clusters/{c}/", None),
    ]
    ms = 1000
    ok_all = True
    first = time.perf_counter()
    assert client.get(pages[0][1]).status_code == 200
    print(f"first request (builds the warm state): {ms * (time.perf_counter() - first):.0f} ms")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for label, url, goal in pages:
        r = client.get(url)
        assert r.status_code == 200, (url, r.status_code, r.content[:300])
        for mode in ("unchanged", "after a change"):
            times = []
            for _ in range(args.runs):
                if mode != "unchanged":
                    change()
                t = time.perf_counter()
                r = client.get(url)
                times.append(time.perf_counter() - t)
            checked = goal is not None and mode != "unchanged"
            ok = not checked or pct(times, 0.5) <= goal >= pct(times, 0.95)
            ok_all &= ok
            verdict = ("  ok" if ok else f"  OVER {ms * goal:.0f} ms") if checked else ""
            print(
                f"{label:42s} {mode:15s} p50 {ms * pct(times, 0.5):6.1f} ms  "
                f"p95 {ms * pct(times, 0.95):6.1f} ms  {len(r.content) / 1024:7.1f} KiB{verdict}"
            )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
