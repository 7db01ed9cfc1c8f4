"""The cluster's GPU figures after each step of a replay (the FGD simulator's ``[Alloc]``/``[Report]``).

* allocated GPU %: thousandths of GPUs held by pods over the cluster's capacity;
* fragment amount and rate: :mod:`~scheduler_engine.plugins.gpupolicies.fragmentation`
  summed over nodes, and that amount over the idle GPU share;
* ``unallocated_at`` and ``curve``: as the simulator's analysis scripts read a
  run: arrived GPU % rounded to whole percents, allocated GPU % (rounded to
  0.01) averaged over the steps of each percent (the neighbours' when a
  percent has none), unallocated = 100 - allocated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..framework.snapshot import Snapshot
from ..plugins.gpupolicies.fragmentation import FragModel, TypicalPod
from ..plugins.gpushare.resources import MILLI
from ..plugins.gpushare.table import GpuTable

__all__ = ["GpuMetrics", "curve", "unallocated_at"]


class GpuMetrics:
    """Allocation and fragmentation of a snapshot's GPUs, kept up to date row by row."""

    def __init__(self, snapshot: Snapshot, typical: Sequence[TypicalPod]) -> None:
        self.table = GpuTable.of(snapshot)
        self.model = FragModel(typical)
        t = self.table
        self.capacity = int(t.count.sum()) * MILLI
        self._names = {c: n for n, c in t.model_codes.items()}
        self.frag = self.model.amounts(t.cpu_left, t.left, t.model, self._names)
        self._dirty: set[int] = set()
        t.listeners.append(self._dirty.add)

    def measure(self) -> dict[str, float]:
        t = self.table
        if self._dirty:
            rows = np.fromiter(self._dirty, dtype=np.intp, count=len(self._dirty))
            self._dirty.clear()
            self._names = {c: n for n, c in t.model_codes.items()}
            self.frag[rows] = self.model.amounts(
                t.cpu_left[rows], t.left[rows], t.model[rows], self._names
            )
        idle = int(t.left.sum())
        frag = float(self.frag.sum())
        cap = self.capacity or 1
        return {
            "allocatedGpuPercent": 100.0 * (self.capacity - idle) / cap,
            "fragGpus": frag / MILLI,
            "fragRatePercent": 100.0 * frag / idle if idle else 0.0,
            "idleGpus": idle / MILLI,
        }


def _by_percent(timeline: Sequence[dict[str, Any]]) -> dict[int, list[float]]:
    out: dict[int, list[float]] = {}
    for row in timeline:
        r = round(row["arrivedGpuPercent"])
        out.setdefault(r, []).append(round(row["allocatedGpuPercent"], 2))
    return out


def _unallocated(by: dict[int, list[float]], percent: int) -> float | None:
    vals = by.get(percent)
    if not vals:
        vals = [v for r in (percent - 1, percent, percent + 1) for v in by.get(r, [])]
    if not vals:
        return None
    return round(100.0 - round(sum(vals) / len(vals), 2), 2)


def unallocated_at(timeline: Sequence[dict[str, Any]], percent: int = 100) -> float | None:
    """Unallocated GPU % when arrived requests reach ``percent`` % of capacity (None if never)."""
    return _unallocated(_by_percent(timeline), percent)


def curve(timeline: Sequence[dict[str, Any]]) -> list[dict[str, float]]:
    """Unallocated GPU % at each whole percent of arrived workload."""
    by = _by_percent(timeline)
    return [
        {"arrivedGpuPercent": r, "unallocatedGpuPercent": u}
        for r in sorted(by)
        if (u := _unallocated(by, r)) is not None
    ]
