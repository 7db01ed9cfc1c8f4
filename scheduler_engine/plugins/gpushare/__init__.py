"""OpenGpuShare: PreFilter, Filter and Reserve for shared and whole GPUs (open-gpu-share).

The counterpart of the FGD simulator's ``Open-Gpu-Share`` plugin
(``hkust-adsl/kubernetes-scheduler-simulator``, ``pkg/simulator/plugin/open_gpu_share.go``):
a node fits when it has GPUs of an accepted model and ``count`` of them with
``milli`` thousandths free each; Reserve chooses the GPUs (``gpuSelMethod``:
``best``, ``worst``, ``random``, or the name of a score plugin of the profile
that chooses them, as ``DotProductScore`` and ``FGDScore`` do) and writes them
into the pod's ``alibabacloud.com/gpu-index`` annotation.  The objects and the
reasons for this design: ``docs/replay.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interfaces import BasePlugin, Handle, PreFilterResult
from ...framework.node_info import NodeInfo
from ...framework.status import Code, Status
from ...objects import Pod
from .resources import (
    GPU_COUNT,
    GPU_INDEX,
    GPU_MILLI,
    GPU_MODEL,
    MILLI,
    GpuRequest,
    accessible,
    gpu_request,
    node_gpu_count,
    node_gpu_left,
    node_gpu_model,
    with_assignment,
)
from .table import GpuTable

__all__ = [
    "ERR_MODEL",
    "ERR_NOT_ENOUGH",
    "ERR_NO_GPU",
    "GPU_COUNT",
    "GPU_INDEX",
    "GPU_MILLI",
    "GPU_MODEL",
    "NAME",
    "PLUGIN",
    "SELECT_METHODS",
    "GpuTable",
    "OpenGpuShare",
    "choose_best",
    "choose_exclusive",
    "choose_worst",
    "explain_choice",
    "fits_gpus",
    "new",
]

NAME = "OpenGpuShare"
ERR_NO_GPU = "node(s) had no GPUs"
ERR_MODEL = "node(s) didn't have the requested GPU model"
ERR_NOT_ENOUGH = "node(s) didn't have enough free GPUs or GPU share"
SELECT_METHODS = ("best", "worst", "random")


def fits_gpus(left: Sequence[int], req: GpuRequest) -> bool:
    return sum(1 for v in left if v >= req.milli) >= req.count


def choose_exclusive(left: Sequence[int], req: GpuRequest) -> list[int]:
    """Whole GPUs: the first fully free ones, in index order (``AllocateExclusiveGpuId``)."""
    out: list[int] = []
    need = req.total
    for i, v in enumerate(left):
        if need <= 0:
            break
        if v == MILLI:
            out.append(i)
            need -= MILLI
    return out if need <= 0 else []


def choose_best(left: Sequence[int], req: GpuRequest) -> list[int]:
    """A share goes to the GPU with the least free share that fits (first on ties)."""
    if not req.shared:
        return choose_exclusive(left, req)
    best = -1
    for i, v in enumerate(left):
        if v >= req.milli and (best < 0 or v < left[best]):
            best = i
    return [best] if best >= 0 else []


def choose_worst(left: Sequence[int], req: GpuRequest) -> list[int]:
    """A share goes to the GPU with the most free share (first on ties)."""
    if not req.shared:
        return choose_exclusive(left, req)
    best = -1
    for i, v in enumerate(left):
        if v >= req.milli and (best < 0 or v > left[best]):
            best = i
    return [best] if best >= 0 else []


def choose_random(left: Sequence[int], req: GpuRequest, rng: Any) -> list[int]:
    """A share goes to a GPU that fits, drawn uniformly (reservoir sampling, as the simulator)."""
    if not req.shared:
        return choose_exclusive(left, req)
    chosen, seen = -1, 0
    for i, v in enumerate(left):
        if v >= req.milli:
            seen += 1
            if rng.randrange(seen) == 0:
                chosen = i
    return [chosen] if chosen >= 0 else []


def explain_choice(
    left: Sequence[int], req: GpuRequest, chosen: Sequence[int], method: str
) -> dict:
    """The GPUs chosen and, for every other GPU of the node, why not."""
    others: dict[str, str] = {}
    for i, v in enumerate(left):
        if i in chosen:
            continue
        if v < req.milli:
            others[str(i)] = f"{v}m free, less than the {req.milli}m asked"
        elif not req.shared and v < MILLI:
            others[str(i)] = f"{v}m free: shared, a whole GPU is asked"
        else:
            others[str(i)] = f"{v}m free, not chosen by {method}"
    return {
        "gpus": list(chosen),
        "free": {str(i): left[i] for i in chosen},
        "method": method,
        "others": others,
    }


class OpenGpuShare(BasePlugin):
    NAME = NAME

    def __init__(self, args: Mapping[str, Any], handle: Handle | None) -> None:
        self.handle = handle
        method = str((args or {}).get("gpuSelMethod") or "best")
        self.gpu_sel_method = method
        # pod key → {"node", "gpus", ...} for the pods this plugin placed
        self.assignments: dict[str, dict[str, Any]] = {}

    def _snapshot(self) -> Any:
        return self.handle.snapshot() if self.handle is not None else None

    # -- PreFilter ---------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        req = gpu_request(pod)
        if req.error:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, req.error)
        if req.milli <= 0:
            return None, Status(Code.SKIP)
        return None, None

    # -- Filter ------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        req = gpu_request(pod)
        if req.milli <= 0:
            return None
        node = node_info.node
        if node_gpu_count(node) == 0:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_NO_GPU)
        if not accessible(node_gpu_model(node), req.models):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_MODEL)
        if not fits_gpus(node_gpu_left(node_info), req):
            return Status(Code.UNSCHEDULABLE, ERR_NOT_ENOUGH)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        req = gpu_request(pod)
        if req.milli <= 0:
            return np.ones(len(nodes), dtype=bool)
        table, rows = GpuTable.for_nodes(self._snapshot(), nodes)
        ok = table.count[rows] > 0
        if req.models:
            ok &= np.isin(table.model[rows], table.codes(req.models))
        ok &= (table.left[rows] >= req.milli).sum(axis=1) >= req.count
        return ok

    # -- Reserve -----------------------------------------------------------------
    def choose(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> list[int]:
        req = gpu_request(pod)
        left = node_gpu_left(node_info)
        m = self.gpu_sel_method
        if m == "best":
            return choose_best(left, req)
        if m == "worst":
            return choose_worst(left, req)
        if m == "random":
            return choose_random(left, req, self.handle.rng)  # type: ignore[union-attr]
        fwk = getattr(self.handle, "framework", None)
        chooser = getattr((fwk.plugins if fwk is not None else {}).get(m), "choose_gpus", None)
        if chooser is None:
            raise ValueError(f"gpuSelMethod {m!r}: no such method or score plugin in the profile")
        return list(chooser(pod, node_info, left))

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        req = gpu_request(pod)
        if req.milli <= 0:
            return None
        snap = self._snapshot()
        ni = snap.get(node_name) if snap is not None else None
        if ni is None:
            return Status(Code.ERROR, f"node {node_name} not found")
        left = node_gpu_left(ni)
        gpus = self.choose(state, pod, ni)
        if len(gpus) != req.count:
            return Status(
                Code.ERROR,
                f"failed to allocate GPUs to pod {pod.key} on node {node_name}",
            )
        with_assignment(pod, gpus)
        entry: dict[str, Any] = {"node": node_name, "gpus": gpus}
        fwk = getattr(self.handle, "framework", None)
        if getattr(fwk, "recorder", None) is not None:
            entry.update(explain_choice(left, req, gpus, self.gpu_sel_method))
        self.assignments[pod.key] = entry
        table = snap.extensions.get("GpuTable")
        if table is not None:
            table.refresh(ni)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        if gpu_request(pod).milli <= 0:
            return
        with_assignment(pod, ())
        self.assignments.pop(pod.key, None)
        snap = self._snapshot()
        ni = snap.get(node_name) if snap is not None else None
        table = snap.extensions.get("GpuTable") if snap is not None else None
        if ni is not None and table is not None:
            table.refresh(ni)

    def result_for(self, pod_key: str) -> dict[str, Any] | None:
        """What the pod's result reports of this plugin: the GPUs it got (and why, explaining)."""
        return self.assignments.get(pod_key)


PLUGIN = OpenGpuShare


def new(args: Mapping[str, Any], handle: Handle) -> OpenGpuShare:
    return OpenGpuShare(args, handle)
