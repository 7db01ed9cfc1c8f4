"""PreFilter (with AddPod/RemovePod) and Filter (upstream ``filtering.go``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...framework import Code, CycleState, NodeInfo, Status
from ...framework.cycle_state import StateData
from ...framework.interfaces import PreFilterResult
from ...objects import Node, Pod
from ...objects.selectors import SelectorError
from ..helper import UpdatedWithPods
from .common import (
    DO_NOT_SCHEDULE,
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    NAME,
    PRE_FILTER_STATE_KEY,
    Constraint,
    CriticalPaths,
    _missing_state,
    _node_has_all_keys,
    _NodePolicy,
)
from .index import _SpreadIndex


class PreFilterState(StateData):
    __slots__ = (
        "constraints",
        "critical_paths",
        "domain_counts",
        "index",
        "self_match",
        "tp_value_to_match_num",
    )

    def __init__(
        self,
        constraints: list[Constraint],
        critical_paths: list[CriticalPaths],
        tp_value_to_match_num: list[dict[str, int]],
        self_match: list[int],
    ) -> None:
        self.constraints = constraints
        self.critical_paths = critical_paths
        self.tp_value_to_match_num = tp_value_to_match_num
        # 1 when the incoming pod matches the constraint's own selector
        self.self_match = self_match
        # filter_batch's view of tp_value_to_match_num: per constraint, counts by the
        # index's domain ids; dropped as soon as AddPod/RemovePod change the dicts
        self.index: _SpreadIndex | None = None
        self.domain_counts: list[np.ndarray] | None = None

    def min_match_num(self, i: int, min_domains: int) -> int:
        # fewer eligible domains than minDomains: the global minimum is taken as 0
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].n0

    def within_skew(self, i: int, matching: Any) -> Any:
        """Filter's test for constraint ``i``: the skew placing the pod in a domain with
        ``matching`` pods (an int, or an array of them) would make is at most maxSkew."""
        c = self.constraints[i]
        return matching + (self.self_match[i] - self.min_match_num(i, c.min_domains)) <= c.max_skew

    def clone(self) -> PreFilterState:
        c = PreFilterState(
            self.constraints,
            [p.copy() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
            self.self_match,
        )
        # the arrays are never written in place: sharing them is safe
        c.index = self.index
        c.domain_counts = self.domain_counts
        return c


def _pre_filter_state(
    index: _SpreadIndex, pod: Pod, constraints: list[Constraint]
) -> PreFilterState:
    """Matching pods per domain of each constraint, over the nodes that have every
    constraint's key and that its node policies include (upstream ``calPreFilterState``)."""
    keys = frozenset(c.topology_key for c in constraints)
    counts: list[dict[str, int]] = []
    paths: list[CriticalPaths] = []
    arrays: list[np.ndarray] = []
    for c in constraints:
        ds, doms = index.domain_sums(pod, c, keys, False)
        counts.append(dict(ds.as_dict(doms.values)))
        paths.append(ds.critical_paths(doms.values).copy())
        arrays.append(ds.sums.copy())
    pod_labels = pod.labels
    self_match = [1 if c.selector.matches(pod_labels) else 0 for c in constraints]
    st = PreFilterState(constraints, paths, counts, self_match)
    st.index = index
    st.domain_counts = arrays
    return st


def _update_counts(
    s: PreFilterState, updated: Pod, preemptor: Pod, node: Node | None, delta: int
) -> None:
    """AddPod/RemovePod: ``updated`` counted ``delta`` more times on ``node``."""
    if updated.namespace != preemptor.namespace or node is None:
        return
    labels = node.labels
    if not _node_has_all_keys(labels, s.constraints):
        return
    policy = _NodePolicy(preemptor)
    # upstream neither skips terminating pods nor empty selectors here
    for i, c in enumerate(s.constraints):
        if not c.selector.matches(updated.labels):
            continue
        if not policy.includes(c, node):
            continue
        s.domain_counts = None
        v = labels[c.topology_key]
        d = s.tp_value_to_match_num[i]
        d[v] = d.get(v, 0) + delta
        s.critical_paths[i].update(v, d[v])


class Filtering(UpdatedWithPods):
    """PodTopologySpread's PreFilter, its extensions and Filter."""

    PRE_FILTER_STATE = PRE_FILTER_STATE_KEY

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        try:
            constraints = self.get_constraints(pod, DO_NOT_SCHEDULE)
        except SelectorError as exc:
            return None, Status.from_error(
                ValueError(
                    f"get constraints from pod: obtaining pod's hard topology spread constraints: {exc}"
                ),
                NAME,
            )
        if not constraints:
            return None, Status(Code.SKIP)
        index = _SpreadIndex.over(self.handle, nodes)
        state.write(PRE_FILTER_STATE_KEY, _pre_filter_state(index, pod, constraints))
        return None, None

    def _missing_pre_filter_state(self) -> Status:
        return _missing_state(PRE_FILTER_STATE_KEY)

    def _update_with_pod(
        self, s: PreFilterState, pod_to_schedule: Pod, pod: Pod, node_info: NodeInfo, delta: int
    ) -> None:
        _update_counts(s, pod, pod_to_schedule, node_info.node, delta)

    # -- Filter ------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _missing_state(PRE_FILTER_STATE_KEY)
        constraints = s.constraints
        if not constraints:
            return None
        labels = node_info.node.labels
        counts = s.tp_value_to_match_num
        for i, c in enumerate(constraints):
            tp_val = labels.get(c.topology_key)
            if tp_val is None:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_NODE_LABEL_NOT_MATCH)
            if not s.within_skew(i, counts[i].get(tp_val, 0)):
                return Status(Code.UNSCHEDULABLE, ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """``filter(...) is None`` for every node, decided per domain and broadcast."""
        s: PreFilterState | None = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            raise KeyError(f'reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        n = len(nodes)
        if not s.constraints:
            return np.ones(n, dtype=bool)
        index = s.index
        rows = index.rows(nodes) if index is not None else None
        if index is None or rows is None:
            filt = self.filter
            return np.fromiter((filt(state, pod, ni) is None for ni in nodes), dtype=bool, count=n)
        ok = np.ones(n, dtype=bool)
        arrays = s.domain_counts
        for i, c in enumerate(s.constraints):
            doms = index.domains(c.topology_key)
            ids = doms.ids[rows]
            # AddPod/RemovePod changed the counts: read them back from the dict
            per_domain = (
                arrays[i] if arrays is not None else doms.counts_of(s.tp_value_to_match_num[i])
            )
            # Filter's skew check, once per domain, broadcast to the nodes
            passes = s.within_skew(i, per_domain)
            ok &= (ids >= 0) & passes[np.maximum(ids, 0)]
        return ok

    # -- PreScore ----------------------------------------------------------------
