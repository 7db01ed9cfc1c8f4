"""Per-node filter verdicts and raw scores kept across cycles for pods with the same spec.

Members of a gang (and the replicas of any controller) share one pod spec, and
between two of their cycles only the nodes a pod was added to or removed from
change.  A plugin that declares ``node_local_filter = True`` (or
``node_local_score = True``; :class:`~.interfaces.NodeLocalFilterPlugin`,
:class:`~.interfaces.NodeLocalScorePlugin`) promises that its Filter verdict (raw Score) of a
node depends on the pod's spec and status and on that node's
:class:`~.node_info.NodeInfo` alone: not on other nodes, nor on cluster objects
that change while a simulation runs.  For such plugins the runtime keeps one
value per node of the snapshot and per pod spec, computes it again (with the
plugin's per-node method) only for the nodes ``Snapshot.change_log`` names
since, and goes on exactly as if the vectorised method had answered: decisions
do not change.  Anything unexpected (a node list that is not the snapshot's, a
status other than a verdict, an exception) falls back to the plain call.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .cycle_state import CycleState
from .node_info import NodeInfo
from .node_table import rows_in
from .status import Code

if TYPE_CHECKING:  # pragma: no cover
    from ..objects import Pod
    from .snapshot import Snapshot

__all__ = ["FEASIBLE_ROWS", "NodeMemo", "filter_verdict", "pod_spec_signature", "score_value"]

# CycleState key: (feasible list, the list it was taken from, positions in that list)
FEASIBLE_ROWS = "framework/feasibleRows"
# Snapshot.extensions and Pod.cache key; the memo belongs to the snapshot, so a
# new snapshot (or the warm cluster clearing its extensions) starts afresh
_KEY = "framework/nodeMemo"
# (point, plugin, spec) triples kept; a gang or a replica set uses a few at a time
_ENTRIES = 64
# frameworks whose memos one snapshot keeps
_OWNERS = 4
# more changed nodes than this: one vectorised call over every node is cheaper
_PER_NODE = 16

# a per-node method's answer as the memo's value, None when the plain call must decide
One = Callable[[CycleState, "Pod", NodeInfo], Any]


def pod_spec_signature(pod: Pod) -> str:
    """The pod's spec and status as one string: equal for pods a node-local plugin cannot tell apart."""
    raw = pod.raw
    spec, status = raw.get("spec"), raw.get("status")
    known = pod.cache.get(_KEY)
    if known is not None and known[0] is spec and known[1] is status:
        return known[2]
    sig = json.dumps([spec, status], sort_keys=True, default=str)
    pod.cache[_KEY] = (spec, status, sig)
    return sig


def score_value(score: One) -> One:
    """A Score plugin's per-node method as a memo value (an int score, else None)."""

    def one(state: CycleState, pod: Pod, ni: NodeInfo) -> int | None:
        v = score(state, pod, ni)
        return v if type(v) is int else None

    return one


_VERDICTS = {
    Code.SUCCESS: True,
    Code.UNSCHEDULABLE: False,
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: False,
}


def filter_verdict(filt: One) -> One:
    """A Filter plugin's per-node method as a memo value (passes or not, else None)."""

    def one(state: CycleState, pod: Pod, ni: NodeInfo) -> bool | None:
        s = filt(state, pod, ni)
        return True if s is None else _VERDICTS.get(s.code)

    return one


class _Entry:
    __slots__ = ("pos", "values")

    def __init__(self, values: np.ndarray, pos: int) -> None:
        self.values = values
        self.pos = pos


class NodeMemo:
    """Per (point, plugin, pod spec): the value of every node of one snapshot."""

    def __init__(self, snapshot: Snapshot, owner: object) -> None:
        self.snapshot = snapshot
        self.nodes = snapshot.node_info_list
        self.owner = owner
        self.entries: OrderedDict[tuple[str, str, str], _Entry] = OrderedDict()
        self.every_row = np.arange(len(self.nodes), dtype=np.intp)
        # keys asked once for part of the nodes: kept for every node only when asked again
        self.seen: OrderedDict[tuple[str, str, str], None] = OrderedDict()

    @classmethod
    def of(cls, snapshot: Snapshot, owner: object) -> NodeMemo:
        """The memo ``owner`` (a framework) keeps in ``snapshot``."""
        memos = snapshot.extensions.setdefault(_KEY, {})
        memo = memos.get(id(owner))
        if memo is None or memo.owner is not owner or memo.nodes is not snapshot.node_info_list:
            memo = memos[id(owner)] = cls(snapshot, owner)
            # one snapshot run over by many simulations (what-if probes) keeps the newest few
            while len(memos) > _OWNERS:
                del memos[next(iter(memos))]
        return memo

    def rows(self, nodes: Sequence[NodeInfo], state: CycleState | None = None) -> np.ndarray | None:
        """Positions of ``nodes`` in the snapshot, or None when one of them is not its own."""
        own = self.nodes
        if nodes is own:
            return self.every_row
        known = state.get(FEASIBLE_ROWS) if state is not None else None
        if known is not None and known[0] is nodes and known[1] is own:
            return known[2]
        return rows_in(own, nodes)

    def values(
        self,
        key: tuple[str, str, str],
        rows: np.ndarray,
        state: CycleState,
        pod: Pod,
        one: One,
        many: Callable[[CycleState, Pod, Sequence[NodeInfo]], Any],
        dtype: Any,
    ) -> np.ndarray | None:
        """Values of the nodes at ``rows`` (``key``: point, plugin, spec); None: call the plugin."""
        log = self.snapshot.change_log
        entry = self.entries.get(key)
        try:
            if entry is None and rows is not self.every_row and key not in self.seen:
                # a spec seen once may never come back: the plain call over the
                # asked nodes is cheaper than one over every node
                self.seen[key] = None
                if len(self.seen) > _ENTRIES:
                    self.seen.popitem(last=False)
                return None
            if entry is None or entry.pos > len(log) or len(log) - entry.pos > _PER_NODE:
                values = np.array(many(state, pod, self.nodes), dtype=dtype)
                if values.shape != (len(self.nodes),):
                    return None
                entry = _Entry(values, len(log))
                self.entries[key] = entry
                if len(self.entries) > _ENTRIES:
                    self.entries.popitem(last=False)
            else:
                values = entry.values
                own = self.nodes
                for j in set(log[entry.pos :]):
                    v = one(state, pod, own[j])
                    if v is None:
                        del self.entries[key]
                        return None
                    values[j] = v
                entry.pos = len(log)
                self.entries.move_to_end(key)
        except Exception:
            self.entries.pop(key, None)
            return None
        return values.copy() if rows is self.every_row else values[rows]
