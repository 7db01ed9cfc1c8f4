"""GPUMemoryScore: a Score plugin that prefers the node with the most free GPU memory.

Free GPU memory of a node is

* for GPUs a device plugin advertises: GPU Feature Discovery's
  ``nvidia.com/gpu.memory`` label (MiB per GPU) times the node's free
  ``nvidia.com/gpu`` (allocatable minus what its pods request);
* for GPUs a DRA driver publishes in ResourceSlices: the ``memory`` capacity of
  every device no ResourceClaim has been allocated.

Only pods that ask for GPUs (``nvidia.com/gpu`` or a ResourceClaim) are
scored: for the others PreScore answers Skip and the plugin gives no score at
all, like the in-tree plugins do.  NormalizeScore scales the raw MiB to
0-100, the node with the most free memory getting 100.

Use it: ``python -m scheduler_engine simulate --snapshot ... --config profile.yaml
--plugin examples.plugins.gpu_memory_score:GPUMemoryScore`` with a profile that
enables ``GPUMemoryScore`` at ``score``.  docs/plugins.md walks through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scheduler_engine.plugin_api import (
    MAX_NODE_SCORE,
    POD_DELETE,
    ArgsProblem,
    BasePlugin,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    NodeScore,
    PluginArgs,
    Status,
)
from scheduler_engine.quantity import QuantityError, parse_quantity, value

__all__ = ["GPUMemoryScore", "GPUMemoryScoreArgs"]

_STATE_KEY = "PreScoreGPUMemoryScore"


@dataclass(frozen=True)
class GPUMemoryScoreArgs(PluginArgs):
    """``pluginConfig`` args: ``resourceName``, ``memoryLabel``, ``draDrivers``."""

    resource_name: str = "nvidia.com/gpu"
    memory_label: str = "nvidia.com/gpu.memory"
    dra_drivers: list[str] = field(default_factory=lambda: ["gpu.nvidia.com"])

    def validate(self) -> list[ArgsProblem]:
        problems: list[ArgsProblem] = []
        if not self.resource_name:
            problems.append(("resourceName", self.resource_name, "must not be empty"))
        if not self.memory_label:
            problems.append(("memoryLabel", self.memory_label, "must not be empty"))
        for i, d in enumerate(self.dra_drivers):
            if not d:
                problems.append((f"draDrivers[{i}]", d, "must not be empty"))
        return problems


def _device_memory_mib(device: Mapping[str, Any]) -> int:
    raw = ((device.get("capacity") or {}).get("memory") or {}).get("value")
    if raw is None:
        return 0
    try:
        return value(parse_quantity(raw)) // 2**20
    except QuantityError:
        return 0


class GPUMemoryScore(BasePlugin):
    """PreScore, Score and NormalizeScore (see the module docstring)."""

    NAME = "GPUMemoryScore"
    Args = GPUMemoryScoreArgs
    # a Score plugin rejects nothing; were it a filter, a deleted pod would free memory
    EVENTS = frozenset({POD_DELETE})

    def __init__(self, args: GPUMemoryScoreArgs, handle: Handle) -> None:
        self.args = args
        self.handle = handle

    def _wants_gpus(self, pod: Any) -> bool:
        return bool(pod.requests.get(self.args.resource_name) or pod.resource_claims)

    def _dra_free_mib(self) -> dict[str, int]:
        """Node name → MiB of DRA GPU devices no claim holds."""
        drivers = set(self.args.dra_drivers)
        cluster = self.handle.cluster
        taken: set[tuple[str, str, str]] = set()
        for claim in cluster.of_kind("ResourceClaim"):
            alloc = (claim.get("status") or {}).get("allocation") or {}
            for r in (alloc.get("devices") or {}).get("results") or ():
                taken.add((str(r.get("driver")), str(r.get("pool")), str(r.get("device"))))
        free: dict[str, int] = {}
        for s in cluster.of_kind("ResourceSlice"):
            spec = s.get("spec") or {}
            driver, node = spec.get("driver"), spec.get("nodeName")
            if driver not in drivers or not node:
                continue
            pool = str((spec.get("pool") or {}).get("name"))
            for d in spec.get("devices") or ():
                if (driver, pool, str(d.get("name"))) not in taken:
                    free[node] = free.get(node, 0) + _device_memory_mib(d)
        return free

    # -- PreScore: the per-cycle work, once -----------------------------------------
    def pre_score(self, state: CycleState, pod: Any, nodes: Sequence[NodeInfo]) -> Status | None:
        if not self._wants_gpus(pod):
            return Status(Code.SKIP)
        state.write(_STATE_KEY, self._dra_free_mib())
        return None

    # -- Score: cheap per node ---------------------------------------------------------
    def score(self, state: CycleState, pod: Any, node_info: NodeInfo) -> int:
        node = node_info.node
        res = self.args.resource_name
        free_gpus = node.allocatable.scalar.get(res, 0) - node_info.requested.scalar.get(res, 0)
        dra = state.read(_STATE_KEY).get(node.name, 0)
        if free_gpus <= 0:
            return dra
        label = node.labels.get(self.args.memory_label)
        try:
            return max(int(label), 0) * free_gpus + dra  # type: ignore[arg-type]
        except (TypeError, ValueError):  # no label, or not a number
            return dra

    # -- NormalizeScore: MiB to 0-100 --------------------------------------------------
    def normalize_score(
        self, state: CycleState, pod: Any, scores: list[NodeScore]
    ) -> Status | None:
        top = max((s.score for s in scores), default=0)
        if top <= 0:
            return None
        for s in scores:
            s.score = s.score * MAX_NODE_SCORE // top
        return None
