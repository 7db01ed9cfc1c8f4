"""The scheduling framework: statuses, cycle state, node infos, extension points."""

from __future__ import annotations

from .cycle_state import CycleState, StateData
from .interfaces import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    Handle,
    NodeScore,
    NodeToStatus,
    NominatingInfo,
    PostFilterResult,
    PreFilterResult,
    QueuedPodInfo,
)
from .node_info import HostPortInfo, ImageStateSummary, NodeInfo
from .snapshot import Snapshot
from .status import Code, Status, as_status, is_success

__all__ = [
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "Code",
    "CycleState",
    "Handle",
    "HostPortInfo",
    "ImageStateSummary",
    "NodeInfo",
    "NodeScore",
    "NodeToStatus",
    "NominatingInfo",
    "PostFilterResult",
    "PreFilterResult",
    "QueuedPodInfo",
    "Snapshot",
    "StateData",
    "Status",
    "as_status",
    "is_success",
]
