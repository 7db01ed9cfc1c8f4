"""GpuPackingScore: Score (the FGD simulator's ``gpu_packing_score.go``).

From high to low: a share that fits on an already shared GPU scores
``100 - freeShare%/10`` (at least 50); a pod that must use fully free GPUs on
a node already in use ``50 - GPUs used`` (at least 33); a node whose GPUs are
all free ``33 - free GPUs`` (at least the number of free GPUs).  Pods asking
no GPU score 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...framework.node_info import NodeInfo
from ...objects import Pod
from ..gpushare.resources import MILLI, GpuRequest, gpu_request
from ..gpushare.table import GpuTable
from .common import MAX_NODE_SCORE, MIN_NODE_SCORE, TableScore

__all__ = ["NAME", "PLUGIN", "GpuPackingScore", "new", "packing_scores"]

NAME = "GpuPackingScore"


def packing_scores(left: np.ndarray, count: np.ndarray, req: GpuRequest) -> np.ndarray:
    m = len(count)
    if req.milli <= 0:
        return np.full(m, MIN_NODE_SCORE, dtype=np.int64)
    free = (left == MILLI).sum(axis=1)
    case3 = np.maximum(MAX_NODE_SCORE // 3 - free, free)
    if req.shared:
        # the GPU with the least free share that fits (ascending order, first on ties)
        fit = np.where(left >= req.milli, left, MILLI + 1)
        chosen = fit.min(axis=1) if left.shape[1] else np.full(m, MILLI + 1)
        whole = chosen == MILLI
        ratio = chosen * 100 // MILLI
        case1 = np.maximum(MAX_NODE_SCORE - ratio // 10, MAX_NODE_SCORE // 2)
        case2 = np.full(m, max(MAX_NODE_SCORE // 2 - 1, MAX_NODE_SCORE // 3))
        other = np.where(whole, case2, case1)
    else:
        other = np.full(m, max(MAX_NODE_SCORE // 2 - req.count, MAX_NODE_SCORE // 3))
    return np.where(free == count, case3, other).astype(np.int64)


class GpuPackingScore(TableScore):
    NAME = NAME

    def scores(
        self, table: GpuTable, rows: np.ndarray, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> np.ndarray:
        return packing_scores(table.left[rows], table.count[rows], gpu_request(pod))


PLUGIN = GpuPackingScore
new = GpuPackingScore.new
