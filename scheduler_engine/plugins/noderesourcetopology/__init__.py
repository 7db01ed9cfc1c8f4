"""NodeResourceTopologyMatch: PreFilter, Filter, Score, Reserve, PostBind (scheduler-plugins
``pkg/noderesourcetopology``).

Over the NodeResourceTopology objects of the snapshot: Filter rejects nodes
whose topology manager policy is ``single-numa-node`` when no NUMA node can
hold a container (container scope) or the pod (pod scope); Score applies one
of MostAllocated, LeastAllocated, BalancedAllocation or LeastNUMANodes.  The
objects are read as published (upstream's pass-through cache: pods placed
during the run do not change them).  A filter failure's ``detail`` says which
NUMA zones could or could not hold what.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...framework.cycle_state import CycleState
from ...framework.interfaces import MAX_NODE_SCORE, BasePlugin, Handle, PreFilterResult
from ...framework.node_info import NodeInfo
from ...framework.status import Status
from ...objects import Pod
from .args import check_args, default_args, validate_args
from .filter import (
    ERR_ALIGN_CONTAINER,
    ERR_ALIGN_INIT_CONTAINER,
    ERR_ALIGN_POD,
    HANDLERS,
    NodeNUMA,
)
from .numa import BEST_EFFORT, GUARANTEED, create_numa_node_list, include_non_native, pod_qos
from .score import score_node

__all__ = [
    "ERR_ALIGN_CONTAINER",
    "ERR_ALIGN_INIT_CONTAINER",
    "ERR_ALIGN_POD",
    "NAME",
    "PLUGIN",
    "TopologyMatch",
    "check_args",
    "default_args",
    "new",
    "validate_args",
]

NAME = "NodeResourceTopologyMatch"
_QOS_KEY = "NodeResourceTopologyMatch/qos"


class TopologyMatch(BasePlugin):
    NAME = NAME

    def __init__(self, args: Mapping[str, Any], handle: Handle) -> None:
        self.handle = handle
        self.args = default_args(args)
        errs = validate_args(self.args)
        if errs:
            field, value, msg = errs[0]
            raise ValueError(f'{field}: Invalid value: "{value}": {msg}')
        strategy = self.args["scoringStrategy"]
        self.strategy: str = strategy["type"]
        self.weights: dict[str, int] = {
            str(r.get("name")): int(r.get("weight") or 1) for r in strategy.get("resources") or []
        }

    def _qos(self, pod: Pod) -> str:
        qos = pod.cache.get(_QOS_KEY)
        if qos is None:
            qos = pod.cache[_QOS_KEY] = pod_qos(pod.raw)
        return qos

    # PreFilter only keeps the victims of a preemption simulation upstream, which
    # changes nothing with the pass-through cache
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        qos = self._qos(pod)
        if qos == BEST_EFFORT and not include_non_native(pod.raw):
            return None
        nrt = self.handle.cluster.node_topologies.get(node_info.node.name)
        if nrt is None:
            return None
        manager = nrt.manager
        if manager.policy != "single-numa-node":
            return None
        handler = HANDLERS.get(manager.scope)
        if handler is None:
            return None
        return handler(pod.raw, NodeNUMA(node_info, manager, create_numa_node_list(nrt), qos))

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        qos = self._qos(pod)
        if qos != GUARANTEED:
            return MAX_NODE_SCORE
        nrt = self.handle.cluster.node_topologies.get(node_info.node.name)
        if nrt is None:
            return 0
        s = score_node(
            self.strategy, self.weights, pod.raw, qos, nrt.manager, create_numa_node_list(nrt)
        )
        return 0 if s is None else s

    # the cache of upstream's Reserve and PostBind is the pass-through one here
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None


PLUGIN = TopologyMatch


def new(args: Mapping[str, Any], handle: Handle) -> TopologyMatch:
    return TopologyMatch(args, handle)
