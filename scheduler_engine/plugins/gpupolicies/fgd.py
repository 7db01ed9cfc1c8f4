"""FGDScore: Score, and the GPU choice of Reserve (the FGD simulator's ``fgd_score.go``).

Fragmentation Gradient Descent: a node scores by how little placing the pod
there grows its fragment amount (:mod:`.fragmentation`) measured against the
typical pods: ``int(sigmoid((before - after) / 1000) * 100)``.  A GPU share is
tried on every GPU where it fits and the best GPU is the one Reserve takes
(``OpenGpuShare`` with ``gpuSelMethod: FGDScore``); whole GPUs are the first
free ones.  The typical pods come from the ``typicalPods`` argument, else from
every pod of the cluster.

A node's score depends only on its state and the pod's shape, so scores are
kept per (node, shape) until the node changes: the simulator memoises the
fragment amount of node states the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interfaces import BasePlugin, Handle
from ...framework.node_info import NodeInfo
from ...framework.status import Status
from ...objects import Pod
from ..gpushare import choose_exclusive
from ..gpushare.resources import MILLI, gpu_request, node_gpu_model
from ..gpushare.table import GpuTable
from .common import MAX_NODE_SCORE, pod_shape, rows_of
from .fragmentation import FragModel, PodShape, TypicalPod, typical_pods

__all__ = ["NAME", "PLUGIN", "FGDScore", "fgd_scores", "new", "parse_typical_pods"]

NAME = "FGDScore"


def parse_typical_pods(raw: Any) -> list[TypicalPod]:
    """``typicalPods``: a list of ``{cpu, milli, count, models, freq}``."""
    if not isinstance(raw, list):
        raise ValueError("typicalPods: must be a list")
    out = []
    for i, t in enumerate(raw):
        try:
            shape = PodShape(
                int(t["cpu"]),
                int(t.get("milli", 0)),
                int(t.get("count", 0)),
                str(t.get("models", "")),
            )
            out.append(TypicalPod(shape, float(t["freq"])))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"typicalPods[{i}]: {exc}") from None
    return out


def _sigmoid_score(delta: np.ndarray) -> np.ndarray:
    return np.trunc(1.0 / (1.0 + np.exp(-delta / 1000.0)) * float(MAX_NODE_SCORE)).astype(np.int64)


def fgd_scores(
    model: FragModel,
    cpu_left: np.ndarray,
    left: np.ndarray,
    models: np.ndarray,
    names: Mapping[int, str],
    shape: PodShape,
) -> tuple[np.ndarray, np.ndarray]:
    """(score, GPU chosen for a share or -1) of each row."""
    m = len(cpu_left)
    before = model.amounts(cpu_left, left, models, names)
    new_cpu = cpu_left - shape.cpu
    gpu = np.full(m, -1, dtype=np.int64)
    if shape.count == 1 and 0 < shape.milli < MILLI:
        best = np.zeros(m, dtype=np.int64)
        for j in range(left.shape[1]):
            ok = left[:, j] >= shape.milli
            if not ok.any():
                continue
            after_left = left.copy()
            after_left[:, j] -= shape.milli
            s = _sigmoid_score(before - model.amounts(new_cpu, after_left, models, names))
            take = ok & ((gpu < 0) | (s > best))
            best = np.where(take, s, best)
            gpu = np.where(take, j, gpu)
        return best, gpu
    after_left = left
    if shape.count > 0 and shape.milli > 0:
        # whole GPUs come from the fully free ones (which ones does not change the amount)
        free = left == MILLI
        used = free & (np.cumsum(free, axis=1) <= shape.count)
        after_left = np.where(used, left - shape.milli, left)
    return _sigmoid_score(before - model.amounts(new_cpu, after_left, models, names)), gpu


def _no_requests(pod: Pod) -> bool:
    r = pod.requests
    return not (r.milli_cpu or r.memory or r.ephemeral_storage or any(r.scalar.values())) and (
        gpu_request(pod).milli <= 0
    )


class FGDScore(BasePlugin):
    NAME = NAME

    def __init__(self, args: Mapping[str, Any], handle: Handle | None) -> None:
        self.handle = handle
        raw = (args or {}).get("typicalPods")
        self._typical: list[TypicalPod] | None = (
            parse_typical_pods(raw) if raw is not None else None
        )
        self._model: FragModel | None = None
        # shape → (score, gpu, valid) per snapshot row
        self._memo: dict[PodShape, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._table: GpuTable | None = None

    # -- the target workload --------------------------------------------------------
    def frag_model(self) -> FragModel:
        if self._model is None:
            typical = self._typical
            if typical is None:
                cluster = getattr(self.handle, "cluster", None)
                pods = list(cluster.pods) if cluster is not None else []
                typical = typical_pods(pod_shape(p) for p in pods)
            self._model = FragModel(typical)
        return self._model

    def _invalidate(self, i: int) -> None:
        for _, _, valid in self._memo.values():
            valid[i] = False

    def _scores(self, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[np.ndarray, np.ndarray]:
        table, rows = rows_of(self.handle, nodes)
        shape = pod_shape(pod)
        model = self.frag_model()
        names = {c: n for n, c in table.model_codes.items()}
        snap = self.handle.snapshot() if self.handle is not None else None
        own = snap is not None and snap.extensions.get("GpuTable") is table
        if not own:
            return fgd_scores(
                model, table.cpu_left[rows], table.left[rows], table.model[rows], names, shape
            )
        if self._table is not table:
            self._table = table
            self._memo = {}
            table.listeners.append(self._invalidate)
        memo = self._memo.get(shape)
        if memo is None:
            n = len(table.node_infos)
            memo = (
                np.zeros(n, dtype=np.int64),
                np.full(n, -1, dtype=np.int64),
                np.zeros(n, dtype=bool),
            )
            self._memo[shape] = memo
        score, gpu, valid = memo
        miss = rows[~valid[rows]]
        if len(miss):
            s, g = fgd_scores(
                model, table.cpu_left[miss], table.left[miss], table.model[miss], names, shape
            )
            score[miss] = s
            gpu[miss] = g
            valid[miss] = True
        return score[rows], gpu[rows]

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        if _no_requests(pod):
            return np.full(len(nodes), MAX_NODE_SCORE, dtype=np.int64)
        return self._scores(pod, nodes)[0]

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        return int(self.score_batch(state, pod, [node_info])[0])

    def choose_gpus(self, pod: Pod, node_info: NodeInfo, left: Sequence[int]) -> list[int]:
        """The GPUs Reserve gives the pod on this node (``gpuSelMethod: FGDScore``)."""
        req = gpu_request(pod)
        if not req.shared:
            return choose_exclusive(left, req)
        # the node as the cycle saw it: without the pod assumed onto it
        cpu_left = node_info.node.allocatable.milli_cpu - node_info.requested.milli_cpu
        if any(p is pod for p in node_info.pods):
            cpu_left += pod.requests.milli_cpu
        snap = self.handle.snapshot() if self.handle is not None else None
        table = GpuTable.of(snap) if snap is not None else GpuTable([node_info])
        names = {c: n for n, c in table.model_codes.items()}
        _, gpu = fgd_scores(
            self.frag_model(),
            np.array([cpu_left], dtype=np.int64),
            np.array([list(left)], dtype=np.int64).reshape(1, len(left)),
            np.array([table.code(node_gpu_model(node_info.node))], dtype=np.int64),
            names,
            pod_shape(pod, req),
        )
        g = int(gpu[0])
        return [g] if g >= 0 else []


PLUGIN = FGDScore


def new(args: Mapping[str, Any], handle: Handle) -> FGDScore:
    return FGDScore(args or {}, handle)
