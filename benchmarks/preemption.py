"""DefaultPreemption's dry run in explanations of pods that do not fit, engine only.

    .venv/bin/python benchmarks/preemption.py                       # 15,000 nodes, 10 pods
    .venv/bin/python benchmarks/preemption.py --nodes 1500 --pods 20
    .venv/bin/python benchmarks/preemption.py --plain               # the reference path
    .venv/bin/python benchmarks/preemption.py --compare             # both, alternating
    .venv/bin/python benchmarks/preemption.py --compare-record      # record kept / built, alternating

The mirror's fleet (``benchmarks/mirror_fleet.py``: ``--nodes`` nodes, nine
running GPU pods on each, priorities 0 to 3,000) is held as the web process
holds it (``WarmCluster``, frozen out of the collector); then the first
``--pods`` of the mirror's pending GPU pods (priority 2,000, on GPUs the running
pods already overcommit: each goes through preemption) are explained one after
another as the API does (``explain_pod`` without the what-if search), after
one unmeasured explanation (pod ``i`` with seed ``i``, so each dry run starts
at another offset). Prints each explanation's CPU time, p50 / p95, the
load average, and a digest of every answer (all of it but the summary's
timings: and every dry run's candidates with their victims and the statuses of the
nodes that are not), which
must be the same with and without ``--plain`` (``DefaultPreemption.fast_dry_run``
off: the dry run exactly as upstream words it). ``--compare`` explains each pod
both ways, alternating which goes first, and fails when the digests differ;
``--compare-record`` does the same with the filter record kept until read
(``Recorder.LAZY``, the default) and built during the pass (``--eager-record``).
Instructions of the explanations alone (the second of the two dumps):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --dump-before=getppid \
        --callgrind-out-file=/tmp/pre.cg .venv/bin/python benchmarks/preemption.py --nodes 1500 --pods 4
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.mirror_fleet import make_node, make_pod  # noqa: E402
from scheduler_engine import default_config  # noqa: E402
from scheduler_engine.framework.recorder import Recorder  # noqa: E402
from scheduler_engine.plugins.defaultpreemption import DefaultPreemption as Preemption  # noqa: E402
from scheduler_engine.preemption import Evaluator  # noqa: E402
from scheduler_engine.warm_cluster import WarmCluster  # noqa: E402

# what an answer's summary times (left out of the digest)
TIMED = ("seconds", "podsPerSecond")
PATH = {False: "plain", True: "fast"}
RECORD = {False: "eager record", True: "kept record"}


def digest_dry_runs(digests: dict[bool, hashlib._Hash], path: Callable[[], bool]) -> None:
    """Feed every dry run's candidates (node, victims, PDB violations) and node statuses
    to the digest of the path it ran on (``path()``)."""
    plain = Evaluator.dry_run_preemption

    def dry_run(self: Evaluator, *args: object) -> tuple:
        out = plain(self, *args)
        candidates, statuses, errors = out
        seen = [
            (c.name, [v.key for v in c.victims.pods], c.victims.num_pdb_violations)
            for c in candidates
        ]
        said = sorted((name, st.code, st.message()) for name, st in statuses.statuses.items())
        digests[path()].update(json.dumps([seen, said, errors]).encode())
        return out

    Evaluator.dry_run_preemption = dry_run  # type: ignore[method-assign]


def p50_p95(cpu: list[float]) -> str:
    ms = sorted(x * 1000 for x in cpu)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"CPU p50 {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, total {sum(ms) / 1000:.2f} s"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=15000)
    ap.add_argument("--pods", type=int, default=10, help="pending pods explained")
    ap.add_argument("--plain", action="store_true", help="the dry run without its fast path")
    ap.add_argument("--compare", action="store_true", help="each pod both ways, alternating")
    ap.add_argument("--eager-record", action="store_true", help="filters recorded during the pass")
    ap.add_argument("--compare-record", action="store_true", help="kept and eager, alternating")
    args = ap.parse_args()
    paths = [False, True] if args.compare or args.compare_record else [not args.plain]
    label = RECORD if args.compare_record else PATH
    Recorder.LAZY = not args.eager_record
    print(f"nodes {args.nodes}, load average {os.getloadavg()[0]:.1f}", flush=True)
    t0 = time.perf_counter()
    running = (make_pod(i, args.nodes) for i in range(args.nodes * 10) if i % 10)
    warm = WarmCluster([*map(make_node, range(args.nodes)), *running], source="bench")
    print(f"warm state built in {time.perf_counter() - t0:.1f} s", flush=True)
    gc.collect()
    gc.freeze()
    config = default_config()
    # the mirror's pending pods 10k for odd k have priority 2,000 (even k: 0, preempting nobody)
    pending = [make_pod(10 * k, args.nodes, node=False) for k in range(1, 2 * args.pods + 3, 2)]
    warm.explain_pod(pending[0], config, whatif=False)
    cpu: dict[bool, list[float]] = {fast: [] for fast in paths}
    digests = {fast: hashlib.sha256() for fast in paths}
    if args.compare_record:
        digest_dry_runs(digests, lambda: Recorder.LAZY)
    else:
        digest_dry_runs(digests, lambda: Preemption.fast_dry_run)
    # the measured part starts: `valgrind --tool=callgrind --dump-before=getppid` counts it apart
    os.getppid()
    for i, obj in enumerate(pending[1:], 1):
        for fast in paths if i % 2 else paths[::-1]:
            if args.compare_record:
                Recorder.LAZY = fast
                Preemption.fast_dry_run = not args.plain
            else:
                Preemption.fast_dry_run = fast
            c0 = time.process_time()
            answer = warm.explain_pod(obj, config, seed=i, whatif=False)
            cpu[fast].append(time.process_time() - c0)
            summary = {k: v for k, v in answer["summary"].items() if k not in TIMED}
            decided = {**answer, "summary": summary}
            digests[fast].update(json.dumps(decided, sort_keys=True, default=str).encode())
            print(
                f"  {answer['pod']} ({label[fast]}): {cpu[fast][-1] * 1000:.0f} ms CPU, "
                f"{answer['status']} on {answer.get('node')}, "
                f"{len(answer.get('victims') or ())} victims",
                flush=True,
            )
    for fast in paths:
        print(
            f"{label[fast]}: {len(cpu[fast])} explanations, {p50_p95(cpu[fast])}; "
            f"digest {digests[fast].hexdigest()[:16]}"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    if len(paths) == 2 and digests[False].digest() != digests[True].digest():
        print("the two paths answered differently")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
