"""RandomScore: PreScore and Score (the FGD simulator's ``random_score.go``).

PreScore draws one of the feasible nodes uniformly from the run's seeded RNG;
Score gives it 100 and every other node 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...framework.cycle_state import CycleState, missing_state
from ...framework.node_info import NodeInfo
from ...framework.status import Status
from ...objects import Pod
from ..helper import HandlePlugin
from .common import MAX_NODE_SCORE, MIN_NODE_SCORE

__all__ = ["NAME", "PLUGIN", "RandomScore", "new"]

NAME = "RandomScore"
_KEY = "PreScore" + NAME


class RandomScore(HandlePlugin):
    NAME = NAME

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if not nodes:
            return None
        state.write(_KEY, nodes[self.handle.rng.randrange(len(nodes))].name)  # type: ignore[union-attr]
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        chosen = state.get(_KEY)
        if chosen is None:
            return missing_state(_KEY, "reading")
        return MAX_NODE_SCORE if node_info.name == chosen else MIN_NODE_SCORE

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        chosen = state.get(_KEY)
        if chosen is None:
            raise KeyError(f'reading "{_KEY}" from cycleState: not found')
        return np.fromiter(
            (MAX_NODE_SCORE if ni.name == chosen else MIN_NODE_SCORE for ni in nodes),
            dtype=np.int64,
            count=len(nodes),
        )


PLUGIN = RandomScore
new = RandomScore.new
