"""GPU fragmentation measured against a target workload (the FGD paper's definitions).

The *typical pods* are the most frequent pod shapes (CPU, GPU share, GPU count,
GPU models) that together make up 95% of the workload's tasks, each with its
frequency.  A node's idle GPU share is *fragment* for a typical pod the node
cannot run (not enough CPU, no GPU model it accepts, not enough GPUs with
enough free share, or a pod asking no GPU at all); when the node can run it,
only the GPUs with less free share than it asks are fragment.  The node's
fragment amount is the frequency-weighted sum over the typical pods, in
thousandths of a GPU; the cluster's is the sum over nodes, and the
fragmentation rate is that amount over the idle GPU share.  These are the
simulator's ``GetTypicalPods``, ``NodeGpuShareFragAmount`` and
``FragAmountSumExceptQ3`` (``pkg/utils/frag.go``); ``docs/replay.md`` has the
formulas.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "POPULARITY_THRESHOLD",
    "FragModel",
    "PodShape",
    "TypicalPod",
    "node_frag_amount",
    "typical_pods",
]

POPULARITY_THRESHOLD = 95
MILLI = 1000


@dataclass(frozen=True, slots=True, order=True)
class PodShape:
    """What fragmentation looks at of a pod (the simulator's ``PodResource``)."""

    cpu: int  # millicores (non-zero request)
    milli: int  # thousandths of each GPU
    count: int  # GPUs
    models: str = ""  # "A|B", "" = any

    @property
    def model_list(self) -> tuple[str, ...]:
        return tuple(m for m in self.models.split("|") if m)


@dataclass(frozen=True, slots=True)
class TypicalPod:
    shape: PodShape
    freq: float


def typical_pods(
    shapes: Iterable[PodShape], threshold: int = POPULARITY_THRESHOLD
) -> list[TypicalPod]:
    """The most frequent shapes covering ``threshold`` % of the pods, frequencies renormalised.

    Shapes are ranked by count, ties by the larger (cpu, milli, count, models)
    first, as ``sort.Reverse`` of the simulator's ``TargetPodList`` does.
    """
    counts = Counter(shapes)
    total = float(sum(counts.values()))
    if total == 0:
        return []
    ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    expected = float(threshold) * total / 100.0
    cum = 0.0
    chosen: list[tuple[PodShape, float]] = []
    i = 0
    while cum < expected and i < len(ranked):
        shape, n = ranked[i]
        cum += float(n)
        chosen.append((shape, float(n) / total))
        i += 1
    if i >= len(ranked):
        return [TypicalPod(s, f) for s, f in chosen]
    scale = cum / total
    return [TypicalPod(s, f / scale) for s, f in chosen]


def node_frag_amount(
    cpu_left: int, gpu_left: Sequence[int], model: str, typical: Sequence[TypicalPod]
) -> float:
    """One node's fragment amount (thousandths of a GPU), computed directly from the definition."""
    total = sum(gpu_left)
    frag = 0.0
    for t in typical:
        s = t.shape
        if s.milli == 0:
            frag += t.freq * total
            continue
        models = s.model_list
        if models and model not in models:
            frag += t.freq * total
            continue
        fits = sum(1 for v in gpu_left if v >= s.milli) >= s.count
        if fits and cpu_left >= s.cpu:
            frag += t.freq * sum(v for v in gpu_left if v < s.milli)
        else:
            frag += t.freq * total
    return frag


class FragModel:
    """:func:`node_frag_amount` for many node states at once (numpy), for one set of typical pods."""

    def __init__(self, typical: Sequence[TypicalPod]) -> None:
        self.typical = list(typical)
        self.freq = np.array([t.freq for t in self.typical], dtype=np.float64)
        self.freq_total = float(self.freq.sum())
        self.gpu_typical = [
            (t.freq, t.shape.milli, t.shape.count, t.shape.cpu, t.shape.model_list)
            for t in self.typical
            if t.shape.milli > 0
        ]
        # CPU-only typical pods count every idle GPU share as fragment
        self.cpu_only_freq = sum(t.freq for t in self.typical if t.shape.milli == 0)
        self.millis = sorted({m for _, m, _, _, _ in self.gpu_typical})

    def amounts(
        self,
        cpu_left: np.ndarray,
        gpu_left: np.ndarray,
        models: np.ndarray,
        model_names: Mapping[int, str],
    ) -> np.ndarray:
        """Fragment amount of each row: ``cpu_left[m]``, ``gpu_left[m, G]``, ``models[m]`` (codes)."""
        total = gpu_left.sum(axis=1).astype(np.float64)
        frag = total * self.cpu_only_freq
        small: dict[int, np.ndarray] = {}
        count: dict[int, np.ndarray] = {}
        for v in self.millis:
            below = gpu_left < v
            small[v] = np.where(below, gpu_left, 0).sum(axis=1).astype(np.float64)
            count[v] = (~below).sum(axis=1)
        for freq, milli, n, cpu, wanted in self.gpu_typical:
            q3 = (count[milli] >= n) & (cpu_left >= cpu)
            if wanted:
                codes = [c for c, name in model_names.items() if name in wanted]
                q3 &= np.isin(models, codes)
            frag += freq * np.where(q3, small[milli], total)
        return frag
