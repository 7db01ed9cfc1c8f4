"""PodGroupPodsCount: prefer the placement that places the most members (upstream v1.36 alpha).

A PlacementScore plugin (``TopologyAwareWorkloadScheduling`` gate): the
group's scheduled pods plus the members the placement's simulation placed,
normalised so that the best placement scores 100.
"""

from __future__ import annotations

from ..framework.cycle_state import CycleState
from ..framework.placement import (
    PLACEMENT_MAX_SCORE,
    PLACEMENT_MIN_SCORE,
    PodGroupAssignments,
    PodGroupInfo,
)
from ..framework.status import Code, Status
from .helper import HandlePlugin, pod_group_state

__all__ = ["NAME", "PLUGIN", "PodGroupPodsCount", "new"]

NAME = "PodGroupPodsCount"


class PodGroupPodsCount(HandlePlugin):
    NAME = NAME

    def score_placement(
        self, state: CycleState, group: PodGroupInfo, assignments: PodGroupAssignments
    ) -> tuple[int, Status | None]:
        st = pod_group_state(self.handle, group.key)
        if isinstance(st, Status):
            return 0, st
        return st.scheduled_pods_count() + len(assignments.assignments), None

    def normalize_placement_score(
        self, state: CycleState, group: PodGroupInfo, scores: list[int]
    ) -> Status | None:
        top = max(scores, default=0)
        if top == 0:
            return Status(
                Code.ERROR, "no pods from pod group are assigned to any of the candidate placements"
            )
        for i, s in enumerate(scores):
            scores[i] = PLACEMENT_MIN_SCORE + s * (PLACEMENT_MAX_SCORE - PLACEMENT_MIN_SCORE) // top
        return None


PLUGIN = PodGroupPodsCount
new = PodGroupPodsCount.new
