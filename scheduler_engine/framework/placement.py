"""Placements of a pod group (upstream ``fwk.Placement``, v1.36 alpha).

A placement is a set of nodes a pod-group cycle may use (one topology domain,
say).  PlacementGenerate plugins cut the nodes into placements; each is tried
in turn and PlacementScore plugins pick the best one that fits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..objects import Pod
    from .node_info import NodeInfo

__all__ = [
    "PLACEMENT_MAX_SCORE",
    "PLACEMENT_MIN_SCORE",
    "Placement",
    "PodGroupAssignments",
    "PodGroupInfo",
]

PLACEMENT_MIN_SCORE = 0
PLACEMENT_MAX_SCORE = 100


@dataclass(frozen=True, slots=True)
class PodGroupInfo:
    namespace: str
    name: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(eq=False, slots=True)
class Placement:
    name: str
    nodes: list[NodeInfo]


@dataclass(eq=False, slots=True)
class PodGroupAssignments:
    placement: Placement
    # (pod, node name) for every member the placement's simulation placed
    assignments: list[tuple[Pod, str]] = field(default_factory=list)
