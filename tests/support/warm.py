"""What the warm-state tests compare: a WarmCluster's node infos, and mirror-like pod batches."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from scheduler_engine.objects import Pod, Resource
from scheduler_engine.warm_cluster import WarmCluster

__all__ = ["mirror_batch", "node_state"]


def node_state(warm: WarmCluster) -> dict[str, Any]:
    """Each node info as the engine reads it: its pods (parsed, and as given) and its sums."""

    def res(r: Resource) -> tuple[Any, ...]:
        # a removed pod leaves its extended resources at 0, as upstream's NodeInfo does
        scalar = {k: v for k, v in r.scalar.items() if v}
        return (*(getattr(r, s) for s in Resource.__slots__ if s != "scalar"), scalar)

    def parsed(p: Pod) -> tuple[Any, ...]:
        fields = [getattr(p, s) for s in Pod.__slots__ if s not in ("raw", "cache", "requests")]
        return (*fields, res(p.requests), json.dumps(p.raw, sort_keys=True), p.cache)

    return {
        name: (
            sorted((p.key, parsed(p)) for p in ni.pods),
            sorted(p.key for p in ni.pods_with_affinity),
            sorted(p.key for p in ni.pods_with_required_anti_affinity),
            res(ni.requested),
            res(ni.non_zero_requested),
            sorted((ip, sorted(b)) for ip, b in ni.used_ports._ports.items()),
            ni.pvc_ref_counts,
        )
        for name, ni in warm._infos.items()
    }


def mirror_batch(
    rng: random.Random, objects: list[dict[str, Any]], nodes: list[str]
) -> list[dict[str, Any]]:
    """A batch of pod updates as a mirror sees them: mostly status and metadata churn."""
    running = [o for o in objects if o["kind"] == "Pod" and o["spec"].get("nodeName")]
    batch = []
    for o in rng.sample(running, min(len(running), rng.randint(1, 12))):
        new = copy.deepcopy(o)
        meta, status = new["metadata"], new.setdefault("status", {})
        what = rng.randrange(9)
        if what == 0:
            meta.setdefault("annotations", {})["touched"] = str(rng.random())
        elif what == 1:
            status["conditions"] = [{"type": "Ready", "status": rng.choice(["True", "False"])}]
        elif what == 2:
            meta["resourceVersion"] = str(rng.randrange(10**6))
        elif what == 3:
            meta.setdefault("labels", {})["app"] = rng.choice(["web", "db", "other"])
        elif what == 4:
            status["phase"] = rng.choice(["Succeeded", "Failed", "Running"])
        elif what == 5:
            status["startTime"] = f"2026-0{rng.randint(1, 9)}-01T00:00:00Z"
        elif what == 6:
            new["spec"]["nodeName"] = rng.choice(nodes)
        elif what == 7:
            c = new["spec"]["containers"][0]
            c["resources"] = {"requests": {"cpu": rng.choice(["100m", "1", "2"])}}
        else:
            meta["deletionTimestamp"] = "2026-09-01T00:00:00Z"
        batch.append(new)
    return batch
