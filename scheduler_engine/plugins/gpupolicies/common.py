"""What the six GPU policies share: node rows of the GPU table, the pod's shape, constants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.node_info import NodeInfo
from ...framework.status import Status
from ...objects import Pod
from ..gpushare.resources import GpuRequest, gpu_request
from ..gpushare.table import GpuTable
from ..helper import HandlePlugin
from .fragmentation import PodShape

__all__ = [
    "MAX_NODE_SCORE",
    "MAX_SPEC_CPU",
    "MAX_SPEC_GPU",
    "MIN_NODE_SCORE",
    "TableScore",
    "min_max_normalize",
    "pod_shape",
    "rows_of",
]

MAX_NODE_SCORE = 100
MIN_NODE_SCORE = 0
# the largest machine of the trace's cluster: normalises CPU and GPU (simulator MaxSpecCpu/Gpu)
MAX_SPEC_CPU = 128000
MAX_SPEC_GPU = 8000


def rows_of(handle: Any, nodes: Sequence[NodeInfo]) -> tuple[GpuTable, np.ndarray]:
    snap = handle.snapshot() if handle is not None else None
    return GpuTable.for_nodes(snap, nodes)


def pod_shape(pod: Pod, req: GpuRequest | None = None) -> PodShape:
    req = gpu_request(pod) if req is None else req
    return PodShape(pod.non0_cpu, req.milli, req.count, "|".join(req.models))


def min_max_normalize(scores: np.ndarray) -> np.ndarray:
    """The simulator's NormalizeScore: (s - lowest) * 100 / (highest - lowest), 0 when flat."""
    if len(scores) == 0:
        return scores
    hi, lo = int(scores.max()), int(scores.min())
    if hi == lo:
        return np.full_like(scores, MIN_NODE_SCORE)
    return (scores - lo) * (MAX_NODE_SCORE - MIN_NODE_SCORE) // (hi - lo) + MIN_NODE_SCORE


class TableScore(HandlePlugin):
    """A Score plugin computed over the GPU table: a node's score is its row of the batch."""

    NAME = ""

    def scores(
        self, table: GpuTable, rows: np.ndarray, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> np.ndarray:
        """The raw score of each node (``rows`` of ``table``)."""
        raise NotImplementedError

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        table, rows = rows_of(self.handle, nodes)
        return self.scores(table, rows, pod, nodes)

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        return int(self.score_batch(state, pod, [node_info])[0])
