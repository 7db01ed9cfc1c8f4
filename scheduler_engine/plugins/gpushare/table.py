"""Per-GPU free shares of every node as numpy arrays, kept in step with a snapshot.

One row per node in snapshot order: free CPU (millicores) and capacity, GPU
count, model (an integer code), free thousandths of each GPU (columns past a
node's count hold 0), and how many pods of each GPU shape (share-gpu,
1-gpu, 2-gpu, ...) run there.  Rows are recomputed from the node's pods on
every ``Snapshot.add_pod``/``remove_pod`` and after Reserve names the GPUs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...framework.node_table import RowsMemo, SnapshotTable
from .resources import MILLI, assigned_gpus, gpu_request, node_gpu_count, node_gpu_model

if TYPE_CHECKING:  # pragma: no cover
    from ...framework.node_info import NodeInfo

__all__ = ["EXTENSION_KEY", "GpuTable"]

EXTENSION_KEY = "GpuTable"


class GpuTable(SnapshotTable):
    KEY = EXTENSION_KEY
    __slots__ = (
        "count",
        "cpu_cap",
        "cpu_left",
        "left",
        "listeners",
        "model",
        "model_codes",
        "node_infos",
        "row_memo",
        "shapes",
        "width",
    )

    def __init__(self, node_infos: Sequence[NodeInfo]) -> None:
        self.node_infos = list(node_infos)
        n = len(self.node_infos)
        counts = [node_gpu_count(ni.node) for ni in self.node_infos]
        self.width = max([1, *counts])
        # model name → code; 0 is "no model"
        self.model_codes: dict[str, int] = {"": 0}
        self.count = np.array(counts, dtype=np.int64).reshape(n)
        self.model = np.zeros(n, dtype=np.int64)
        self.cpu_cap = np.zeros(n, dtype=np.int64)
        self.cpu_left = np.zeros(n, dtype=np.int64)
        self.left = np.zeros((n, self.width), dtype=np.int64)
        # pods per shape: column 0 share-gpu, column k k-gpu
        self.shapes = np.zeros((n, self.width + 1), dtype=np.int64)
        # called with a row index after the row changed (memos of per-node results)
        self.listeners: list[Callable[[int], None]] = []
        self.row_memo = RowsMemo()
        for i, ni in enumerate(self.node_infos):
            self.model[i] = self.code(node_gpu_model(ni.node))
            self.cpu_cap[i] = ni.node.allocatable.milli_cpu
            self._fill(i, ni)

    def code(self, model: str) -> int:
        c = self.model_codes.get(model)
        if c is None:
            c = len(self.model_codes)
            self.model_codes[model] = c
        return c

    def codes(self, models: Sequence[str]) -> list[int]:
        """Codes of models (unknown ones get fresh codes no node has)."""
        return [self.code(m) for m in models]

    def _fill(self, i: int, ni: NodeInfo) -> None:
        row = self.left[i]
        row[:] = 0
        row[: self.count[i]] = MILLI
        shapes = self.shapes[i]
        shapes[:] = 0
        for p in ni.pods:
            req = gpu_request(p)
            if req.milli <= 0:
                continue
            for g in assigned_gpus(p):
                if 0 <= g < self.count[i]:
                    row[g] -= req.milli
            shapes[0 if req.shared else min(req.count, self.width)] += 1
        self.cpu_left[i] = self.cpu_cap[i] - ni.requested.milli_cpu
        for cb in self.listeners:
            cb(i)

    def refresh(self, ni: NodeInfo) -> None:
        """Rewrite the row of ``ni`` (a snapshot listener)."""
        i = ni.index
        if 0 <= i < len(self.node_infos) and self.node_infos[i] is ni:
            self._fill(i, ni)
