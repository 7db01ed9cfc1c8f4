"""The FGD simulator's inflate procedure: which pods arrive, in which order.

As ``SortClusterPods`` and ``TunePodsByNodeTotalResource`` do with
``--shuffle-pod=true -tune R -tuneseed S``: the trace's pods sorted by name
and shuffled with the seeded RNG; then, while the GPU share they request
stays within ``R`` x the cluster's GPU capacity, pods drawn with replacement
from the trace (sorted by name) are appended as copies named
``NAME-tuned-I``.  The loop stops at the first draw that would pass the
target, comparing the share *per GPU* of the drawn pod, as the simulator's
``tuneUpPods`` does.  A trace that already asks more loses pods drawn at
random until it fits.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence

from ..objects import Pod
from ..plugins.gpushare.resources import gpu_request

__all__ = ["clone_pod", "inflate_workload"]


def clone_pod(pod: Pod, name: str | None = None) -> Pod:
    """An independent copy of a parsed pod (optionally renamed), to schedule."""
    p = copy.copy(pod)
    p.cache = dict(pod.cache)
    if name is not None and name != pod.name:
        raw = dict(pod.raw)
        meta = dict(raw.get("metadata") or {})
        meta["name"] = name
        meta.pop("uid", None)
        raw["metadata"] = meta
        p.raw = raw
        p.name = name
        p.key = f"{p.namespace}/{name}"
        p.uid = p.key
    return p


def inflate_workload(
    pods: Sequence[Pod], capacity_milli: int, ratio: float, rng: random.Random
) -> list[Pod]:
    by_name = sorted(pods, key=lambda p: p.name)
    order = list(by_name)
    rng.shuffle(order)
    if ratio <= 0 or not by_name:
        return [clone_pod(p) for p in order]
    total = sum(gpu_request(p).total for p in order)
    target = ratio * float(capacity_milli)
    if total > target:
        while total > target and order:
            gone = order.pop(rng.randrange(len(order)))
            total -= gpu_request(gone).total
        return [clone_pod(p) for p in order]
    out = [clone_pod(p) for p in order]
    if float(total) == target or not any(gpu_request(p).milli > 0 for p in by_name):
        return out
    i = 0
    while True:
        src = by_name[rng.randrange(len(by_name))]
        req = gpu_request(src)
        if float(total + req.milli) > target:
            break
        total += req.total
        out.append(clone_pod(src, f"{src.name}-tuned-{i}"))
        i += 1
    return out
