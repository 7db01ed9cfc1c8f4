"""DynamicResources: ResourceClaims (DRA) — for now only the path of pods without claims.

Extension points: PreEnqueue, PreFilter, Filter, PostFilter, Score (with
NormalizeScore), Reserve/Unreserve, PreBind.  Upstream counterpart:
``pkg/scheduler/framework/plugins/dynamicresources`` (kube-scheduler v1.36),
in the default profile with score weight 2 and its PostFilter *before*
DefaultPreemption.

Pods without ResourceClaims go through it exactly as upstream's fast path:
PreFilter stores an empty state and returns Skip (so Filter is not called),
Score gives 0 on every node, and PostFilter answers Unschedulable with
``no new claims to deallocate`` — which the runtime joins before the
preemption message.  When this plugin's PreFilter never ran (an earlier
PreFilter rejected the pod outright) its PostFilter finds no state and fails
with upstream's ``not found`` error, the tail of messages such as
``0/6 nodes are available: persistentvolumeclaim "data-0" not found. not found``.

Pods *with* ResourceClaims are not supported yet: PreFilter reports an error
that says so, and such pods are never placed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState, StateData
from ..framework.interfaces import Handle, NodeScore, NodeToStatus, PostFilterResult
from ..framework.node_info import NodeInfo
from ..framework.status import Code, Status
from ..objects import Pod

__all__ = [
    "ERR_NOT_SUPPORTED",
    "MSG_NO_NEW_CLAIMS",
    "MSG_STILL_NOT_SCHEDULABLE",
    "NAME",
    "PLUGIN",
    "STATE_KEY",
    "DynamicResources",
    "new",
]

NAME = "DynamicResources"
# upstream's stateKey is the plugin name
STATE_KEY = NAME

MSG_NO_NEW_CLAIMS = "no new claims to deallocate"
MSG_STILL_NOT_SCHEDULABLE = "still not schedulable"
# upstream's framework.ErrNotFound, what CycleState.Read fails with
ERR_STATE_NOT_FOUND = "not found"
ERR_NOT_SUPPORTED = (
    "scheduling pods with ResourceClaims (dynamic resource allocation) is not supported yet"
)


class _State(StateData):
    """What PreFilter learnt about the pod's claims (none, for now)."""

    __slots__ = ("claims",)

    def __init__(self, claims: tuple[Mapping[str, Any], ...] = ()) -> None:
        self.claims = claims

    def clone(self) -> _State:
        return self


class DynamicResources:
    NAME = NAME

    def __init__(self, args: Mapping[str, Any], handle: Handle) -> None:
        self.handle = handle
        self.args = dict(args)

    # PreEnqueue: upstream holds back pods whose claims do not exist yet; pods
    # without claims always pass.
    def pre_enqueue(self, pod: Pod) -> Status | None:
        return None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[None, Status | None]:
        state.write(STATE_KEY, _State())
        if not pod.resource_claims:
            return None, Status(Code.SKIP)
        return None, Status(Code.ERROR, ERR_NOT_SUPPORTED)

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        return np.ones(len(nodes), dtype=bool)

    def post_filter(
        self, state: CycleState, pod: Pod, filtered: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        s = state.get(STATE_KEY)
        if s is None:
            return None, Status(Code.ERROR, ERR_STATE_NOT_FOUND)
        if not s.claims:
            return None, Status(Code.UNSCHEDULABLE, MSG_NO_NEW_CLAIMS)
        return None, Status(Code.UNSCHEDULABLE, MSG_STILL_NOT_SCHEDULABLE)

    # Score: 0 for pods without claims (and there is no PreScore to skip it).
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int:
        return 0

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        return np.zeros(len(nodes), dtype=np.int64)

    def score_extensions(self) -> DynamicResources:
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        # upstream's DefaultNormalizeScore: scale to 0..100 by the highest score
        top = max((s.score for s in scores), default=0)
        if top == 0:
            return None
        for s in scores:
            s.score = 100 * s.score // top
        return None

    def normalize_score_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> None:
        top = int(scores.max()) if len(scores) else 0
        if top:
            scores *= 100
            scores //= top
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        return None

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None


PLUGIN = DynamicResources


def new(args: Mapping[str, Any], handle: Handle) -> DynamicResources:
    return DynamicResources(args, handle)
