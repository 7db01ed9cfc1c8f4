"""NodeUnschedulable: a Filter plugin (upstream ``plugins/nodeunschedulable``).

A cordoned node (``spec.unschedulable``) takes only pods that tolerate the
``node.kubernetes.io/unschedulable:NoSchedule`` taint.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.node_info import NodeInfo
from ..framework.signers import TOLERATIONS, Fragments, tolerations_signer
from ..framework.status import Status
from ..objects import Pod, Taint
from .helper import NodeLocalFilter, signatures_for

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


class NodeUnschedulable(NodeLocalFilter):
    NAME = NAME
    REASON = ERR_REASON_UNSCHEDULABLE
    __slots__ = ()

    def fits(self, pod: Pod, node_info: NodeInfo) -> bool:
        return not node_info.node.unschedulable or tolerates_unschedulable(pod)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        if tolerates_unschedulable(pod):
            return np.ones(len(nodes), dtype=bool)
        tab, rows = signatures_for(self.handle, nodes)
        return ~tab.unschedulable[rows]

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its answers depend on the pod's tolerations."""
        return [(TOLERATIONS, tolerations_signer(pod))], None


PLUGIN = NodeUnschedulable
new = NodeUnschedulable.new
