"""NodeUnschedulable: a Filter plugin (upstream ``plugins/nodeunschedulable``).

A cordoned node (``spec.unschedulable``) takes only pods that tolerate the
``node.kubernetes.io/unschedulable:NoSchedule`` taint.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.interfaces import Handle
from ..framework.node_info import NodeInfo
from ..framework.status import Code, Status
from ..objects import Pod, Taint
from .helper import signatures_for

__all__ = [
    "ERR_REASON_UNKNOWN_CONDITION",
    "ERR_REASON_UNSCHEDULABLE",
    "NAME",
    "PLUGIN",
    "NodeUnschedulable",
    "new",
]

NAME = "NodeUnschedulable"
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
_UNSCHEDULABLE_TAINT = Taint(TAINT_NODE_UNSCHEDULABLE, "", "NoSchedule")


def tolerates_unschedulable(pod: Pod) -> bool:
    cached = pod.cache.get(NAME)
    if cached is None:
        cached = pod.cache[NAME] = any(t.tolerates(_UNSCHEDULABLE_TAINT) for t in pod.tolerations)
    return cached


class NodeUnschedulable:
    NAME = NAME
    # answers from the pod's spec and that one node alone (framework/node_memo.py)
    node_local_filter = True

    __slots__ = ("handle",)

    def __init__(self, handle: Handle | None = None) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not node_info.node.unschedulable or tolerates_unschedulable(pod):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNSCHEDULABLE)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        if tolerates_unschedulable(pod):
            return np.ones(len(nodes), dtype=bool)
        tab, rows = signatures_for(self.handle, nodes)
        return ~tab.unschedulable[rows]


PLUGIN = NodeUnschedulable


def new(args: Mapping[str, Any], handle: Handle) -> NodeUnschedulable:
    return NodeUnschedulable(handle)
