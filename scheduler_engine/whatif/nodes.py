"""One more node, shaped like the most similar existing one (kind ``node``).

The template is an existing node that offers, when empty, every resource
the pod requests and rejects it only for what its running pods use: a copy
of it, empty, with a new name. The copy is verified in a snapshot of the
cluster with the node added, by a framework of the same profile; a node
lacking a resource the pod needs is never offered.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable
from typing import Any

from ..errors import InputError
from ..framework.build import new_framework
from ..framework.handle import SimulationContext
from ..framework.node_info import NodeInfo
from ..framework.snapshot import Snapshot
from ..objects import Node, parse_node
from .fixes import Candidate, Fix, WhatIf
from .nearest import FIT, Gap
from .probe import Probe

__all__ = ["node_candidates", "node_template"]

HOSTNAME = "kubernetes.io/hostname"
NODE_COST = 10.0


def node_template(like: Node, name: str) -> dict[str, Any]:
    """An empty node shaped like ``like``: labels, taints, capacity, allocatable, conditions."""
    raw = like.raw
    meta = raw.get("metadata") or {}
    labels = dict(meta.get("labels") or {})
    if HOSTNAME in labels:
        labels[HOSTNAME] = name
    spec = {k: v for k, v in (raw.get("spec") or {}).items() if k in ("taints", "podCIDR")}
    status = raw.get("status") or {}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": copy.deepcopy(spec),
        "status": {
            k: copy.deepcopy(status[k])
            for k in ("capacity", "allocatable", "conditions", "nodeInfo")
            if k in status
        },
    }


def _offers_everything(ctx: WhatIf, g: Gap) -> bool:
    """The node, empty, holds every resource the pod requests."""
    req = ctx.pod.requests
    alloc = g.node_info.node.allocatable
    if req.milli_cpu > alloc.milli_cpu or req.memory > alloc.memory:
        return False
    if req.ephemeral_storage > alloc.ephemeral_storage:
        return False
    return all(q <= alloc.scalar.get(r, 0) for r, q in req.scalar.items() if q > 0)


def _fits_on_added(ctx: WhatIf, node: Node) -> bool:
    if ctx.registry is None:
        return False
    base = ctx.probe.snapshot
    added = NodeInfo(node, len(base.node_info_list))
    snap = Snapshot.from_node_infos([*base.node_info_list, added], base.namespace_labels)
    old = ctx.probe.fwk.handle.ctx
    sim = SimulationContext(
        cluster=old.cluster,
        snapshot=snap,
        rng=random.Random(0),
        clock=old.clock,
        parallelism=old.parallelism,
        feature_gates=dict(old.feature_gates),
    )
    probe = Probe(new_framework(ctx.probe.fwk.profile, ctx.registry, sim, batch=False))
    return probe.fits(probe.prepare(ctx.pod), added)


def node_candidates(ctx: WhatIf) -> Iterable[Candidate]:
    """A copy of the closest node that rejects the pod only for what is running on it."""
    names = {ni.name for ni in ctx.probe.snapshot.node_info_list}
    for g in ctx.only(FIT):
        if g.lacking or not _offers_everything(ctx, g):
            continue
        name = next(
            f"{g.node}-copy-{i}" for i in range(1, 10**6) if f"{g.node}-copy-{i}" not in names
        )
        template = node_template(g.node_info.node, name)
        try:
            node = parse_node(template, source="fix")
        except InputError:
            continue
        fix = Fix(
            "node",
            f"Add one node shaped like {g.node} (same labels, taints and allocatable): "
            f"the pod fits on it.",
            template,
            NODE_COST,
            name,
            {"like": g.node},
        )
        yield Candidate(fix, lambda n=node: _fits_on_added(ctx, n))
        return
