"""GpuClusteringScore: Score (the FGD simulator's ``gpu_clustering_score.go``).

Pods are grouped by GPU shape (share-gpu, 1-gpu, 2-gpu, ...).  With ``b =
25 * (8000 - free GPU share) / 8000``: a node running only pods of the pod's
shape scores ``75 + b``, one running that shape among others ``50 + b``, an
idle node ``25 + b``, a node running only other shapes ``b``; pods asking no
GPU score 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...framework.node_info import NodeInfo
from ...objects import Pod
from ..gpushare.resources import GpuRequest, gpu_request
from ..gpushare.table import GpuTable
from .common import MAX_NODE_SCORE, MAX_SPEC_GPU, MIN_NODE_SCORE, TableScore

__all__ = ["NAME", "PLUGIN", "GpuClusteringScore", "clustering_scores", "new"]

NAME = "GpuClusteringScore"


def clustering_scores(left: np.ndarray, shapes: np.ndarray, req: GpuRequest) -> np.ndarray:
    m = len(left)
    if req.milli <= 0:
        return np.full(m, MIN_NODE_SCORE, dtype=np.int64)
    col = 0 if req.shared else min(req.count, shapes.shape[1] - 1)
    base = MAX_NODE_SCORE // 4 * (MAX_SPEC_GPU - left.sum(axis=1)) // MAX_SPEC_GPU
    kinds = (shapes > 0).sum(axis=1)
    has = shapes[:, col] > 0
    q = MAX_NODE_SCORE // 4
    bonus = np.where(
        has,
        np.where(kinds == 1, MAX_NODE_SCORE * 3 // 4, MAX_NODE_SCORE * 2 // 4),
        np.where(kinds == 0, q, 0),
    )
    return (base + bonus).astype(np.int64)


class GpuClusteringScore(TableScore):
    NAME = NAME

    def scores(
        self, table: GpuTable, rows: np.ndarray, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> np.ndarray:
        return clustering_scores(table.left[rows], table.shapes[rows], gpu_request(pod))


PLUGIN = GpuClusteringScore
new = GpuClusteringScore.new
