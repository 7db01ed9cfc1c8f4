"""Explanations on the warm state, in-process: p50/p95 alone and right after a mirror batch.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/schedlab_bench_pages \
    .venv/bin/python benchmarks/explain_warm.py [--cluster bench-pages --samples 60]
        [--batch 500 --batches 10] [--profile FILE] [--include nodes,whatif]

Needs a cluster already loaded (``benchmarks/pages.py`` loads ``bench-pages``,
5,000 nodes / 50,000 pods; ``benchmarks/mirror.py`` leaves ``bench`` in
``schedlab_bench``, 15,000 / 150,000). Builds this process's warm copy
(``dashboard.explain.live``), then times --samples pending pods in turn as the
explanation endpoint answers them without HTTP: ``explain_pod``, the answer with
the sections --include names (none by default, as the API), rendered by orjson. Then, --batches
times: --batch running pods are rewritten through the mirror's writer
(``apply_changes``: new resourceVersion, new annotation) and the next
explanation is timed, which first brings the warm copy up to date.
``--profile FILE`` writes a cProfile of the warm explanations, ``--profile-batches
FILE`` one of the explanations right after a batch.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.common import arguments, django_env, pct  # noqa: E402

django_env("schedlab_bench_pages", "testserver,localhost", debug=False)


MS = 1000


def parse_args() -> argparse.Namespace:
    return arguments(
        __doc__,
        cluster="bench-pages",
        samples=60,
        batch=(500, "running pods rewritten per batch"),
        batches=(10, "batches"),
        profile=("", "cProfile of the warm explanations, to this file"),
        include=("", "the API's include= (nodes,whatif: every section)"),
        profile_batches=("", "cProfile of the explanations after a batch, to this file"),
    ).parse_args()


class Explainer:
    """Explains the cluster's pending pods in turn as the API does (the engine, the answer's
    sections, orjson), keeping each explanation's CPU time."""

    def __init__(self, cluster, pending: list[tuple[str, str]], include: frozenset[str]) -> None:
        from dashboard.api.renderers import FastJSONRenderer
        from dashboard.explain.answer import answer
        from dashboard.explain.live import explain_pod

        self.cluster, self.pending, self.cpu, self.include = cluster, pending, [], include
        # imported once, outside the timed calls
        self.explain_pod, self.answer, self.render = explain_pod, answer, FastJSONRenderer().render

    def __call__(self, i: int) -> float:
        ns, name = self.pending[i % len(self.pending)]
        t, c = time.perf_counter(), time.process_time()
        result = self.explain_pod(self.cluster, ns, name, whatif="whatif" in self.include)
        self.render(self.answer(result, self.include))
        self.cpu.append(time.process_time() - c)
        return time.perf_counter() - t


def time_warm(explain: Explainer, samples: int, profile: str) -> None:
    explain(0)  # first use of the config, registry
    prof = cProfile.Profile(time.process_time) if profile else None
    if prof:
        prof.enable()
    explain.cpu.clear()
    times = [explain(i) for i in range(1, samples + 1)]
    if prof:
        prof.disable()
        prof.dump_stats(profile)
    cpu = explain.cpu
    print(
        f"warm: {len(times)} explanations, p50 {pct(times, 0.5) * MS:.0f} ms, "
        f"p95 {pct(times, 0.95) * MS:.0f} ms, max {max(times) * MS:.0f} ms; "
        f"CPU p50 {pct(cpu, 0.5) * MS:.0f} ms, p95 {pct(cpu, 0.95) * MS:.0f} ms",
        flush=True,
    )


def time_rendering(explain: Explainer, pod: tuple[str, str]) -> None:
    """The answer's size, and what rendering it as JSON costs."""
    from rest_framework.renderers import JSONRenderer

    from dashboard.api.renderers import FastJSONRenderer
    from dashboard.explain import live

    whatif = "whatif" in explain.include
    answer = explain.answer(live.explain_pod(explain.cluster, *pod, whatif=whatif), explain.include)
    for label, renderer in (("DRF json", JSONRenderer()), ("orjson", FastJSONRenderer())):
        c = time.process_time()
        for _ in range(5):
            size = len(renderer.render(answer))
        print(f"render ({label}): {size:,} bytes, CPU {(time.process_time() - c) / 5 * MS:.1f} ms")


def time_after_batches(explain: Explainer, args: argparse.Namespace) -> None:
    """Rewrite --batch running pods through the mirror's writer, then time the next explanation."""
    from dashboard.cluster.kinds import KINDS
    from dashboard.cluster.models import Pod
    from dashboard.cluster.services.cluster_state import Changes, apply_changes
    from dashboard.explain import live

    cluster = explain.cluster
    spec = next(s for s in KINDS if s.kind == "Pod")
    running = list(
        Pod.objects.filter(cluster=cluster)
        .exclude(node_name="")
        .order_by("id")[: args.batch * args.batches]
    )
    after, refresh = [], []
    explain.cpu.clear()
    bprof = cProfile.Profile(time.process_time) if args.profile_batches else None
    for b in range(args.batches):
        changes = Changes()
        for row in running[b * args.batch : (b + 1) * args.batch]:
            meta = row.obj.setdefault("metadata", {})
            meta.setdefault("annotations", {})["bench/touched"] = str(time.time())
            rv = int(row.resource_version or 0) + 1
            row.resource_version = meta["resourceVersion"] = str(rv)
            changes.upsert(spec, row)
        apply_changes(cluster.pk, changes)
        time.sleep(live.conf.explain_recheck_seconds())  # the next request checks
        if bprof:
            bprof.enable()
        after.append(explain(b))
        if bprof:
            bprof.disable()
        refresh.append(live.warm_stats(cluster).get("lastRefresh", {}).get("seconds", 0.0))
    if bprof:
        bprof.dump_stats(args.profile_batches)
    print(
        f"after a batch of {args.batch} pod updates: {len(after)} explanations, "
        f"p50 {pct(after, 0.5) * MS:.0f} ms, p95 {pct(after, 0.95) * MS:.0f} ms, "
        f"max {max(after) * MS:.0f} ms (refresh p50 {pct(refresh, 0.5) * MS:.0f} ms); "
        f"CPU p50 {pct(explain.cpu, 0.5) * MS:.0f} ms, p95 {pct(explain.cpu, 0.95) * MS:.0f} ms"
    )


def main() -> int:
    args = parse_args()

    import django

    django.setup()
    from django.core.management import call_command

    from dashboard.cluster.models import Cluster, Pod
    from dashboard.explain import live
    from dashboard.explain.answer import parse_include

    call_command("migrate", verbosity=0)
    cluster = Cluster.objects.get(name=args.cluster)
    pending = list(
        Pod.objects.filter(cluster=cluster, node_name="")
        .order_by("id")
        .values_list("namespace", "name")[:500]
    )
    assert pending, "no pending pod to explain"
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    t0 = time.perf_counter()
    live.warm_cluster(cluster)
    print(f"warm copy built in {time.perf_counter() - t0:.1f} s: {live.warm_stats(cluster)}")
    explain = Explainer(cluster, pending, parse_include([args.include]))
    time_warm(explain, args.samples, args.profile)
    time_rendering(explain, pending[0])
    if args.batches:
        time_after_batches(explain, args)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
