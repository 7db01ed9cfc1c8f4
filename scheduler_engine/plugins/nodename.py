"""NodeName: a Filter plugin (upstream ``plugins/nodename``).

A pod that names a node in ``spec.nodeName`` fits only that node.  Upstream
v1.36 has no PreFilter here: the node set is not narrowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.interfaces import Handle
from ..framework.node_info import NodeInfo
from ..framework.status import Code, Status
from ..objects import Pod

__all__ = ["ERR_REASON", "NAME", "PLUGIN", "NodeName", "fits", "new"]

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    return not pod.node_name or pod.node_name == node_info.node.name


class NodeName:
    NAME = NAME
    # answers from the pod's spec and that one node alone (framework/node_memo.py)
    node_local_filter = True

    __slots__ = ("handle",)

    def __init__(self, handle: Handle | None = None) -> None:
        self.handle = handle

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod.node_name or pod.node_name == node_info.node.name:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        want = pod.node_name
        if not want:
            return np.ones(len(nodes), dtype=bool)
        return np.fromiter((ni.node.name == want for ni in nodes), dtype=bool, count=len(nodes))


PLUGIN = NodeName


def new(args: Mapping[str, Any], handle: Handle) -> NodeName:
    return NodeName(handle)
