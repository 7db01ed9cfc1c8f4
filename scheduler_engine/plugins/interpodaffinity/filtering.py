"""PreFilter (with AddPod/RemovePod) and Filter (upstream ``filtering.go``).

PreFilter counts per topology pair are sums of per-node shares kept in the
snapshot across cycles (see the package docstring).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.cycle_state import CycleState, StateData, missing_state
from ...framework.interfaces import PreFilterResult
from ...framework.node_info import NodeInfo
from ...framework.node_table import rows_in
from ...framework.snapshot import STEADY_EXTENSIONS
from ...framework.status import Code, Status
from ...objects import Node, Pod
from ..helper import UpdatedWithPods
from .common import (
    _AFF,
    _ANTI,
    _EXISTING,
    PRE_FILTER_STATE_KEY,
    TopologyCounts,
    _bump,
    _domain_flags,
    _key_ids,
    _matches_all,
    _positive_by_key,
    _Term,
)


class PreFilterState(StateData):
    """What PreFilter computed for Filter; preemption mutates a clone of it."""

    __slots__ = (
        "affinity_counts",
        "affinity_keys",
        "affinity_terms",
        "anti_affinity_counts",
        "anti_affinity_keys",
        "anti_affinity_terms",
        "existing_anti_affinity_counts",
        "namespace_labels",
        "pod",
        "self_match",
    )

    def __init__(
        self,
        pod: Pod,
        affinity_terms: tuple[_Term, ...],
        anti_affinity_terms: tuple[_Term, ...],
        namespace_labels: Mapping[str, str],
    ) -> None:
        self.pod = pod
        self.affinity_terms = affinity_terms
        self.anti_affinity_terms = anti_affinity_terms
        self.affinity_keys = tuple(t.topology_key for t in affinity_terms)
        self.anti_affinity_keys = tuple(t.topology_key for t in anti_affinity_terms)
        self.namespace_labels = namespace_labels
        # the pod may be the first of a group with affinity to itself
        self.self_match = _matches_all(affinity_terms, pod)
        self.existing_anti_affinity_counts: TopologyCounts = {}
        self.affinity_counts: TopologyCounts = {}
        self.anti_affinity_counts: TopologyCounts = {}

    def clone(self) -> PreFilterState:
        c = PreFilterState.__new__(PreFilterState)
        c.pod = self.pod
        c.affinity_terms = self.affinity_terms
        c.anti_affinity_terms = self.anti_affinity_terms
        c.affinity_keys = self.affinity_keys
        c.anti_affinity_keys = self.anti_affinity_keys
        c.namespace_labels = self.namespace_labels
        c.self_match = self.self_match
        c.existing_anti_affinity_counts = dict(self.existing_anti_affinity_counts)
        c.affinity_counts = dict(self.affinity_counts)
        c.anti_affinity_counts = dict(self.anti_affinity_counts)
        return c

    def update_with_pod(self, other: Pod, node: Node, multiplier: int) -> None:
        """Count ``other`` in (or out of) ``node``'s topology pairs."""
        labels = node.labels
        incoming = self.pod
        ns_labels = self.namespace_labels
        for t in other.required_anti_affinity_terms:
            if t.matches(incoming, ns_labels):
                _bump(self.existing_anti_affinity_counts, labels, t.topology_key, multiplier)
        if _matches_all(self.affinity_terms, other):
            for t in self.affinity_terms:
                _bump(self.affinity_counts, labels, t.topology_key, multiplier)
        for t in self.anti_affinity_terms:
            if t.matches(other):
                _bump(self.anti_affinity_counts, labels, t.topology_key, multiplier)


# A node's share of the PreFilter counts: one list of topology pairs per count
# map, a pair listed once per (pod, term) that matched.
Contribution = tuple[list[tuple[str, str]], ...]


def _existing_anti_contribution(
    ni: NodeInfo, pod: Pod, ns_labels: Mapping[str, str]
) -> Contribution | None:
    with_anti = ni.pods_with_required_anti_affinity
    if not with_anti:
        return None
    labels = ni.node.labels
    pairs: list[tuple[str, str]] = []
    for other in with_anti:
        for t in other.required_anti_affinity_terms:
            if t.matches(pod, ns_labels):
                tv = labels.get(t.topology_key)
                if tv is not None:
                    pairs.append((t.topology_key, tv))
    return (pairs,) if pairs else None


def _incoming_contribution(
    ni: NodeInfo, aff: tuple[_Term, ...], anti: tuple[_Term, ...]
) -> Contribution | None:
    pods = ni.pods
    if not pods:
        return None
    labels = ni.node.labels
    aff_pairs: list[tuple[str, str]] = []
    anti_pairs: list[tuple[str, str]] = []
    for other in pods:
        if aff and _matches_all(aff, other):
            for t in aff:
                tv = labels.get(t.topology_key)
                if tv is not None:
                    aff_pairs.append((t.topology_key, tv))
        for t in anti:
            if t.matches(other):
                tv = labels.get(t.topology_key)
                if tv is not None:
                    anti_pairs.append((t.topology_key, tv))
    return (aff_pairs, anti_pairs) if aff_pairs or anti_pairs else None


def _apply(totals: tuple[TopologyCounts, ...], contrib: Contribution, sign: int) -> None:
    for counts, pairs in zip(totals, contrib, strict=True):
        for pair in pairs:
            n = counts.get(pair, 0) + sign
            if n:
                counts[pair] = n
            else:
                del counts[pair]


class _Aggregate:
    """Counts summed over nodes, kept per node so only changed nodes are recounted.

    A node's entry is valid while its NodeInfo, Node and generation (bumped on
    every pod added or removed) are the same objects and value as when counted.
    """

    __slots__ = ("entries", "log_pos", "totals")

    def __init__(self, k: int) -> None:
        self.entries: dict[int, tuple[NodeInfo, int, Node, Contribution | None]] = {}
        self.totals: tuple[TopologyCounts, ...] = tuple({} for _ in range(k))
        # position in Snapshot.change_log up to which every node is counted
        self.log_pos = -1

    def refresh(
        self,
        nodes: Sequence[NodeInfo],
        compute: Callable[[NodeInfo], Contribution | None],
        snapshot: Any = None,
    ) -> bool:
        entries = self.entries
        full = snapshot is not None and nodes is snapshot.node_info_list
        if full and self.log_pos >= 0 and len(entries) == len(nodes):
            # only nodes whose pods changed since the last count need a look
            log = snapshot.change_log
            if len(log) - self.log_pos < len(nodes):
                changed = {nodes[i] for i in log[self.log_pos :]}
                self.log_pos = len(log)
                return self._recount(changed, compute)
        # the same nodes as counted before, no more and no fewer
        ok = self._recount(nodes, compute) and len(entries) == len(nodes)
        if ok and full:
            self.log_pos = len(snapshot.change_log)
        return ok

    def _recount(
        self,
        nodes: Iterable[NodeInfo],
        compute: Callable[[NodeInfo], Contribution | None],
    ) -> bool:
        entries = self.entries
        totals = self.totals
        for ni in nodes:
            idx = ni.index
            e = entries.get(idx)
            if e is not None and e[0] is ni and e[1] == ni.generation and e[2] is ni.node:
                continue
            if idx < 0:
                return False
            if e is not None and e[3] is not None:
                _apply(totals, e[3], -1)
            contrib = compute(ni)
            entries[idx] = (ni, ni.generation, ni.node, contrib)
            if contrib is not None:
                _apply(totals, contrib, 1)
        return True


_CACHE_KEY = "plugins.interpodaffinity.aggregates"
STEADY_EXTENSIONS.add(_CACHE_KEY)
_CACHE_SIZE = 16


def _counts_over(
    cache: OrderedDict[Any, _Aggregate] | None,
    key: Any,
    nodes: Sequence[NodeInfo],
    compute: Callable[[NodeInfo], Contribution | None],
    k: int,
    snapshot: Any = None,
) -> tuple[TopologyCounts, ...]:
    """Fresh count maps (the caller may mutate them) summed over ``nodes``."""
    if cache is not None:
        agg = cache.get(key)
        if agg is not None:
            cache.move_to_end(key)
        else:
            agg = cache[key] = _Aggregate(k)
            if len(cache) > _CACHE_SIZE:
                cache.popitem(last=False)
        if agg.refresh(nodes, compute, snapshot):
            return tuple(dict(t) for t in agg.totals)
        del cache[key]
    totals: tuple[TopologyCounts, ...] = tuple({} for _ in range(k))
    for ni in nodes:
        contrib = compute(ni)
        if contrib is not None:
            _apply(totals, contrib, 1)
    return totals


class Filtering(UpdatedWithPods):
    """InterPodAffinity's PreFilter, its extensions and Filter."""

    PRE_FILTER_STATE = PRE_FILTER_STATE_KEY

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        ns_map = self._namespace_map()
        terms = self._terms(pod, ns_map)
        # a missing namespace has no labels (upstream logs and carries on)
        ns_labels = ns_map.get(pod.namespace) or {}
        s = PreFilterState(pod, terms.affinity, terms.anti_affinity, ns_labels)

        cache = self._cache()
        snapshot = self._snapshot()
        key = (
            "existing",
            pod.namespace,
            frozenset(pod.labels.items()),
            frozenset(ns_labels.items()),
        )
        count_over = nodes
        if cache is not None and key not in cache and nodes is snapshot.node_info_list:
            # only nodes holding pods with required anti-affinity count (upstream
            # walks only those): when they are few, counting them beats keeping
            # an aggregate for these labels
            with_anti = (
                snapshot.have_pods_with_required_anti_affinity()
                if snapshot.has_pods_with_required_anti_affinity()
                else []
            )
            if len(with_anti) * 4 < len(nodes):
                cache, count_over = None, with_anti
        existing: TopologyCounts = (
            _counts_over(
                cache,
                key,
                count_over,
                lambda ni: _existing_anti_contribution(ni, pod, ns_labels),
                1,
                snapshot,
            )[0]
            if count_over
            else {}
        )
        s.existing_anti_affinity_counts = existing

        aff = s.affinity_terms
        anti = s.anti_affinity_terms
        if aff or anti:
            s.affinity_counts, s.anti_affinity_counts = _counts_over(
                self._cache(),
                ("incoming", tuple(t.key for t in aff), tuple(t.key for t in anti)),
                nodes,
                lambda ni: _incoming_contribution(ni, aff, anti),
                2,
                snapshot,
            )
        elif not existing:
            return None, Status(Code.SKIP)

        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def _missing_pre_filter_state(self) -> None:
        # PreFilter skipped: the runtime does not call AddPod/RemovePod then
        return None

    def _update_with_pod(
        self, s: PreFilterState, pod_to_schedule: Pod, pod: Pod, node_info: NodeInfo, delta: int
    ) -> None:
        s.update_with_pod(pod, node_info.node, delta)

    # -- Filter --------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return missing_state(PRE_FILTER_STATE_KEY)
        labels = node_info.node.labels

        if s.affinity_keys:
            counts = s.affinity_counts
            pods_exist = True
            for key in s.affinity_keys:
                tv = labels.get(key)
                if tv is None:
                    # every topology label must exist on the node, first pod or not
                    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, _AFF)
                if counts.get((key, tv), 0) <= 0:
                    pods_exist = False
            # no matching pod anywhere and the pod matches its own terms: let the first in
            if not pods_exist and (counts or not s.self_match):
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, _AFF)

        counts = s.anti_affinity_counts
        if counts:
            for key in s.anti_affinity_keys:
                tv = labels.get(key)
                if tv is not None and counts.get((key, tv), 0) > 0:
                    return Status(Code.UNSCHEDULABLE, _ANTI)

        counts = s.existing_anti_affinity_counts
        if counts:
            if len(counts) < len(labels):
                for (key, tv), n in counts.items():
                    if n > 0 and labels.get(key) == tv:
                        return Status(Code.UNSCHEDULABLE, _EXISTING)
            else:
                for pair in labels.items():
                    if counts.get(pair, 0) > 0:
                        return Status(Code.UNSCHEDULABLE, _EXISTING)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """``filter(...) is None`` per node, decided per topology value and broadcast."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            raise KeyError(f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found')
        n = len(nodes)
        snapshot = self._snapshot()
        rows = (
            rows_in(snapshot.node_info_list, nodes, by_node=True) if snapshot is not None else None
        )
        if rows is None:
            filt = self.filter
            return np.fromiter((filt(state, pod, ni) is None for ni in nodes), dtype=bool, count=n)
        ok = np.ones(n, dtype=bool)
        if s.affinity_keys:
            counts = s.affinity_counts
            positive = _positive_by_key(counts)
            has_all = np.ones(n, dtype=bool)
            pods_exist = np.ones(n, dtype=bool)
            for key in s.affinity_keys:
                ids, index_of = _key_ids(snapshot, key)
                node_ids = ids[rows]
                has_all &= node_ids >= 0
                # -1 (no label) reads the extra False slot
                pods_exist &= _domain_flags(index_of, positive.get(key, ()))[node_ids]
            if counts or not s.self_match:
                ok &= has_all & pods_exist
            else:
                # no matching pod anywhere and the pod matches its own terms: let the first in
                ok &= has_all
        for counts, keys in (
            (s.anti_affinity_counts, s.anti_affinity_keys),
            (s.existing_anti_affinity_counts, None),
        ):
            if not counts:
                continue
            positive = _positive_by_key(counts)
            for key in dict.fromkeys(keys) if keys is not None else positive:
                values = positive.get(key)
                if not values:
                    continue
                ids, index_of = _key_ids(snapshot, key)
                ok &= ~_domain_flags(index_of, values)[ids[rows]]
        return ok
