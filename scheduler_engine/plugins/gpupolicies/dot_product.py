"""DotProductScore: Score (the FGD simulator's ``dot_product_score.go``, Tetris' heuristic).

With ``dimExtMethod: merge`` and ``normMethod: max`` (how the simulator's
experiments configure it): node ``[free CPU, free GPU share]`` and pod
``[CPU, GPU share]``, both divided by ``[128 CPUs, 8 GPUs]``; the score is
``int(100 * (1 - dot / 2))``, so the node whose free resources align least
with the pod's request scores highest; 0 for a node without the CPU.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.interfaces import Handle
from ...framework.node_info import NodeInfo
from ...objects import Pod
from ..gpushare.resources import MILLI, gpu_request
from ..gpushare.table import GpuTable
from .common import MAX_NODE_SCORE, MAX_SPEC_CPU, MAX_SPEC_GPU, MIN_NODE_SCORE, TableScore

__all__ = ["DIM_EXT_METHODS", "NAME", "NORM_METHODS", "PLUGIN", "DotProductScore", "new"]

NAME = "DotProductScore"
DIM_EXT_METHODS = ("merge",)
NORM_METHODS = ("max", "node")


def dot_product_scores(
    cpu_left: np.ndarray,
    gpu_left_total: np.ndarray,
    cpu_cap: np.ndarray,
    gpu_count: np.ndarray,
    cpu: int,
    gpu_total: int,
    norm: str,
) -> np.ndarray:
    if norm == "max":
        nc = np.full(len(cpu_left), float(MAX_SPEC_CPU))
        ng = np.full(len(cpu_left), float(MAX_SPEC_GPU))
    else:  # node capacity
        nc = cpu_cap.astype(np.float64)
        ng = (gpu_count * MILLI).astype(np.float64)

    def div(a: np.ndarray | float, b: np.ndarray) -> np.ndarray:
        a = np.broadcast_to(np.asarray(a, dtype=np.float64), b.shape)
        return np.divide(a, b, out=np.zeros_like(b), where=b > 0)

    dot = div(cpu_left.astype(np.float64), nc) * div(float(cpu), nc)
    dot = dot + div(gpu_left_total.astype(np.float64), ng) * div(float(gpu_total), ng)
    cur = 1.0 - dot / 2.0
    out = np.trunc(float(MAX_NODE_SCORE) * cur).astype(np.int64)
    out[cpu_left < cpu] = MIN_NODE_SCORE
    return out


class DotProductScore(TableScore):
    NAME = NAME

    def __init__(self, args: Mapping[str, Any], handle: Handle | None) -> None:
        super().__init__(handle)
        self.dim_ext_method = str(args.get("dimExtMethod") or "merge")
        self.norm_method = str(args.get("normMethod") or "max")
        if self.dim_ext_method not in DIM_EXT_METHODS:
            raise ValueError(f"dimExtMethod {self.dim_ext_method!r}: one of {DIM_EXT_METHODS}")
        if self.norm_method not in NORM_METHODS:
            raise ValueError(f"normMethod {self.norm_method!r}: one of {NORM_METHODS}")

    @classmethod
    def new(cls, args: Mapping[str, Any], handle: Handle) -> DotProductScore:
        return cls(args or {}, handle)

    def scores(
        self, table: GpuTable, rows: np.ndarray, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> np.ndarray:
        return dot_product_scores(
            table.cpu_left[rows],
            table.left[rows].sum(axis=1),
            table.cpu_cap[rows],
            table.count[rows],
            pod.non0_cpu,
            gpu_request(pod).total,
            self.norm_method,
        )


PLUGIN = DotProductScore
new = DotProductScore.new
