"""BestFitScore: Score and NormalizeScore (the FGD simulator's ``best_fit_score.go``).

Raw score ``int((1 - sum_i w_i (free_i - request_i) / maxSpec_i) * 100)`` over CPU
and GPU (weights 0.5 each, maxSpec 128 CPUs and 8 GPUs): the less a node has
left after the pod, the higher; then min-max normalised to [0, 100].
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interfaces import NodeScore
from ...framework.node_info import NodeInfo
from ...framework.status import Code, Status
from ...objects import Pod
from ..gpushare.resources import gpu_request
from ..gpushare.table import GpuTable
from .common import MAX_NODE_SCORE, MAX_SPEC_CPU, MAX_SPEC_GPU, TableScore, min_max_normalize

__all__ = ["NAME", "PLUGIN", "BestFitScore", "best_fit_scores", "new"]

NAME = "BestFitScore"
_WEIGHTS = (0.5, 0.5)


def best_fit_scores(
    cpu_left: np.ndarray, gpu_left_total: np.ndarray, cpu: int, gpu_total: int
) -> np.ndarray:
    """Raw scores; -1 where the node lacks room (the simulator's error case)."""
    s = np.zeros(len(cpu_left), dtype=np.float64)
    s = s + (cpu_left - cpu).astype(np.float64) / float(MAX_SPEC_CPU) * _WEIGHTS[0]
    s = s + (gpu_left_total - gpu_total).astype(np.float64) / float(MAX_SPEC_GPU) * _WEIGHTS[1]
    out = np.trunc((1.0 - s) * float(MAX_NODE_SCORE)).astype(np.int64)
    out[(cpu_left < cpu) | (gpu_left_total < gpu_total)] = -1
    return out


class BestFitScore(TableScore):
    NAME = NAME

    def scores(
        self, table: GpuTable, rows: np.ndarray, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> np.ndarray:
        req = gpu_request(pod)
        out = best_fit_scores(
            table.cpu_left[rows], table.left[rows].sum(axis=1), pod.non0_cpu, req.total
        )
        if len(out) and int(out.min()) < 0:
            bad = nodes[int(np.flatnonzero(out < 0)[0])].name
            raise ValueError(f"the score between node({bad}) and pod({pod.key}) is negative")
        return out

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        try:
            return int(self.score_batch(state, pod, [node_info])[0])
        except ValueError as exc:
            return Status(Code.ERROR, str(exc))

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        norm = min_max_normalize(np.array([s.score for s in scores], dtype=np.int64))
        for s, v in zip(scores, norm.tolist(), strict=True):
            s.score = v

    def normalize_score_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        return min_max_normalize(scores)


PLUGIN = BestFitScore
new = BestFitScore.new
