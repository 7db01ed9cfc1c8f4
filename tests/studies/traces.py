"""Tiny traces the study tests make: GPU nodes and pods in Schedlab's JSON lines or openb CSV."""

from __future__ import annotations

import io
import random

from scheduler_engine.replay.trace import gpu_node_object, gpu_pod_object, write_jsonl


def shapes(nodes: int, pods: int, seed: int, gpus: bool = True) -> tuple[list[tuple], list[tuple]]:
    rng = random.Random(seed)
    ns = [
        (f"node-{i}", 32000, 262144, rng.choice([2, 4, 8]) if gpus else 0, "V100" if gpus else "")
        for i in range(nodes)
    ]
    ps = []
    for i in range(pods):
        whole = rng.random() < 0.5
        ps.append(
            (
                f"pod-{i}",
                rng.choice([1000, 2000, 4000]),
                rng.choice([2048, 8192]),
                rng.choice([1, 2]) if whole else 1,
                1000 if whole else rng.choice([250, 500]),
                "",
            )
        )
    return ns, ps


def jsonl_trace(nodes: int = 6, pods: int = 40, seed: int = 1, gpus: bool = True) -> str:
    ns, ps = shapes(nodes, pods, seed, gpus)
    out = io.StringIO()
    write_jsonl(
        [gpu_node_object(*n) for n in ns],
        [(gpu_pod_object(*p), float(i), None) for i, p in enumerate(ps)],
        out,
    )
    return out.getvalue()


def openb_trace(nodes: int = 4, pods: int = 20, seed: int = 2) -> tuple[str, str]:
    ns, ps = shapes(nodes, pods, seed)
    node_csv = "sn,cpu_milli,memory_mib,gpu,model\n" + "".join(
        f"{n},{c},{m},{g},{model}\n" for n, c, m, g, model in ns
    )
    pod_csv = (
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,creation_time,deletion_time\n"
        + "".join(
            f"{n},{c},{m},{g},{gm},{spec},{i},\n" for i, (n, c, m, g, gm, spec) in enumerate(ps)
        )
    )
    return node_csv, pod_csv
