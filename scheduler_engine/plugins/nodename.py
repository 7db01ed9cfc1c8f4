"""NodeName: a Filter plugin (upstream ``plugins/nodename``).

A pod that names a node in ``spec.nodeName`` fits only that node.  Upstream
v1.36 has no PreFilter here: the node set is not narrowed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.node_info import NodeInfo
from ..framework.signers import NODE_NAME, Fragments
from ..framework.status import Status
from ..objects import Pod
from .helper import NodeLocalFilter

__all__ = ["ERR_REASON", "NAME", "PLUGIN", "NodeName", "fits", "new"]

NAME = "NodeName"
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    return not pod.node_name or pod.node_name == node_info.node.name


class NodeName(NodeLocalFilter):
    NAME = NAME
    REASON = ERR_REASON
    __slots__ = ()

    fits = staticmethod(fits)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        want = pod.node_name
        if not want:
            return np.ones(len(nodes), dtype=bool)
        return np.fromiter((ni.node.name == want for ni in nodes), dtype=bool, count=len(nodes))

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its answers depend on ``spec.nodeName``."""
        return [(NODE_NAME, pod.spec.get("nodeName") or "")], None


PLUGIN = NodeName
new = NodeName.new
