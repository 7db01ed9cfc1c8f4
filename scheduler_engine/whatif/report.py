"""What would make an unschedulable pod fit: its nearest nodes and verified changes.

:func:`what_if` is what the simulation calls for each pod left
unschedulable when it explains. :data:`PRODUCERS` is the one list of
change producers that :func:`~.fixes.gather` verifies and ranks.
"""

from __future__ import annotations

from typing import Any

from ..cluster import ClusterState
from ..framework.registry import Registry
from ..framework.runtime import Framework
from ..objects import Pod
from .fixes import (
    Producer,
    WhatIf,
    affinity_candidates,
    gather,
    request_candidates,
    spread_candidates,
    toleration_candidates,
)
from .move_fixes import move_candidates
from .moves import Scheduling
from .nearest import gaps, nearest
from .nodes import node_candidates
from .preempt import preemption_candidates, priority_candidates
from .probe import Probe

__all__ = ["PRODUCERS", "what_if"]

PRODUCERS: tuple[Producer, ...] = (
    toleration_candidates,
    request_candidates,
    affinity_candidates,
    spread_candidates,
    preemption_candidates,
    priority_candidates,
    node_candidates,
    move_candidates,
)


def what_if(
    fwk: Framework,
    pod: Pod,
    cluster: ClusterState,
    registry: Registry | None = None,
    scheduling: Scheduling | None = None,
) -> dict[str, Any]:
    """``{"nearest": [...], "fixes": [...]}`` for ``pod`` on the framework's snapshot."""
    probe = Probe(fwk)
    prep = probe.prepare(pod)
    found = gaps(probe, prep)
    ctx = WhatIf(probe, prep, found, cluster, registry, scheduling)
    return {
        "nearest": nearest(found),
        "fixes": [f.to_dict() for f in gather(ctx, PRODUCERS)],
    }
