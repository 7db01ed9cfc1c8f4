"""NodeResourcesBalancedAllocation: PreScore, Score.

Upstream counterpart: ``pkg/scheduler/framework/plugins/noderesources/balanced_allocation.go``.

Favours nodes whose resource use stays balanced once the pod is placed.  The
balance of a node is ``(1 - std) * MaxNodeScore`` over the used fractions of
the configured resources (each capped at 1; with two resources the "std" is
half their difference).  v1.36 scores the change the pod brings::

    MaxNodeScore/2 + (MaxNodeScore/2 + balance_with_pod - balance_without_pod) / 2

in Go integer arithmetic.  Requests are the actual ones (``useRequested``: no
100m/200Mi defaults), and PreScore returns Skip for a pod that requests none
of the configured resources, so the plugin then does not score at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interfaces import BasePlugin, Handle
from ...framework.node_info import NodeInfo
from ...framework.node_table import NodeTable
from ...framework.signers import Fragments
from ...framework.status import Code, Status
from ...objects import Pod
from ..helper import snapshot_of
from .fit import dra_extended_resources, sign_requests
from .resource_allocation import (
    PodRequestsState,
    ResourceSpec,
    balanced_resource_batch,
    balanced_resource_scorer,
    node_allocatable_request,
    parse_resources,
    pod_request_list,
    table_allocatable_request,
)

__all__ = ["NAME", "PLUGIN", "PRE_SCORE_STATE_KEY", "BalancedAllocation", "new"]

NAME = "NodeResourcesBalancedAllocation"
PRE_SCORE_STATE_KEY = "PreScore" + NAME


class BalancedAllocation(BasePlugin):
    NAME = NAME
    # answers from the pod's spec and that one node alone (framework/node_memo.py)
    node_local_score = True

    def __init__(self, args: Mapping[str, Any], handle: Handle | None) -> None:
        self.handle = handle
        self.resources: tuple[ResourceSpec, ...] = parse_resources(args.get("resources"))
        self._device_classes: dict[str, str] | None = None

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its score depends on the pod's request."""
        if self._device_classes is None:
            self._device_classes = dra_extended_resources(self.handle)
        return sign_requests(pod, self._device_classes)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        pod_requests = pod_request_list(pod, self.resources, True)
        if not any(pod_requests):
            # a best-effort pod cannot change any node's balance
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, PodRequestsState(pod_requests))
        return None

    def _pod_requests(self, state: CycleState, pod: Pod) -> list[int] | None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is not None:
            return s.pod_requests
        pod_requests = pod_request_list(pod, self.resources, True)
        return pod_requests if any(pod_requests) else None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        pod_requests = self._pod_requests(state, pod)
        if pod_requests is None:
            return 0
        requested, allocated, allocatable = node_allocatable_request(
            node_info, self.resources, pod_requests, True
        )
        return balanced_resource_scorer(requested, allocated, allocatable)

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """Raw scores, equal to :meth:`score` node by node."""
        pod_requests = self._pod_requests(state, pod)
        if pod_requests is None:
            return np.zeros(len(nodes), dtype=np.int64)
        table, rows = NodeTable.for_nodes(snapshot_of(self.handle), nodes)
        entries = table_allocatable_request(table, rows, self.resources, pod_requests, True)
        return balanced_resource_batch(entries, len(nodes))


PLUGIN = BalancedAllocation


def new(args: Mapping[str, Any], handle: Handle) -> BalancedAllocation:
    return BalancedAllocation(args, handle)
