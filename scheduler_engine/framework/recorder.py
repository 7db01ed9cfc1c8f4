"""Explanations recorded at one hook: the runtime's per-plugin call.

One shape for everything: pod → extension point → node → plugin → value.
Extension points without a node (PreFilter, PostFilter, Reserve, Permit, ...)
use the node key ``""`` unless the call concerns a node (Reserve, Bind, ...:
the chosen node).  Values are plain JSON-able dicts:

* a status: ``{"code": "Unschedulable", "reasons": [...]}`` (``"Success"`` with
  no reasons for success; ``"plugin"`` is implied by the key);
* a score: ``{"raw": int, "normalized": int, "weighted": int}``;
* extras a point adds (PreFilter's node set, PostFilter's nominated node).

The runtime only records when a :class:`Recorder` is attached to the cycle
(``explain``), so the fast path pays nothing.  A filter pass over every node
is kept as it found the nodes (:class:`LazyFilters`) and each node's entry is
built when the pod's record is read: a retried pod's earlier attempt costs
no entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .outcomes import filter_status
from .status import Code, Status

__all__ = ["PASSED", "LazyFilters", "Recorder", "status_value"]

_SUCCESS = {"code": "Success", "reasons": []}
# A filter that passed a node, as the filter record holds it: one value shared
# by every entry (thousands per explanation), to be read and never changed.
PASSED: dict[str, Any] = {"code": "Success", "reasons": []}


def status_value(status: Status | None) -> dict[str, Any]:
    """A status as a recorded value."""
    if status is None:
        return dict(_SUCCESS)
    out: dict[str, Any] = {"code": status.code_name, "reasons": list(status.reasons)}
    if status.code == Code.ERROR and status.error is not None:
        out["error"] = f"{type(status.error).__name__}: {status.error}"
    if status.detail:
        out["detail"] = status.detail
    return out


class LazyFilters:
    """One filter pass's record of every node, as the pass found it.

    ``passes[f][j]`` True: filter ``f`` passed node ``j`` by its vectorised
    verdict; ``passes[-1][j]`` True: every filter did.  ``known[f][j]``: filter
    ``f``'s status on node ``j`` from its statuses over every node.  ``calls[j]``:
    the statuses of the filters called on node ``j``, in filter order.
    :meth:`values` builds node ``j``'s entry as the recorded per-node loop does.

    ``open``: the filters some node does not pass by its verdict, as ``(name,
    verdicts, statuses)``; the others are ``PASSED`` on every node.  Nodes whose
    entry needs no call share the values built for the same statuses (read,
    never changed, as ``PASSED`` is); each node has its own entry.
    """

    __slots__ = ("_built", "calls", "open", "passed", "passes")

    def __init__(
        self,
        names: Sequence[str],
        passes: Sequence[Sequence[bool] | None],
        known: Sequence[Sequence[Status | None] | None] | None,
        passed: dict[str, Any],
    ) -> None:
        self.passes = passes
        self.passed = passed
        self.calls: dict[int, list[Status | None]] = {}
        self.open: list[tuple[str, Sequence[bool] | None, Sequence[Status | None] | None]] = [
            (name, passes[f], known[f] if known is not None else None)
            for f, name in enumerate(names)
            if passes[f] is None or False in passes[f]
        ]
        self._built: dict[tuple[int, ...], dict[str, Any]] = {}

    def values(self, j: int) -> dict[str, Any]:
        every = self.passes[-1]
        if every is not None and every[j]:
            return dict(self.passed)
        calls = self.calls.get(j)
        if calls is not None:
            return self._build(j, calls)
        # no call: the entry is the statuses' (each open filter passed or has them)
        key = tuple(
            -1 if passed is not None and passed[j] else id(statuses[j])  # type: ignore[index]
            for _, passed, statuses in self.open
        )
        built = self._built.get(key)
        if built is None:
            built = self._built[key] = self._build(j, ())
        return dict(built)

    def _build(self, j: int, calls: Sequence[Status | None]) -> dict[str, Any]:
        out = dict(self.passed)
        called = iter(calls)
        for name, passed, statuses in self.open:
            if passed is not None and passed[j]:
                continue
            s = statuses[j] if statuses is not None else next(called)
            if s is None:
                continue
            if s.code != Code.SUCCESS:
                s = filter_status(s, name)
            out[name] = status_value(s)
        return out

    def build(self, per_node: dict[str, Any]) -> None:
        """Every node of ``per_node`` still kept here, built in place (in its place)."""
        values = self.values
        for node, v in per_node.items():
            if v.__class__ is int:
                per_node[node] = values(v)


class Recorder:
    """Per-plugin results of one run, keyed pod → point → node → plugin → value.

    ``lazy`` (the class default ``LAZY`` unless given): a filter pass over
    the nodes is kept as a :class:`LazyFilters` and the pod's ``"filter"``
    entries hold the node's position in it until the record is read
    (:meth:`pod_record`) or the node is recorded again (:meth:`filter_values`).
    """

    __slots__ = ("_kept", "_lazy", "data", "lazy")

    LAZY = True

    def __init__(self, lazy: bool | None = None) -> None:
        self.data: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
        self.lazy = self.LAZY if lazy is None else lazy
        self._lazy: dict[str, LazyFilters] = {}
        self._kept: dict[str, tuple[dict[str, Any], LazyFilters | None]] = {}

    def pod(self, pod_key: str) -> dict[str, dict[str, dict[str, Any]]]:
        return self.data.setdefault(pod_key, {})

    def record(self, pod_key: str, point: str, node: str, plugin: str, value: Any) -> None:
        self.data.setdefault(pod_key, {}).setdefault(point, {}).setdefault(node, {})[plugin] = value

    def get(self, pod_key: str, point: str) -> dict[str, dict[str, Any]]:
        return (self.pod_record(pod_key) or {}).get(point, {})

    def reset_pod(self, pod_key: str, keep: bool = False) -> None:
        """Forget a pod's earlier attempt (a retried pod is explained by its last attempt);
        ``keep``: set it aside as it is, its filter pass unbuilt, for :meth:`kept_record`
        (in place of any attempt set aside before)."""
        rec = self.data.pop(pod_key, None)
        block = self._lazy.pop(pod_key, None)
        if keep and rec is not None:
            self._kept[pod_key] = (rec, block)

    def kept_record(self, pod_key: str) -> dict[str, dict[str, dict[str, Any]]] | None:
        """The attempt last set aside by :meth:`reset_pod`, every node's filter entry
        built (None: none was)."""
        kept = self._kept.get(pod_key)
        if kept is None:
            return None
        rec, block = kept
        if block is not None:
            block.build(rec.get("filter", {}))
            self._kept[pod_key] = (rec, None)
        return rec

    def lazy_filters(self, pod_key: str, block: LazyFilters) -> dict[str, Any]:
        """Start keeping a filter pass as ``block``; the pod's ``"filter"`` entries,
        where the pass puts each node's position in it (or merges an entry already there)."""
        if pod_key in self._lazy:
            self.pod_record(pod_key)
        self._lazy[pod_key] = block
        return self.pod(pod_key).setdefault("filter", {})

    def filter_values(self, pod_key: str, node: str) -> dict[str, Any]:
        """The node's ``"filter"`` entry, to record into (built first if kept lazily)."""
        per_node = self.pod(pod_key).setdefault("filter", {})
        values = per_node.get(node)
        if values is None:
            values = per_node[node] = {}
        elif values.__class__ is int:
            values = per_node[node] = self._lazy[pod_key].values(values)
        return values

    def pod_record(self, pod_key: str) -> dict[str, dict[str, dict[str, Any]]] | None:
        """The pod's record with every node's filter entry built (None: nothing recorded)."""
        rec = self.data.get(pod_key)
        block = self._lazy.pop(pod_key, None)
        if block is not None and rec is not None:
            block.build(rec.get("filter", {}))
        return rec
