"""Reproduce the FGD paper's result: six policies x ten seeds on the openb default trace.

    nice .venv/bin/python benchmarks/replay_reproduction.py --jobs 2 \
        --data /work/shared/data/openb --out /tmp/replay-repro.json
    .venv/bin/python benchmarks/replay_reproduction.py --report /tmp/replay-repro.json \
        --svg docs/images/replay_unallocated.svg

Each run is ``python -m scheduler_engine replay --policy P --seed S`` (inflate
1.3, rank tie-break) in-process; runs are spread over ``--jobs`` processes.
The results file keeps each run's summary and curve; ``--report`` prints the
table (median unallocated GPU % at 100 % arrival, with the published medians)
and draws the median curve with its interquartile band as an SVG.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

POLICIES = ["random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"]
LABELS = {
    "random": "Random",
    "dot-product": "Dot-product",
    "gpu-clustering": "GPU Clustering",
    "gpu-packing": "GPU Packing",
    "best-fit": "Best-fit",
    "fgd": "FGD",
}
# the simulator's published medians (hkust-adsl/kubernetes-scheduler-simulator, issue 12)
PUBLISHED = {
    "random": 13.75,
    "dot-product": 9.44,
    "gpu-clustering": 8.42,
    "gpu-packing": 8.19,
    "best-fit": 7.09,
    "fgd": 4.77,
}
SEEDS = list(range(42, 52))
COLORS = {
    "random": "#8c564b",
    "dot-product": "#9467bd",
    "gpu-clustering": "#d62728",
    "gpu-packing": "#2ca02c",
    "best-fit": "#ff7f0e",
    "fgd": "#1f77b4",
}


def run_one(data: str, trace: str, policy: str, seed: int) -> dict:
    from scheduler_engine.config import load_config
    from scheduler_engine.plugin_loader import build_registry
    from scheduler_engine.replay import (
        ReplayOptions,
        policy_config_doc,
        read_trace,
        replay,
        trace_typical_pods,
        with_typical_pods,
    )

    tr = read_trace(f"{data}/openb_node_list_gpu_node.csv", f"{data}/openb_pod_list_{trace}.csv")
    registry = build_registry()
    typical = trace_typical_pods(tr)
    config = with_typical_pods(
        load_config(policy_config_doc(policy), **registry.config_kwargs()), typical
    )
    t0 = time.process_time()
    doc = replay(
        tr,
        config,
        ReplayOptions("inflate", 1.3, seed, "rank", policy),
        registry=registry,
        typical=typical,
    )
    return {
        "policy": policy,
        "seed": seed,
        "cpuSeconds": round(time.process_time() - t0, 2),
        "summary": doc["summary"],
        "curve": doc["curve"],
    }


def collect(args: argparse.Namespace) -> None:
    runs = [(p, s) for s in SEEDS for p in POLICIES]
    out: list[dict] = []
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(run_one, args.data, args.trace, p, s) for p, s in runs]
        for f in as_completed(futs):
            r = f.result()
            out.append(r)
            print(
                f"{len(out)}/{len(runs)} {r['policy']} seed {r['seed']}: "
                f"{r['summary']['unallocatedGpuPercentAt100']} "
                f"({r['summary']['wallSeconds']} s)",
                flush=True,
            )
            Path(args.out).write_text(json.dumps({"trace": args.trace, "runs": out}))
    wall = time.perf_counter() - t0
    Path(args.out).write_text(
        json.dumps(
            {"trace": args.trace, "jobs": args.jobs, "wallSeconds": round(wall, 1), "runs": out}
        )
    )
    print(f"{len(out)} runs in {wall:.0f} s with {args.jobs} processes")


def _quantiles(values: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], statistics.median(values), q[2]


def report(args: argparse.Namespace) -> None:
    data = json.loads(Path(args.report).read_text())
    runs = data["runs"]
    med: dict[str, float] = {}
    print("| policy | Schedlab median (IQR) | published | difference |")
    print("| --- | ---: | ---: | ---: |")
    for p in POLICIES:
        vals = [r["summary"]["unallocatedGpuPercentAt100"] for r in runs if r["policy"] == p]
        if not vals:
            continue
        lo, m, hi = _quantiles(vals) if len(vals) > 1 else (vals[0], vals[0], vals[0])
        med[p] = m
        print(
            f"| {LABELS[p]} | {m:.2f} ({lo:.2f}-{hi:.2f}) | {PUBLISHED[p]:.2f} | "
            f"{m - PUBLISHED[p]:+.2f} |"
        )
    if "fgd" in med and "dot-product" in med:
        ours = 100 * (1 - med["fgd"] / med["dot-product"])
        pub = 100 * (1 - PUBLISHED["fgd"] / PUBLISHED["dot-product"])
        print(
            f"\nFGD leaves {ours:.1f}% fewer GPUs unallocated than Dot-product (published {pub:.1f}%)"
        )
    secs = [r["summary"]["wallSeconds"] for r in runs]
    print(
        f"{len(runs)} runs; per run {min(secs):.1f}-{max(secs):.1f} s; total {data.get('wallSeconds')} s"
    )
    if args.svg:
        Path(args.svg).write_text(svg(runs))
        print(f"curve: {args.svg}")


def svg(runs: list[dict], x0: int = 80, x1: int = 130, y1: float = 25.0) -> str:
    """Median unallocated GPU % against arrived workload, with the interquartile band."""
    w, h, ml, mr, mt, mb = 760, 380, 60, 150, 20, 50
    pw, ph = w - ml - mr, h - mt - mb

    def sx(x: float) -> float:
        return ml + (x - x0) / (x1 - x0) * pw

    def sy(y: float) -> float:
        return mt + ph - min(max(y, 0.0), y1) / y1 * ph

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
    ]
    for y in range(0, int(y1) + 1, 5):
        parts.append(
            f'<line x1="{ml}" x2="{ml + pw}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" stroke="#ddd"/>'
        )
        parts.append(f'<text x="{ml - 8}" y="{sy(y) + 4:.1f}" text-anchor="end">{y}</text>')
    for x in range(x0, x1 + 1, 10):
        parts.append(
            f'<line x1="{sx(x):.1f}" x2="{sx(x):.1f}" y1="{mt}" y2="{mt + ph}" stroke="#ddd"/>'
        )
        parts.append(f'<text x="{sx(x):.1f}" y="{mt + ph + 18}" text-anchor="middle">{x}</text>')
    parts.append(
        f'<text x="{ml + pw / 2}" y="{h - 10}" text-anchor="middle">'
        "Arrived workload (% of cluster GPU capacity)</text>"
    )
    parts.append(
        f'<text x="16" y="{mt + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 16 {mt + ph / 2})">Unallocated GPU (%)</text>'
    )
    parts.append(
        f'<line x1="{sx(x0):.1f}" y1="{sy(100 - x0):.1f}" x2="{sx(100):.1f}" y2="{sy(0):.1f}" '
        'stroke="grey" stroke-dasharray="3,3"/>'
    )
    for i, p in enumerate(POLICIES):
        by: dict[int, list[float]] = {}
        for r in runs:
            if r["policy"] != p:
                continue
            for pt in r["curve"]:
                if x0 <= pt["arrivedGpuPercent"] <= x1:
                    by.setdefault(pt["arrivedGpuPercent"], []).append(pt["unallocatedGpuPercent"])
        xs = sorted(x for x in by if len(by[x]) >= 2)
        if not xs:
            continue
        q = {x: _quantiles(by[x]) for x in xs}
        band = [f"{sx(x):.1f},{sy(q[x][2]):.1f}" for x in xs] + [
            f"{sx(x):.1f},{sy(q[x][0]):.1f}" for x in reversed(xs)
        ]
        c = COLORS[p]
        parts.append(
            f'<polygon points="{" ".join(band)}" fill="{c}" fill-opacity="0.18" stroke="none"/>'
        )
        line = " ".join(f"{sx(x):.1f},{sy(q[x][1]):.1f}" for x in xs)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{c}" stroke-width="2"/>')
        ly = mt + 14 + 18 * i
        parts.append(
            f'<line x1="{ml + pw + 12}" x2="{ml + pw + 36}" y1="{ly}" y2="{ly}" stroke="{c}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{ml + pw + 42}" y="{ly + 4}">{LABELS[p]}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--data", default="/work/shared/data/openb", help="folder of the openb CSV files"
    )
    ap.add_argument("--trace", default="default", help="openb_pod_list_<TRACE>.csv (default)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="/tmp/replay-repro.json")
    ap.add_argument("--report", help="print the table from a results file")
    ap.add_argument("--svg", help="with --report: draw the curve here")
    args = ap.parse_args()
    if args.report:
        report(args)
    else:
        collect(args)


if __name__ == "__main__":
    main()
