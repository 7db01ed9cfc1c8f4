"""PreScore, Score and NormalizeScore (upstream ``scoring.go``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...framework import MAX_NODE_SCORE, Code, CycleState, NodeInfo, NodeScore, Status
from ...framework.cycle_state import StateData
from ...framework.interfaces import BasePlugin
from ...gocompat import go_log, go_round, go_round_array
from ...objects import Pod
from ...objects.selectors import SelectorError
from .common import (
    _INVALID_SCORE,
    LABEL_HOSTNAME,
    NAME,
    PRE_SCORE_STATE_KEY,
    SCHEDULE_ANYWAY,
    Constraint,
    _count_matching,
    _missing_state,
)
from .index import _SpreadIndex


class PreScoreState(StateData):
    __slots__ = (
        "batch_ignored",
        "constraints",
        "ignored_mask",
        "ignored_nodes",
        "index",
        "normalizing_weight",
        "tp_value_to_pod_counts",
    )

    def __init__(self) -> None:
        self.constraints: list[Constraint] = []
        self.ignored_nodes: set[str] = set()
        self.tp_value_to_pod_counts: list[dict[str, int]] = []
        self.normalizing_weight: list[float] = []
        # the index, ignored nodes as a mask over its rows, and the ignored mask of
        # the nodes score_batch last scored (normalize_score_batch gets no nodes)
        self.index: _SpreadIndex | None = None
        self.ignored_mask: np.ndarray | None = None
        self.batch_ignored: np.ndarray | None = None

    def clone(self) -> PreScoreState:
        # read-only after PreScore, as upstream
        return self


_WEIGHTS: dict[int, float] = {}


def topology_normalizing_weight(size: int) -> float:
    """log(size + 2): smaller topologies' counts are not watered down by bigger ones."""
    w = _WEIGHTS.get(size)
    if w is None:
        w = _WEIGHTS[size] = go_log(float(size + 2))
    return w


def _score_for_count(cnt: Any, max_skew: int, weight: float) -> Any:
    """A node's term for one constraint; ``cnt`` a float or a float64 array (same operations)."""
    return cnt * weight + float(max_skew - 1)


def _normalize(scores: np.ndarray, ignored: np.ndarray) -> np.ndarray:
    """NormalizeScore over int64 scores: the ignored nodes score 0, the others
    ``MaxNodeScore * (max + min - score) / max`` (Go's truncating division)."""
    valid = ~ignored
    if valid.any():
        min_score = int(scores[valid].min())
        max_score = max(0, int(scores[valid].max()))
    else:
        min_score, max_score = 2**63 - 1, 0
    marked = np.where(ignored, _INVALID_SCORE, scores)
    if max_score == 0:
        out = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
    else:
        num = MAX_NODE_SCORE * (max_score + min_score - marked)
        q = np.abs(num) // max_score
        out = np.where(num < 0, -q, q)
    return np.where(marked == _INVALID_SCORE, 0, out)


def _pre_score_state(
    index: _SpreadIndex,
    pod: Pod,
    constraints: list[Constraint],
    nodes: Sequence[NodeInfo],
    rows: np.ndarray,
    require_all: bool,
) -> PreScoreState:
    """Upstream ``initPreScoreState``: the nodes to score that lack a key are ignored;
    per constraint, matching pods per domain of a node to score, counted over all
    nodes (hostname's per-node counts are taken in Score), and its weight."""
    s = PreScoreState()
    s.constraints = constraints
    keys = frozenset(c.topology_key for c in constraints) if require_all else None
    ignored = s.ignored_nodes
    kept = rows
    mask = np.zeros(index.n, dtype=bool)
    if keys:
        has = index.has_keys(keys)[rows]
        if not has.all():
            missing = np.flatnonzero(~has)
            ignored.update(nodes[j].node.name for j in missing.tolist())
            mask[rows[missing]] = True
            kept = rows[has]
    counts: list[dict[str, int]] = []
    weights: list[float] = []
    for c in constraints:
        if c.topology_key == LABEL_HOSTNAME:
            counts.append({})
            weights.append(topology_normalizing_weight(len(nodes) - len(ignored)))
            continue
        doms = index.domains(c.topology_key)
        # the candidate nodes' domains (a missing label reads as ""), counted over all nodes
        seen = np.unique(doms.blank_ids[kept]).tolist()
        ds, _ = index.domain_sums(pod, c, keys, True)
        values = doms.values
        counts.append(dict(zip([values[k] for k in seen], ds.sums[seen].tolist(), strict=True)))
        weights.append(topology_normalizing_weight(len(seen)))
    s.tp_value_to_pod_counts = counts
    s.normalizing_weight = weights
    s.index = index
    s.ignored_mask = mask
    return s


class Scoring(BasePlugin):
    """PodTopologySpread's PreScore, Score and NormalizeScore."""

    def _all_nodes(self, filtered: Sequence[NodeInfo]) -> Sequence[NodeInfo]:
        if self.handle is not None:
            snap = self.handle.snapshot()
            if snap is not None:
                return snap.node_info_list
        return filtered

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        all_nodes = self._all_nodes(nodes)
        if not all_nodes:
            return Status(Code.SKIP)
        # Only the system defaults let nodes without a zone label still spread by hostname.
        require_all = bool(pod.topology_spread_constraints) or not self.system_defaulted
        try:
            constraints = self.get_constraints(pod, SCHEDULE_ANYWAY)
        except SelectorError as exc:
            return Status.from_error(
                ValueError(
                    "calculating preScoreState: obtaining pod's soft topology spread "
                    f"constraints: {exc}"
                ),
                NAME,
            )
        if not constraints:
            return Status(Code.SKIP)
        index = _SpreadIndex.over(self.handle, all_nodes)
        rows = index.rows_of(nodes)
        if rows is None:
            return Status.from_error(
                ValueError("calculating preScoreState: a node to score is not in the snapshot"),
                NAME,
            )
        state.write(
            PRE_SCORE_STATE_KEY, _pre_score_state(index, pod, constraints, nodes, rows, require_all)
        )
        return None

    # -- Score -------------------------------------------------------------------
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _missing_state(PRE_SCORE_STATE_KEY)
        node = node_info.node
        if node.name in s.ignored_nodes:
            return 0
        labels = node.labels
        score = 0.0
        for i, c in enumerate(s.constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                continue
            if c.topology_key == LABEL_HOSTNAME:
                pods = node_info.pods
                cnt = _count_matching(pods, c.selector, pod.namespace) if pods else 0
            else:
                cnt = s.tp_value_to_pod_counts[i].get(tp_val, 0)
            score += _score_for_count(float(cnt), c.max_skew, s.normalizing_weight[i])
        return go_round(score)

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """``score(...)`` for every node: per-domain counts broadcast through domain ids."""
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            raise KeyError(f'reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        n = len(nodes)
        index = s.index
        rows = index.rows(nodes) if index is not None else None
        if index is None or rows is None or s.ignored_mask is None:
            out = np.empty(n, dtype=np.int64)
            for k, ni in enumerate(nodes):
                v = self.score(state, pod, ni)
                if isinstance(v, Status):
                    raise RuntimeError(v.message())
                out[k] = v
            ignored = s.ignored_nodes
            s.batch_ignored = np.fromiter(
                (ni.node.name in ignored for ni in nodes), dtype=bool, count=n
            )
            return out
        acc = np.zeros(n, dtype=np.float64)
        for i, c in enumerate(s.constraints):
            doms = index.domains(c.topology_key)
            ids = doms.ids[rows]
            present = ids >= 0
            if c.topology_key == LABEL_HOSTNAME:
                cnt = index.node_counts(c.selector, pod.namespace).counts[rows]
            else:
                cnt = doms.counts_of(s.tp_value_to_pod_counts[i])[np.maximum(ids, 0)]
            term = _score_for_count(cnt.astype(np.float64), c.max_skew, s.normalizing_weight[i])
            acc = np.where(present, acc + term, acc)
        ign = s.ignored_mask[rows]
        s.batch_ignored = ign
        return np.where(ign, 0, go_round_array(acc))

    def normalize_score_batch(
        self, state: CycleState, pod: Pod, scores: np.ndarray
    ) -> Status | None:
        """normalize_score over the array score_batch returned, in place."""
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _missing_state(PRE_SCORE_STATE_KEY)
        ign = s.batch_ignored
        if ign is None or len(ign) != len(scores):
            if s.ignored_nodes:
                return Status(
                    Code.ERROR,
                    "normalize_score_batch: the ignored nodes of these scores are unknown",
                )
            ign = np.zeros(len(scores), dtype=bool)
        if len(scores):
            scores[:] = _normalize(scores, ign)
        return None

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _missing_state(PRE_SCORE_STATE_KEY)
        if not scores:
            return None
        ignored = s.ignored_nodes
        n = len(scores)
        values = np.fromiter((ns.score for ns in scores), dtype=np.int64, count=n)
        ign = np.fromiter((ns.name in ignored for ns in scores), dtype=bool, count=n)
        for ns, v in zip(scores, _normalize(values, ign).tolist(), strict=True):
            ns.score = v
        return None
