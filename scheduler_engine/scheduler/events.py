"""The events kube-scheduler records on pods, with upstream's exact text.

What ``kubectl describe pod`` shows under Events for the scheduler's part:
``FailedScheduling`` (Warning) after every failed attempt, carrying the
attempt's message cut to the events' note limit; ``Scheduled`` (Normal) on
bind; ``Preempted`` (Normal) on each victim of a preemption, naming the
preemptor by UID.  Pods the scheduler never attempts (PreEnqueue) get none;
their ``PodScheduled`` condition, where the API server set one, is what
:func:`pre_enqueue_message` returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .messages import truncate_message

if TYPE_CHECKING:  # pragma: no cover
    from ..objects import Pod

__all__ = [
    "MSG_SCHEDULING_GATED",
    "NORMAL",
    "REASON_FAILED_SCHEDULING",
    "REASON_PREEMPTED",
    "REASON_SCHEDULED",
    "WARNING",
    "Event",
    "failed_scheduling",
    "pre_enqueue_message",
    "preempted",
    "scheduled",
]

Event = dict[str, str]

NORMAL = "Normal"
WARNING = "Warning"
REASON_FAILED_SCHEDULING = "FailedScheduling"
REASON_SCHEDULED = "Scheduled"
REASON_PREEMPTED = "Preempted"

# the PodScheduled condition the API server puts on a pod created with gates
# (pod strategy applySchedulingGatedCondition)
MSG_SCHEDULING_GATED = "Scheduling is blocked due to non-empty scheduling gates"


def failed_scheduling(message: str) -> Event:
    return {
        "type": WARNING,
        "reason": REASON_FAILED_SCHEDULING,
        "message": truncate_message(message),
    }


def scheduled(pod: Pod, node: str) -> Event:
    return {
        "type": NORMAL,
        "reason": REASON_SCHEDULED,
        "message": f"Successfully assigned {pod.namespace}/{pod.name} to {node}",
    }


def preempted(preemptor: Pod, node: str) -> Event:
    # the preemption executor names the preemptor's kind ("pod") and UID
    return {
        "type": NORMAL,
        "reason": REASON_PREEMPTED,
        "message": f"Preempted by pod {preemptor.uid} on node {node}",
    }


def preempted_by_pod_group(pod_group: Mapping[str, Any]) -> Event:
    # workload-aware preemption: the preemptor is the PodGroup, the candidate "cluster"
    uid = (pod_group.get("metadata") or {}).get("uid") or ""
    return {
        "type": NORMAL,
        "reason": REASON_PREEMPTED,
        "message": f"Preempted by podgroup {uid} on node cluster",
    }


def pre_enqueue_message(pod: Pod) -> str | None:
    """The ``PodScheduled`` condition message of a pod that never reaches the queue.

    A condition already on the pod stays (the API server adds the gated one
    only when none exists); a gated pod without one gets the API server's;
    anything else held back by PreEnqueue (claims not created yet) has none.
    """
    status = pod.raw.get("status") if isinstance(pod.raw, Mapping) else None
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    for c in conditions if isinstance(conditions, list) else ():
        if isinstance(c, Mapping) and c.get("type") == "PodScheduled":
            msg = c.get("message")
            return str(msg) if msg else None
    if pod.scheduling_gates:
        return MSG_SCHEDULING_GATED
    return None
