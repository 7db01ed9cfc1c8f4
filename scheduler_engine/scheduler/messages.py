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
    "DroppedStatuses",
    "FitError",
    "FitSummary",
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


class DroppedStatuses(NodeToStatus):
    """A compacted diagnosis's node map: the per-node statuses are gone, ``absent`` stays.

    Reading them is a bug (whatever reads them after the attempt must read the
    :class:`FitError`'s kept summary instead), so it raises.
    """

    __slots__ = ()

    def __init__(self, absent: Status) -> None:
        self.absent = absent

    @property
    def statuses(self) -> dict[str, Status]:  # type: ignore[override]
        raise RuntimeError("the per-node statuses of a finished attempt were dropped")


@dataclass(frozen=True, slots=True)
class FitSummary:
    """What is read of a FitError once its attempt is over: the message and the
    reason histograms (every node; Unschedulable nodes only), see :meth:`FitError.compact`."""

    message: str
    histogram: dict[str, int]
    resolvable: dict[str, int]


@dataclass
class FitError(Exception):
    """No node fits the pod; ``str()`` is upstream's ``FitError.Error()``."""

    pod_key: str
    num_all_nodes: int
    diagnosis: Diagnosis
    # set by compact(): the message and histograms, kept instead of the per-node statuses
    summary: FitSummary | None = None

    def __str__(self) -> str:
        return self.error()

    def error(self) -> str:
        if self.summary is not None:
            return self.summary.message
        return self._message(None)

    def _message(self, histogram: dict[str, int] | None) -> str:
        d = self.diagnosis
        if d.pre_filter_msg:
            msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + f": {d.pre_filter_msg}."
        elif histogram is not None:
            msg = _histogram_message(self.num_all_nodes, histogram)
        else:
            msg = fit_error_message(self.num_all_nodes, d.node_to_status)
        if d.post_filter_msg:
            msg += " " + d.post_filter_msg
        return msg

    def reason_counts(self) -> tuple[dict[str, int], dict[str, int]]:
        """(reason → nodes over every node, as the message counts them; reason → nodes
        whose status is Unschedulable, a shortfall that can change)."""
        if self.summary is not None:
            return self.summary.histogram, self.summary.resolvable
        m = self.diagnosis.node_to_status
        counts: dict[str, int] = {}
        resolvable: dict[str, int] = {}
        unschedulable = Code.UNSCHEDULABLE
        for st in m.statuses.values():
            for r in st.reasons:
                counts[r] = counts.get(r, 0) + 1
            if st.code == unschedulable:
                for r in st.reasons:
                    resolvable[r] = resolvable.get(r, 0) + 1
        _add_absent(counts, m, self.num_all_nodes)
        return counts, resolvable

    def compact(self) -> None:
        """Keep what is read once the attempt is final (message, histograms, rejector
        plugins, PreFilter and PostFilter messages) and drop the status per node.

        For a run that does not explain: a pod rejected by thousands of nodes
        otherwise holds a Status for each until the run ends.
        """
        if self.summary is not None:
            return
        d = self.diagnosis
        histogram, resolvable = self.reason_counts()
        self.summary = FitSummary(self._message(histogram), histogram, resolvable)
        self.diagnosis = Diagnosis(
            DroppedStatuses(d.node_to_status.absent),
            d.unschedulable_plugins,
            d.pending_plugins,
            d.pre_filter_msg,
            d.post_filter_msg,
        )
        # BaseException.__new__ keeps the constructor's arguments, the old diagnosis among them
        self.args = (self.pod_key, self.num_all_nodes, self.diagnosis)


def reason_histogram(m: NodeToStatus, num_all_nodes: int) -> dict[str, int]:
    """Reason → number of nodes, explicit statuses plus the absent nodes' shared status."""
    counts: dict[str, int] = {}
    for status in m.statuses.values():
        for r in status.reasons:
            counts[r] = counts.get(r, 0) + 1
    _add_absent(counts, m, num_all_nodes)
    return counts


def _add_absent(counts: dict[str, int], m: NodeToStatus, num_all_nodes: int) -> None:
    absent = num_all_nodes - len(m.statuses)
    if absent > 0:
        for r in m.absent.reasons:
            counts[r] = counts.get(r, 0) + absent


def fit_error_message(num_all_nodes: int, statuses: NodeToStatus) -> str:
    """``FitError.Error()`` without PreFilter or PostFilter parts.

    Every reason of every listed node counts once; nodes not listed count
    under the absent status's reasons; ``<count> <reason>`` strings are
    sorted as strings.
    """
    return _histogram_message(num_all_nodes, reason_histogram(statuses, num_all_nodes))


def _histogram_message(num_all_nodes: int, histogram: dict[str, int]) -> str:
    msg = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    parts = sorted(f"{v} {k}" for k, v in histogram.items())
    if parts:
        msg += " " + ", ".join(parts) + "."
    return msg


def truncate_message(message: str) -> str:
    """Events carry at most 1024 bytes; upstream cuts longer messages with `` ...``."""
    if len(message) <= NOTE_LENGTH_LIMIT:
        return message
    suffix = " ..."
    return message[: NOTE_LENGTH_LIMIT - len(suffix)] + suffix
