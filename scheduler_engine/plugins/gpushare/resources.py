"""GPU sharing in Kubernetes objects: the annotations and labels of the open-gpu-share ecosystem.

A node advertises ``alibabacloud.com/gpu-count`` GPUs (extended resource, with
``alibabacloud.com/gpu-milli`` = count x 1000) and its model in the label
``alibabacloud.com/gpu-card-model``.  A pod asks for ``alibabacloud.com/gpu-count``
GPUs of ``alibabacloud.com/gpu-milli`` thousandths each (annotations; below 1000
only with one GPU: a shared GPU), optionally of the models in
``alibabacloud.com/gpu-card-model`` (``A|B`` = either), and the scheduler writes
the GPUs it chose into ``alibabacloud.com/gpu-index`` (``"2"`` or ``"0-1-3"``).
Why this and not DRA: ``docs/replay.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ...framework.node_info import NodeInfo
    from ...objects import Node, Pod

__all__ = [
    "GPU_COUNT",
    "GPU_INDEX",
    "GPU_MILLI",
    "GPU_MODEL",
    "MILLI",
    "NO_GPU",
    "GpuRequest",
    "accessible",
    "assigned_gpus",
    "gpu_request",
    "node_gpu_count",
    "node_gpu_left",
    "node_gpu_model",
    "with_assignment",
]

GPU_MILLI = "alibabacloud.com/gpu-milli"
GPU_COUNT = "alibabacloud.com/gpu-count"
GPU_MODEL = "alibabacloud.com/gpu-card-model"
GPU_INDEX = "alibabacloud.com/gpu-index"
MILLI = 1000
_CACHE_KEY = "gpushare.request"


@dataclass(frozen=True, slots=True)
class GpuRequest:
    """What a pod asks of GPUs: ``count`` GPUs with ``milli`` thousandths free each."""

    milli: int
    count: int
    # accepted models; empty = any
    models: tuple[str, ...] = ()
    # "" when valid, else why the annotations cannot be used
    error: str = ""

    @property
    def total(self) -> int:
        return self.milli * self.count

    @property
    def shared(self) -> bool:
        return self.count == 1 and 0 < self.milli < MILLI

    @property
    def tag(self) -> str:
        """The simulator's GPU affinity of a pod: no-gpu, share-gpu or N-gpu."""
        if self.milli <= 0 or self.count == 0:
            return "no-gpu"
        if self.shared:
            return "share-gpu"
        return f"{self.count}-gpu"


NO_GPU = GpuRequest(0, 0)


def _int_annotation(ann: Mapping[str, Any], key: str) -> tuple[int, str]:
    raw = ann.get(key)
    if raw is None or raw == "":
        return 0, ""
    try:
        v = int(str(raw).strip())
    except ValueError:
        return 0, f"annotation {key}: must be an integer, got {raw!r}"
    if v < 0:
        return 0, f"annotation {key}: must not be negative, got {raw!r}"
    return v, ""


def parse_gpu_request(annotations: Mapping[str, Any]) -> GpuRequest:
    milli, e1 = _int_annotation(annotations, GPU_MILLI)
    count, e2 = _int_annotation(annotations, GPU_COUNT)
    models = tuple(m for m in str(annotations.get(GPU_MODEL) or "").split("|") if m)
    err = e1 or e2
    if not err and milli > MILLI:
        err = f"annotation {GPU_MILLI}: at most {MILLI} per GPU, got {milli}"
    if not err and count > 1 and 0 < milli < MILLI:
        err = f"annotation {GPU_MILLI}: a share of a GPU ({milli}) needs {GPU_COUNT} 1, got {count}"
    if not err and milli > 0 and count == 0:
        count = 1
    if err:
        return GpuRequest(0, 0, models, err)
    if milli == 0:
        return GpuRequest(0, 0, models)
    return GpuRequest(milli, count, models)


def gpu_request(pod: Pod) -> GpuRequest:
    """The pod's GPU request (parsed once, kept in the pod's cache)."""
    req = pod.cache.get(_CACHE_KEY)
    if req is None:
        ann = (pod.raw.get("metadata") or {}).get("annotations") or {}
        req = parse_gpu_request(ann) if isinstance(ann, Mapping) else NO_GPU
        pod.cache[_CACHE_KEY] = req
    return req


def assigned_gpus(pod: Pod) -> tuple[int, ...]:
    """The GPU indices written into the pod's ``gpu-index`` annotation (empty when none)."""
    ann = (pod.raw.get("metadata") or {}).get("annotations") or {}
    raw = ann.get(GPU_INDEX) if isinstance(ann, Mapping) else None
    if not raw:
        return ()
    try:
        return tuple(int(x) for x in str(raw).split("-") if x != "")
    except ValueError:
        return ()


def with_assignment(pod: Pod, gpus: Sequence[int]) -> None:
    """Write the chosen GPUs into the pod's annotations (on a copy of its raw object).

    The caller's object is left alone: the pod's ``raw`` becomes a new dict.
    """
    raw = dict(pod.raw)
    meta = dict(raw.get("metadata") or {})
    ann = dict(meta.get("annotations") or {})
    if gpus:
        ann[GPU_INDEX] = "-".join(str(g) for g in gpus)
    else:
        ann.pop(GPU_INDEX, None)
    meta["annotations"] = ann
    raw["metadata"] = meta
    pod.raw = raw


def node_gpu_count(node: Node) -> int:
    return int(node.allocatable.scalar.get(GPU_COUNT, 0))


def node_gpu_model(node: Node) -> str:
    return node.labels.get(GPU_MODEL, "")


def accessible(node_model: str, models: Sequence[str]) -> bool:
    """Whether a node of ``node_model`` serves a pod accepting ``models`` (empty = any)."""
    if not models:
        return True
    if not node_model:
        return False
    return node_model in models


def node_gpu_left(ni: NodeInfo) -> list[int]:
    """Free thousandths of each GPU of the node, from the pods' ``gpu-index`` annotations.

    Pods that hold GPUs without naming them (an assumed pod before Reserve)
    are not counted here: Reserve names them.
    """
    left = [MILLI] * node_gpu_count(ni.node)
    for p in ni.pods:
        req = gpu_request(p)
        if req.milli <= 0:
            continue
        for g in assigned_gpus(p):
            if 0 <= g < len(left):
                left[g] -= req.milli
    return left
