"""A vectorised view of a snapshot's node resources (numpy), for batch filters and scores.

One row per node, in the snapshot's node order (``NodeInfo.index``); one column
per resource: ``cpu`` (millicores), ``memory``, ``ephemeral-storage``, then every
scalar resource any node advertises or any placed pod requests.  Besides
allocatable and requested it keeps the non-zero requested cpu/memory (what
scoring counts for pods without requests), the number of pods and the number
allowed.

The table is built on first use per :class:`Snapshot` and kept in
``snapshot.extensions``; it registers a listener so that every
``Snapshot.add_pod``/``remove_pod`` rewrites the changed node's row.  Resources
nobody has seen are read as a column of zeros (:meth:`NodeTable.allocatable_of`),
so a pod asking for ``example.com/foo`` that no node has simply fails everywhere.

The per-node plugin methods stay the reference; the batch paths read these
arrays and must agree with them exactly.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np

from ..objects.resources import CPU, EPHEMERAL_STORAGE, MEMORY
from .snapshot import STEADY_EXTENSIONS

if TYPE_CHECKING:  # pragma: no cover
    from .node_info import NodeInfo
    from .snapshot import Snapshot

__all__ = [
    "EXTENSION_KEY",
    "NodeTable",
    "RowsMemo",
    "SnapshotTable",
    "rows_in",
    "snapshot_table",
    "table_for_nodes",
]

EXTENSION_KEY = "NodeTable"
STEADY_EXTENSIONS.add(EXTENSION_KEY)

_FIXED = (CPU, MEMORY, EPHEMERAL_STORAGE)
_INDEX = operator.attrgetter("index")
_NODE = operator.attrgetter("node")


def snapshot_table(snapshot: Snapshot, key: str, build: Callable[[Sequence[NodeInfo]], Any]) -> Any:
    """The per-snapshot table under ``key``: built from the node list on first use
    and subscribed (its ``refresh``) to the snapshot's changes."""
    table = snapshot.extensions.get(key)
    if table is None:
        table = snapshot.extensions[key] = build(snapshot.node_info_list)
        snapshot.listeners.append(table.refresh)
    return table


def table_for_nodes(
    snapshot: Snapshot | None,
    nodes: Sequence[NodeInfo],
    key: str,
    build: Callable[[Sequence[NodeInfo]], Any],
) -> tuple[Any, np.ndarray]:
    """The snapshot's table under ``key`` and the rows of ``nodes`` in it.

    Nodes that are not the snapshot's own node infos (copies made for
    preemption, or no snapshot at all) get a throw-away table of their own,
    so the batch result is still right for exactly those objects. The table
    keeps its :class:`RowsMemo` as ``row_memo``.
    """
    if snapshot is not None:
        table = snapshot_table(snapshot, key, build)
        idx = table.row_memo.rows(table.node_infos, nodes)
        if idx is not None:
            return table, idx
    return build(nodes), np.arange(len(nodes), dtype=np.intp)


def rows_in(
    own: Sequence[NodeInfo], nodes: Sequence[NodeInfo], by_node: bool = False
) -> np.ndarray | None:
    """Rows of ``nodes`` in ``own`` (a snapshot's node infos), or None when one is not there.

    A node is there when ``own`` holds it at its ``index``: the same NodeInfo,
    or with ``by_node`` the same Node (a clone preemption made keeps node and
    index).
    """
    k = len(nodes)
    if nodes is own:
        return np.arange(k, dtype=np.intp)
    idx = np.fromiter(map(_INDEX, nodes), dtype=np.intp, count=k)
    if k == 0:
        return idx
    if int(idx.min()) < 0 or int(idx.max()) >= len(own):
        return None
    mapped = list(map(own.__getitem__, idx.tolist()))
    # the snapshot's own infos (the usual case) match whichever way is asked
    if all(map(operator.is_, mapped, nodes)):
        return idx
    if by_node and all(map(operator.is_, map(_NODE, mapped), map(_NODE, nodes))):
        return idx
    return None


class RowsMemo:
    """:func:`rows_in` remembering its last answer: several plugins ask for the
    same feasible list one after the other in a cycle (checked by identity and
    ends, in case the list object was reused)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[Any, np.ndarray, Any, Any] | None = None

    def rows(
        self, own: Sequence[NodeInfo], nodes: Sequence[NodeInfo], by_node: bool = False
    ) -> np.ndarray | None:
        k = len(nodes)
        last = self._last
        if (
            last is not None
            and last[0] is nodes
            and len(last[1]) == k
            and (k == 0 or (last[2] is nodes[0] and last[3] is nodes[-1]))
        ):
            return last[1]
        idx = rows_in(own, nodes, by_node)
        if idx is not None and k:
            self._last = (nodes, idx, nodes[0], nodes[-1])
        return idx


class SnapshotTable:
    """Rows of per-node figures kept in step with a snapshot: one table per snapshot,
    in its extensions under ``KEY``, its ``refresh`` subscribed to the snapshot's
    changes and its ``row_memo`` finding the rows of a node list."""

    __slots__ = ()
    KEY: ClassVar[str]

    @classmethod
    def of(cls, snapshot: Snapshot) -> Self:
        """The snapshot's table, built (and subscribed to changes) on first use."""
        table: Self = snapshot_table(snapshot, cls.KEY, cls)
        return table

    @classmethod
    def for_nodes(
        cls, snapshot: Snapshot | None, nodes: Sequence[NodeInfo]
    ) -> tuple[Self, np.ndarray | slice]:
        """The table holding ``nodes`` and their rows, in the order given (a
        throw-away table for foreign infos: :func:`table_for_nodes`)."""
        table, rows = table_for_nodes(snapshot, nodes, cls.KEY, cls)
        return table, rows


class NodeTable(SnapshotTable):
    """Resource matrices ``[nodes x resources]`` (int64) kept in step with a snapshot."""

    KEY = EXTENSION_KEY

    __slots__ = (
        "_zeros",
        "allocatable",
        "allowed_pods",
        "columns",
        "names",
        "node_infos",
        "non_zero_cpu",
        "non_zero_memory",
        "pod_count",
        "requested",
        "row_memo",
    )

    def __init__(self, node_infos: Sequence[NodeInfo]) -> None:
        self.node_infos: list[NodeInfo] = list(node_infos)
        n = len(self.node_infos)
        names: list[str] = list(_FIXED)
        seen = set(names)
        for ni in self.node_infos:
            for k in ni.node.allocatable.scalar:
                if k not in seen:
                    seen.add(k)
                    names.append(k)
            for k in ni.requested.scalar:
                if k not in seen:
                    seen.add(k)
                    names.append(k)
        self.names: list[str] = names
        self.columns: dict[str, int] = {k: i for i, k in enumerate(names)}
        r = len(names)
        # Built row-wise through Python lists: one np.array call is far cheaper
        # than 5,000 small row assignments.
        alloc_rows: list[list[int]] = []
        req_rows: list[list[int]] = []
        nz_cpu: list[int] = []
        nz_mem: list[int] = []
        count: list[int] = []
        allowed: list[int] = []
        scalar_names = names[3:]
        for ni in self.node_infos:
            a = ni.node.allocatable
            q = ni.requested
            if scalar_names:
                asc, qsc = a.scalar, q.scalar
                alloc_rows.append(
                    [a.milli_cpu, a.memory, a.ephemeral_storage]
                    + [asc.get(k, 0) for k in scalar_names]
                )
                req_rows.append(
                    [q.milli_cpu, q.memory, q.ephemeral_storage]
                    + [qsc.get(k, 0) for k in scalar_names]
                )
            else:
                alloc_rows.append([a.milli_cpu, a.memory, a.ephemeral_storage])
                req_rows.append([q.milli_cpu, q.memory, q.ephemeral_storage])
            nz = ni.non_zero_requested
            nz_cpu.append(nz.milli_cpu)
            nz_mem.append(nz.memory)
            count.append(len(ni.pods))
            allowed.append(a.allowed_pod_number)
        shape = (n, r)
        self.allocatable = np.array(alloc_rows, dtype=np.int64).reshape(shape)
        self.requested = np.array(req_rows, dtype=np.int64).reshape(shape)
        self.non_zero_cpu = np.array(nz_cpu, dtype=np.int64)
        self.non_zero_memory = np.array(nz_mem, dtype=np.int64)
        self.pod_count = np.array(count, dtype=np.int64)
        self.allowed_pods = np.array(allowed, dtype=np.int64)
        self._zeros = np.zeros(n, dtype=np.int64)
        self.row_memo = RowsMemo()

    # -- construction and lookup ------------------------------------------------
    @classmethod
    def for_nodes(
        cls, snapshot: Snapshot | None, nodes: Sequence[NodeInfo]
    ) -> tuple[Self, np.ndarray | slice]:
        """As :meth:`SnapshotTable.for_nodes`, and ``slice(None)`` when ``nodes`` is
        the snapshot's whole node list (indexing then returns views, not copies)."""
        if snapshot is not None and nodes is snapshot.node_info_list:
            table = cls.of(snapshot)
            if len(nodes) == len(table.node_infos):
                return table, slice(None)
        # Fit and BalancedAllocation score the same feasible list one after the other
        return super().for_nodes(snapshot, nodes)

    def __len__(self) -> int:
        return len(self.node_infos)

    def column(self, name: str) -> int | None:
        return self.columns.get(name)

    def allocatable_of(self, name: str) -> np.ndarray:
        """Allocatable of one resource for every node (zeros when never seen)."""
        c = self.columns.get(name)
        return self._zeros if c is None else self.allocatable[:, c]

    def requested_of(self, name: str) -> np.ndarray:
        """Requested amount of one resource on every node (zeros when never seen)."""
        c = self.columns.get(name)
        return self._zeros if c is None else self.requested[:, c]

    # -- keeping in step ----------------------------------------------------------
    def _add_column(self, name: str) -> int:
        c = len(self.names)
        self.names.append(name)
        self.columns[name] = c
        n = len(self.node_infos)
        extra = np.zeros((n, 1), dtype=np.int64)
        self.allocatable = np.hstack((self.allocatable, extra))
        self.requested = np.hstack((self.requested, extra.copy()))
        return c

    def refresh(self, ni: NodeInfo) -> None:
        """Rewrite the row of ``ni`` (a snapshot listener)."""
        i = ni.index
        if not (0 <= i < len(self.node_infos)) or self.node_infos[i] is not ni:
            return
        q = ni.requested
        row = self.requested[i]
        row[0] = q.milli_cpu
        row[1] = q.memory
        row[2] = q.ephemeral_storage
        if q.scalar or len(self.names) > 3:
            cols = self.columns
            for k, v in q.scalar.items():
                c = cols.get(k)
                if c is None:
                    if not v:
                        continue
                    c = self._add_column(k)
                    row = self.requested[i]
                row[c] = v
            # scalars that dropped out of the node's map are zero now
            for k, c in cols.items():
                if c >= 3 and k not in q.scalar:
                    row[c] = 0
        nz = ni.non_zero_requested
        self.non_zero_cpu[i] = nz.milli_cpu
        self.non_zero_memory[i] = nz.memory
        self.pod_count[i] = len(ni.pods)
