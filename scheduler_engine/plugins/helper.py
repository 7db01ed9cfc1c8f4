"""Helpers shared by several plugins.

* :func:`default_normalize_score` is upstream's
  ``pkg/scheduler/framework/plugins/helper.DefaultNormalizeScore``;
  :class:`DefaultNormalized` is the NormalizeScore of the plugins that use it.
* :class:`NodeLocalFilter` is the Filter of the plugins that judge a node from
  the pod's spec and that node alone, with one fixed reason.
* :class:`HandlePlugin` is the constructor and factory of the plugins that keep
  only their handle.
* :class:`UpdatedWithPods` is the PreFilterExtensions of the plugins whose
  AddPod and RemovePod are one update with +1 or -1.
* :func:`pod_group_state` reads a pod group's state as upstream's snapshot does.
* :class:`NodeSignatures` backs the vectorised ``filter_batch``/``score_batch``
  fast paths: many nodes carry identical labels (once the hostname label is
  set aside) and identical taints, so a per-pod check is evaluated once per
  distinct label set or taint set and broadcast to the nodes that share it.
  One table per snapshot lives in ``Snapshot.extensions``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

import numpy as np

from ..framework.cycle_state import CycleState
from ..framework.interfaces import MAX_NODE_SCORE, BasePlugin, NodeScore
from ..framework.node_info import NodeInfo
from ..framework.node_table import RowsMemo
from ..framework.snapshot import STEADY_EXTENSIONS
from ..framework.status import Code, Status
from ..gocompat import go_div
from ..objects import Node, Pod, Taint

if TYPE_CHECKING:  # pragma: no cover
    from ..framework.cycle_state import CycleState
    from ..framework.interfaces import Handle
    from ..framework.pod_group_state import PodGroupState
    from ..framework.snapshot import Snapshot

__all__ = [
    "HOSTNAME_LABEL",
    "DefaultNormalized",
    "HandlePlugin",
    "NodeLocalFilter",
    "NodeSignatures",
    "UpdatedWithPods",
    "default_normalize_score",
    "default_normalize_scores_array",
    "pod_group_state",
    "signatures_for",
    "snapshot_of",
]

HOSTNAME_LABEL = "kubernetes.io/hostname"
SIGNATURES_KEY = "plugins.helper.NodeSignatures"
STEADY_EXTENSIONS.add(SIGNATURES_KEY)


class HandlePlugin(BasePlugin):
    """A plugin that keeps its handle and takes no args: ``PLUGIN.new`` is its module's ``new``."""

    __slots__ = ("handle",)

    def __init__(self, handle: Handle | None = None) -> None:
        self.handle = handle

    @classmethod
    def new(cls, args: Mapping[str, Any], handle: Handle) -> Self:
        return cls(handle)


class UpdatedWithPods(BasePlugin):
    """PreFilterExtensions of a plugin whose PreFilter state follows the pods that
    preemption adds to or removes from a node: AddPod and RemovePod are one update
    with +1 or -1 of the state stored under ``PRE_FILTER_STATE`` (upstream's
    ``updateWithPod``), which the plugin writes as :meth:`_update_with_pod`."""

    __slots__ = ()
    PRE_FILTER_STATE: ClassVar[str]

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod_to_schedule, pod_to_add, node_info, 1)

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod_to_schedule, pod_to_remove, node_info, -1)

    def _update(
        self, state: CycleState, pod_to_schedule: Pod, pod: Pod, node_info: NodeInfo, delta: int
    ) -> Status | None:
        s = state.get(self.PRE_FILTER_STATE)
        if s is None:
            return self._missing_pre_filter_state()
        self._update_with_pod(s, pod_to_schedule, pod, node_info, delta)
        return None

    def _missing_pre_filter_state(self) -> Status | None:
        """What AddPod/RemovePod answer when PreFilter stored nothing (the plugin's words)."""
        raise NotImplementedError

    def _update_with_pod(
        self, s: Any, pod_to_schedule: Pod, pod: Pod, node_info: NodeInfo, delta: int
    ) -> None:
        raise NotImplementedError


def default_normalize_score(
    max_priority: int, reverse: bool, scores: list[NodeScore]
) -> Status | None:
    """Scale scores from [0, max(scores)] to [0, max_priority], optionally reversed.

    With every score 0 the scores stay 0, or all become ``max_priority`` when
    reversed.  Integer arithmetic as upstream (``max * score / maxCount``).
    """
    max_count = 0
    for s in scores:
        if s.score > max_count:
            max_count = s.score
    if max_count == 0:
        if reverse:
            for s in scores:
                s.score = max_priority
        return None
    for s in scores:
        score = go_div(max_priority * s.score, max_count)
        s.score = max_priority - score if reverse else score
    return None


def default_normalize_scores_array(max_priority: int, reverse: bool, scores: np.ndarray) -> None:
    """:func:`default_normalize_score` over an int64 array, in place."""
    if len(scores) == 0:
        return
    max_count = max(int(scores.max()), 0)
    if max_count == 0:
        if reverse:
            scores[:] = max_priority
        return
    num = max_priority * scores
    # Go truncates toward zero; floor division would round negative quotients down
    q = np.abs(num) // max_count
    q = np.where(num < 0, -q, q)
    scores[:] = max_priority - q if reverse else q


class DefaultNormalized(BasePlugin):
    """NormalizeScore by :func:`default_normalize_score` up to ``MAX_NODE_SCORE``.

    ``REVERSE_SCORES`` as upstream passes ``reverse``: NodeAffinity keeps the
    order, TaintToleration turns it around (fewer untolerated taints is better).
    """

    REVERSE_SCORES = False
    __slots__ = ()

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, self.REVERSE_SCORES, scores)

    def normalize_score_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> None:
        default_normalize_scores_array(MAX_NODE_SCORE, self.REVERSE_SCORES, scores)


class NodeLocalFilter(HandlePlugin):
    """A Filter that judges a node from the pod's spec and that node alone.

    A node the subclass's ``fits`` refuses is UnschedulableAndUnresolvable with
    the one reason ``REASON`` (NodeName, NodeUnschedulable, TaintToleration).
    ``node_local_filter`` lets the runtime remember answers per node
    (framework/node_memo.py); ``filter_reads_no_pods``, skip it when only the
    node's pods changed (``refilter_with_nominated_pods``).
    """

    NAME = ""
    REASON = ""
    node_local_filter = True
    filter_reads_no_pods = True
    __slots__ = ()

    def fits(self, pod: Pod, node_info: NodeInfo) -> bool:
        raise NotImplementedError

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if self.fits(pod, node_info):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, self.REASON)


def pod_group_state(handle: Handle | None, key: str) -> PodGroupState | Status:
    """The state of pod group ``key``, or the Error upstream's snapshot gives for an unknown one."""
    assert handle is not None
    st = handle.pod_group_states().get(key)
    if st is None:
        return Status(Code.ERROR, f"pod group state not found for pod group {key}")
    return st


# -- vectorised views --------------------------------------------------------------


class NodeSignatures:
    """Nodes of one snapshot grouped by identical labels (hostname aside) and taints.

    ``label_ids[row]`` / ``taint_ids[row]`` index ``label_reps`` / ``taint_sets``;
    a row is a node's position in the list the table was built from (for the
    snapshot's own table, ``NodeInfo.index``).
    """

    __slots__ = (
        "_image_scores",
        "_rows",
        "label_ids",
        "label_reps",
        "names",
        "node_infos",
        "nodes",
        "source",
        "taint_ids",
        "taint_sets",
        "unschedulable",
    )

    def __init__(self, node_infos: Sequence[NodeInfo]) -> None:
        # the list the table was built from: asked for as a whole, no lookup is needed
        self.source = node_infos
        self.node_infos = list(node_infos)
        self.nodes: list[Node] = [ni.node for ni in self.node_infos]
        label_index: dict[frozenset[tuple[str, str]], int] = {}
        taint_index: dict[tuple[Taint, ...], int] = {}
        # one representative node per distinct label set: it is evaluated for all
        self.label_reps: list[Node] = []
        self.taint_sets: list[tuple[Taint, ...]] = []
        n = len(self.nodes)
        label_ids = np.empty(n, dtype=np.intp)
        taint_ids = np.empty(n, dtype=np.intp)
        unsched = np.zeros(n, dtype=bool)
        for i, node in enumerate(self.nodes):
            key = frozenset(kv for kv in node.labels.items() if kv[0] != HOSTNAME_LABEL)
            lid = label_index.get(key)
            if lid is None:
                lid = label_index[key] = len(self.label_reps)
                self.label_reps.append(node)
            label_ids[i] = lid
            tid = taint_index.get(node.taints)
            if tid is None:
                tid = taint_index[node.taints] = len(self.taint_sets)
                self.taint_sets.append(node.taints)
            taint_ids[i] = tid
            unsched[i] = node.unschedulable
        self.label_ids = label_ids
        self.taint_ids = taint_ids
        self.unschedulable = unsched
        self.names = [node.name for node in self.nodes]
        self._image_scores: dict[tuple[str, int], np.ndarray] = {}
        self._rows = RowsMemo()

    def __len__(self) -> int:
        return len(self.nodes)

    def rows(self, nodes: Sequence[NodeInfo]) -> np.ndarray | None:
        """Rows of ``nodes`` in this table; None when a node is not in it."""
        if nodes is self.source and len(nodes) == len(self.nodes):
            return np.arange(len(nodes), dtype=np.intp)
        # several plugins ask for the same list in one cycle; a clone keeps its node and index
        return self._rows.rows(self.node_infos, nodes, by_node=True)

    def by_label_set(
        self, rows: np.ndarray, check: Callable[[Node], Any], dtype: Any
    ) -> np.ndarray:
        """``check(node)`` evaluated once per distinct label set, for ``rows``."""
        ids = self.label_ids[rows]
        return self._broadcast(ids, self.label_reps, check, dtype)

    def by_taint_set(
        self, rows: np.ndarray, check: Callable[[tuple[Taint, ...]], Any], dtype: Any
    ) -> np.ndarray:
        """``check(taints)`` evaluated once per distinct taint set, for ``rows``."""
        ids = self.taint_ids[rows]
        return self._broadcast(ids, self.taint_sets, check, dtype)

    @staticmethod
    def _broadcast(
        ids: np.ndarray, reps: Sequence[Any], check: Callable[[Any], Any], dtype: Any
    ) -> np.ndarray:
        if len(reps) == 1 or len(ids) == 0:
            value = check(reps[0]) if reps else dtype(0)
            return np.full(len(ids), value, dtype=dtype)
        used = np.flatnonzero(np.bincount(ids, minlength=len(reps)))
        table = np.zeros(len(reps), dtype=dtype)
        for sid in used.tolist():
            table[sid] = check(reps[sid])
        return table[ids]

    def image_scores(self, image: str, total: int, scaled: Callable[[Any, int], int]) -> np.ndarray:
        """Per row: ``scaled(state, total)`` of ``image`` on the node, 0 where absent."""
        key = (image, total)
        arr = self._image_scores.get(key)
        if arr is None:
            arr = np.zeros(len(self.nodes), dtype=np.int64)
            for i, ni in enumerate(self.node_infos):
                st = ni.image_states.get(image)
                if st is not None:
                    arr[i] = scaled(st, total)
            self._image_scores[key] = arr
        return arr


def snapshot_of(handle: Handle | None) -> Snapshot | None:
    """The handle's snapshot; None without a handle or one that has none (unit tests)."""
    if handle is None:
        return None
    try:
        return handle.snapshot()
    except (AttributeError, NotImplementedError):
        return None


def signatures_for(
    handle: Handle | None, nodes: Sequence[NodeInfo]
) -> tuple[NodeSignatures, np.ndarray]:
    """The snapshot's table and the rows of ``nodes`` in it.

    Falls back to a table of ``nodes`` alone when there is no snapshot or the
    nodes are not its own (clones made for preemption keep node and index, so
    they still map).
    """
    snap: Snapshot | None = None
    if handle is not None:
        try:
            snap = handle.snapshot()
        except Exception:  # a handle without a snapshot (unit tests)
            snap = None
    if snap is not None:
        tab = snap.extensions.get(SIGNATURES_KEY)
        if tab is None or len(tab) != len(snap.node_info_list):
            tab = NodeSignatures(snap.node_info_list)
            snap.extensions[SIGNATURES_KEY] = tab
        rows = tab.rows(nodes)
        if rows is None and tab.source is not snap.node_info_list:
            # the snapshot's nodes changed since the table was built
            tab = NodeSignatures(snap.node_info_list)
            snap.extensions[SIGNATURES_KEY] = tab
            rows = tab.rows(nodes)
        if rows is not None:
            return tab, rows
    local = NodeSignatures(nodes)
    return local, np.arange(len(nodes), dtype=np.intp)
