"""The ``FailedScheduling`` message, byte for byte (upstream ``framework.FitError``).

``0/N nodes are available: `` then either the PreFilter message (when a
PreFilter rejected the pod, every node shares that status and the histogram
is left out) or the histogram of filter reasons — ``<count> <reason>``
strings sorted as strings and joined with ``, `` — then ``.`` and, when a
PostFilter spoke, a space and its message (``no new claims to deallocate,
preemption: ...``).  Nodes a PreFilter excluded count under the shared
"absent" status (``node(s) didn't satisfy plugin(s) [NodeAffinity]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..framework.interfaces import NodeToStatus
from ..framework.status import Code, Status

__all__ = [
    "NOTE_LENGTH_LIMIT",
    "NO_NODE_AVAILABLE_MSG",
    "Diagnosis",
    "FitError",
    "fit_error_message",
    "truncate_message",
]

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
# events' note length limit (validation.NoteLengthLimit)
NOTE_LENGTH_LIMIT = 1024


@dataclass
class Diagnosis:
    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

    def add_plugin_status(self, status: Status) -> None:
        if not status.plugin:
            return
        if status.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING):
            self.unschedulable_plugins.add(status.plugin)
        if status.code == Code.PENDING:
            self.pending_plugins.add(status.plugin)


@dataclass
class FitError(Exception):
    """No node fits the pod; ``str()`` is upstream's ``FitError.Error()``."""

    pod_key: str
    num_all_nodes: int
    diagnosis: Diagnosis

    def __str__(self) -> str:
        return self.error()

    def error(self) -> str:
        d = self.diagnosis
        if d.pre_filter_msg:
            msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + f": {d.pre_filter_msg}."
        else:
            msg = fit_error_message(self.num_all_nodes, d.node_to_status)
        if d.post_filter_msg:
            msg += " " + d.post_filter_msg
        return msg


def reason_histogram(m: NodeToStatus, num_all_nodes: int) -> dict[str, int]:
    """Reason → number of nodes, explicit statuses plus the absent nodes' shared status."""
    counts: dict[str, int] = {}
    for status in m.statuses.values():
        for r in status.reasons:
            counts[r] = counts.get(r, 0) + 1
    absent = num_all_nodes - len(m)
    if absent > 0:
        for r in m.absent.reasons:
            counts[r] = counts.get(r, 0) + absent
    return counts


def fit_error_message(num_all_nodes: int, statuses: NodeToStatus) -> str:
    """``FitError.Error()`` without PreFilter or PostFilter parts.

    Every reason of every listed node counts once; nodes not listed count
    under the absent status's reasons; ``<count> <reason>`` strings are
    sorted as strings.
    """
    msg = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    parts = sorted(f"{v} {k}" for k, v in reason_histogram(statuses, num_all_nodes).items())
    if parts:
        msg += " " + ", ".join(parts) + "."
    return msg


def truncate_message(message: str) -> str:
    """Events carry at most 1024 bytes; upstream cuts longer messages with `` ...``."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    suffix = " ..."
    return message[: NOTE_LENGTH_LIMIT - len(suffix)] + suffix
