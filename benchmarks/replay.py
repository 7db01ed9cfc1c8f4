"""How long one inflate replay of the openb default trace takes, per profile.

    .venv/bin/python benchmarks/replay.py --runs 5 --data /work/shared/data/openb

Runs ``replay`` in-process (inflate 1.3, seed 42 + run index) for the
default profile (with OpenGpuShare) and for ``--policy fgd``, and prints
the minimum and median wall time and CPU time of each.  CPU time is the
figure to quote on a shared machine: it is what one core spends whatever
else runs beside it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scheduler_engine import replay as rp
from scheduler_engine.config import load_config
from scheduler_engine.plugin_loader import build_registry


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", default="/work/shared/data/openb")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--profiles", default="default,fgd")
    args = ap.parse_args()
    trace = rp.read_trace(
        f"{args.data}/openb_node_list_gpu_node.csv", f"{args.data}/openb_pod_list_default.csv"
    )
    registry = build_registry()
    typical = rp.trace_typical_pods(trace)
    for name in args.profiles.split(","):
        policy = None if name == "default" else name
        doc = rp.policy_config_doc(policy) if policy else rp.default_config_doc()
        config = rp.with_typical_pods(load_config(doc, **registry.config_kwargs()), typical)
        walls, cpus, pods = [], [], 0
        for i in range(args.runs):
            opts = rp.ReplayOptions("inflate", 1.3, 42 + i, "rank" if policy else "random", policy)
            w0, c0 = time.perf_counter(), time.process_time()
            out = rp.replay(trace, config, opts, registry=registry, typical=typical)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
            pods = out["summary"]["pods"]
        print(
            f"{name}: {pods} pods; wall min {min(walls):.1f} s median {statistics.median(walls):.1f} s; "
            f"CPU min {min(cpus):.1f} s median {statistics.median(cpus):.1f} s ({args.runs} runs)",
            flush=True,
        )


if __name__ == "__main__":
    main()
