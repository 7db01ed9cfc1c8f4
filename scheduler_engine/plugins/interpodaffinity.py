"""InterPodAffinity: required and preferred pod (anti-)affinity.

Extension points: PreFilter (with add/remove-pod extensions for preemption),
Filter, PreScore, Score and NormalizeScore.  Upstream counterpart:
``pkg/scheduler/framework/plugins/interpodaffinity`` (kube-scheduler v1.36).

PreFilter counts, per topology pair (label key, label value):

* existing pods whose required anti-affinity terms select the incoming pod
  (symmetry: a running pod may forbid the newcomer);
* existing pods that match *all* of the incoming pod's required affinity
  terms, once per term;
* existing pods that match each of the incoming pod's required anti-affinity
  terms.

Filter is then a few dictionary look-ups per node.  PreScore sums weights per
topology pair from the incoming pod's preferred terms and from existing pods'
terms that select the incoming pod (their required affinity terms weighted by
``hardPodAffinityWeight``); Score adds the pairs a node carries and
NormalizeScore scales to 0..100 between the lowest and highest raw score.

Terminating pods are counted like any other, as upstream does.

Speed: PreFilter's counts are sums of per-node shares.  Each share is kept in
the snapshot's ``extensions`` (keyed by what the terms select) with the node's
generation, so a later pod with the same terms recounts only nodes whose pods
changed since; the result equals counting every pod from scratch.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState, StateData
from ..framework.interfaces import MAX_NODE_SCORE, Handle, NodeScore, PreFilterResult
from ..framework.node_info import NodeInfo
from ..framework.status import Code, Status
from ..objects import Node, Pod
from ..objects.pod import AffinityTerm, WeightedAffinityTerm
from ..objects.selectors import LabelSelector

__all__ = [
    "DEFAULT_HARD_POD_AFFINITY_WEIGHT",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "NAME",
    "PLUGIN",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "InterPodAffinity",
    "PreFilterState",
    "PreScoreState",
    "new",
]

NAME = "InterPodAffinity"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = (
    "node(s) didn't satisfy existing pods anti-affinity rules"
)
ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules"

DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1
_MIN_HARD_WEIGHT = 0
_MAX_HARD_WEIGHT = 100

# (topology key, topology value) → number of matching (pod, term) pairs
TopologyCounts = dict[tuple[str, str], int]


class _Term:
    """An incoming pod's term with its namespaceSelector folded into namespaces.

    Upstream lists the namespaces a non-empty selector picks and then drops the
    selector; an empty selector (``{}``) stays and selects every namespace.
    """

    __slots__ = ("all_namespaces", "namespaces", "selector", "topology_key", "weight")

    def __init__(
        self,
        namespaces: frozenset[str],
        all_namespaces: bool,
        selector: LabelSelector,
        topology_key: str,
        weight: int = 0,
    ) -> None:
        self.namespaces = namespaces
        self.all_namespaces = all_namespaces
        self.selector = selector
        self.topology_key = topology_key
        self.weight = weight

    @property
    def key(self) -> tuple[Any, ...]:
        """What the term selects: equal keys count the same pods."""
        return (self.namespaces, self.all_namespaces, self.selector, self.topology_key)

    def matches(self, pod: Pod) -> bool:
        if self.all_namespaces or pod.namespace in self.namespaces:
            return self.selector.matches(pod.labels)
        return False


def _resolve(term: AffinityTerm, ns_map: Mapping[str, Mapping[str, str]], weight: int = 0) -> _Term:
    sel = term.namespace_selector
    if sel is None or sel.nothing:
        return _Term(term.namespaces, False, term.selector, term.topology_key, weight)
    if sel.empty:
        return _Term(term.namespaces, True, term.selector, term.topology_key, weight)
    picked = frozenset(n for n, labels in ns_map.items() if sel.matches(labels))
    return _Term(term.namespaces | picked, False, term.selector, term.topology_key, weight)


class _ResolvedTerms:
    """The incoming pod's four term lists, resolved against one namespace map."""

    __slots__ = ("affinity", "anti_affinity", "ns_map", "preferred", "preferred_anti")

    def __init__(self, pod: Pod, ns_map: Mapping[str, Mapping[str, str]]) -> None:
        self.ns_map = ns_map
        self.affinity = tuple(_resolve(t, ns_map) for t in pod.required_affinity_terms)
        self.anti_affinity = tuple(_resolve(t, ns_map) for t in pod.required_anti_affinity_terms)
        self.preferred = _resolve_weighted(pod.preferred_affinity_terms, ns_map)
        self.preferred_anti = _resolve_weighted(pod.preferred_anti_affinity_terms, ns_map)


def _resolve_weighted(
    terms: Sequence[WeightedAffinityTerm], ns_map: Mapping[str, Mapping[str, str]]
) -> tuple[_Term, ...]:
    return tuple(_resolve(wt.term, ns_map, wt.weight) for wt in terms)


def _matches_all(terms: Sequence[_Term], pod: Pod) -> bool:
    """Upstream ``podMatchesAllAffinityTerms``: false for no terms."""
    if not terms:
        return False
    for t in terms:
        if not t.matches(pod):
            return False
    return True


def _bump(counts: TopologyCounts, labels: Mapping[str, str], key: str, value: int) -> None:
    tv = labels.get(key)
    if tv is not None:
        pair = (key, tv)
        n = counts.get(pair, 0) + value
        # counts may go negative when preemption removes pods; zero entries are dropped
        if n == 0:
            counts.pop(pair, None)
        else:
            counts[pair] = n


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


_SCORING_NODES_KEY = "plugins.interpodaffinity.scoring_nodes"
_KEY_IDS_KEY = "plugins.interpodaffinity.key_ids"


def _scores_for_others(pod: Pod) -> bool:
    """Whether an existing pod's own terms can add to another pod's PreScore."""
    return bool(
        pod.required_affinity_terms
        or pod.preferred_affinity_terms
        or pod.preferred_anti_affinity_terms
    )


class _ScoringNodes:
    """Nodes with a pod whose terms can score an incoming pod, kept from the change log.

    Without preferred terms of its own, an incoming pod's PreScore only reads
    existing pods' required affinity and preferred (anti-)affinity terms: nodes
    whose pods have none (required anti-affinity alone, say) add nothing.
    """

    __slots__ = ("indices", "log_pos", "ordered")

    def __init__(self) -> None:
        self.indices: set[int] = set()
        self.ordered: list[NodeInfo] | None = None
        self.log_pos = -1

    def nodes(self, snapshot: Any) -> list[NodeInfo]:
        infos = snapshot.node_info_list
        log = snapshot.change_log
        if self.log_pos < 0 or len(log) - self.log_pos >= len(infos):
            changed: Iterable[int] = range(len(infos))
        else:
            changed = set(log[self.log_pos :])
        self.log_pos = len(log)
        indices = self.indices
        for i in changed:
            ni = infos[i]
            if any(_scores_for_others(p) for p in ni.pods_with_affinity):
                if i not in indices:
                    indices.add(i)
                    self.ordered = None
            elif i in indices:
                indices.discard(i)
                self.ordered = None
        if self.ordered is None:
            # node order, as the snapshot lists them
            self.ordered = [infos[i] for i in sorted(indices)]
        return self.ordered


def _key_ids(snapshot: Any, key: str) -> tuple[np.ndarray, dict[str, int]]:
    """Per node of the snapshot, an id of its value for label ``key`` (-1: no label)."""
    cache = snapshot.extensions.get(_KEY_IDS_KEY)
    if cache is None or cache[0] is not snapshot.node_info_list:
        cache = snapshot.extensions[_KEY_IDS_KEY] = (snapshot.node_info_list, {})
    got = cache[1].get(key)
    if got is None:
        index_of: dict[str, int] = {}
        infos = snapshot.node_info_list
        ids = np.empty(len(infos), dtype=np.intp)
        for i, ni in enumerate(infos):
            v = ni.node.labels.get(key)
            ids[i] = -1 if v is None else index_of.setdefault(v, len(index_of))
        got = cache[1][key] = (ids, index_of)
    return got


def _positive_by_key(counts: TopologyCounts) -> dict[str, list[str]]:
    """Topology values with a positive count, grouped by key (one pass over the pairs)."""
    out: dict[str, list[str]] = {}
    for (key, tv), c in counts.items():
        if c > 0:
            vals = out.get(key)
            if vals is None:
                out[key] = [tv]
            else:
                vals.append(tv)
    return out


def _domain_flags(index_of: Mapping[str, int], values: Sequence[str]) -> np.ndarray:
    """True for each value id listed (one extra slot, False, for nodes without the label)."""
    flags = np.zeros(len(index_of) + 1, dtype=bool)
    get = index_of.get
    ids = [k for k in map(get, values) if k is not None]
    if ids:
        flags[ids] = True
    return flags


class PreScoreState(StateData):
    """topology key → topology value → summed weight.  Read-only after PreScore."""

    __slots__ = ("topology_score",)

    def __init__(self, topology_score: dict[str, dict[str, int]]) -> None:
        self.topology_score = topology_score

    def clone(self) -> PreScoreState:
        return self


class InterPodAffinity:
    NAME = NAME

    __slots__ = ("_handle", "hard_pod_affinity_weight", "ignore_preferred_terms_of_existing_pods")

    def __init__(
        self,
        handle: Handle | None,
        hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT,
        ignore_preferred_terms_of_existing_pods: bool = False,
    ) -> None:
        if not _MIN_HARD_WEIGHT <= hard_pod_affinity_weight <= _MAX_HARD_WEIGHT:
            raise ValueError(
                f"hardPodAffinityWeight: Invalid value: {hard_pod_affinity_weight}: "
                f"not in valid range [{_MIN_HARD_WEIGHT}, {_MAX_HARD_WEIGHT}]"
            )
        self._handle = handle
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_preferred_terms_of_existing_pods

    # -- shared helpers ------------------------------------------------------
    def _namespace_map(self) -> Mapping[str, Mapping[str, str]]:
        handle = self._handle
        if handle is None:
            return {}
        ns_map = handle.snapshot().namespace_labels
        if ns_map:
            return ns_map
        cluster = getattr(handle, "cluster", None)
        return getattr(cluster, "namespaces", None) or {}

    def _snapshot(self) -> Any:
        return self._handle.snapshot() if self._handle is not None else None

    def _cache(self) -> OrderedDict[Any, _Aggregate] | None:
        """Per-snapshot aggregates (None without a snapshot: count from scratch)."""
        if self._handle is None:
            return None
        ext = self._handle.snapshot().extensions
        cache = ext.get(_CACHE_KEY)
        if cache is None:
            cache = ext[_CACHE_KEY] = OrderedDict()
        return cache

    def _terms(self, pod: Pod, ns_map: Mapping[str, Mapping[str, str]]) -> _ResolvedTerms:
        # resolving a namespaceSelector lists namespaces: once per pod and namespace map
        cached = pod.cache.get(NAME)
        if cached is None or cached.ns_map is not ns_map:
            cached = _ResolvedTerms(pod, ns_map)
            pod.cache[NAME] = cached
        return cached

    # -- PreFilter -----------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        ns_map = self._namespace_map()
        terms = self._terms(pod, ns_map)
        # a missing namespace has no labels (upstream logs and carries on)
        ns_labels = ns_map.get(pod.namespace) or {}
        s = PreFilterState(pod, terms.affinity, terms.anti_affinity, ns_labels)

        cache = self._cache()
        existing = _counts_over(
            cache,
            (
                "existing",
                pod.namespace,
                frozenset(pod.labels.items()),
                frozenset(ns_labels.items()),
            ),
            nodes,
            lambda ni: _existing_anti_contribution(ni, pod, ns_labels),
            1,
            self._snapshot(),
        )[0]
        s.existing_anti_affinity_counts = existing

        aff = s.affinity_terms
        anti = s.anti_affinity_terms
        if aff or anti:
            s.affinity_counts, s.anti_affinity_counts = _counts_over(
                cache,
                ("incoming", tuple(t.key for t in aff), tuple(t.key for t in anti)),
                nodes,
                lambda ni: _incoming_contribution(ni, aff, anti),
                2,
                self._snapshot(),
            )
        elif not existing:
            return None, Status(Code.SKIP)

        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_extensions(self) -> InterPodAffinity:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod_to_add, node_info, 1)

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        return self._update(state, pod_to_remove, node_info, -1)

    @staticmethod
    def _update(state: CycleState, other: Pod, node_info: NodeInfo, sign: int) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            # PreFilter skipped: the runtime should not call us; nothing to keep in step
            return None
        s.update_with_pod(other, node_info.node, sign)
        return None

    # -- Filter --------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status(
                Code.ERROR,
                f'error reading "{PRE_FILTER_STATE_KEY}" from cycleState: not found',
            )
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
        rows = self._rows(snapshot, nodes)
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

    @staticmethod
    def _rows(snapshot: Any, nodes: Sequence[NodeInfo]) -> np.ndarray | None:
        """Rows of ``nodes`` in the snapshot (same Node objects), or None."""
        if snapshot is None:
            return None
        own = snapshot.node_info_list
        if nodes is own:
            return np.arange(len(own), dtype=np.intp)
        idx = [ni.index for ni in nodes]
        size = len(own)
        for i in idx:
            if not 0 <= i < size:
                return None
        for i, ni in zip(idx, nodes, strict=True):
            if own[i].node is not ni.node:
                return None
        return np.array(idx, dtype=np.intp)

    def _scoring_nodes(self, snapshot: Any) -> list[NodeInfo]:
        ext = getattr(snapshot, "extensions", None)
        if ext is None or not hasattr(snapshot, "change_log"):
            return snapshot.have_pods_with_affinity()
        tracker = ext.get(_SCORING_NODES_KEY)
        if tracker is None:
            tracker = ext[_SCORING_NODES_KEY] = _ScoringNodes()
        return tracker.nodes(snapshot)

    # -- PreScore / Score ----------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        # upstream looks at the spec lists themselves (an empty list is no constraint)
        has_constraints = bool(pod.preferred_affinity_terms or pod.preferred_anti_affinity_terms)
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status(Code.SKIP)
        if self._handle is None:
            return Status(Code.ERROR, "empty shared lister in InterPodAffinity PreScore")
        snapshot = self._handle.snapshot()
        # without preferred terms of its own, only pods whose terms score others can matter
        all_nodes = snapshot.node_info_list if has_constraints else self._scoring_nodes(snapshot)
        ns_map = self._namespace_map()
        terms = self._terms(pod, ns_map)
        ns_labels = ns_map.get(pod.namespace) or {}
        preferred = terms.preferred
        preferred_anti = terms.preferred_anti
        hard_weight = self.hard_pod_affinity_weight

        topology_score: dict[str, dict[str, int]] = {}
        touched = False

        def add(key: str, labels: Mapping[str, str], delta: int) -> None:
            tv = labels.get(key)
            if tv is None:
                return
            per_value = topology_score.get(key)
            if per_value is None:
                per_value = topology_score[key] = {}
            per_value[tv] = per_value.get(tv, 0) + delta

        for ni in all_nodes:
            labels = ni.node.labels
            if not labels:
                continue
            pods = ni.pods if has_constraints else ni.pods_with_affinity
            for other in pods:
                for t in preferred:
                    if t.matches(other) and t.topology_key in labels:
                        add(t.topology_key, labels, t.weight)
                        touched = True
                for t in preferred_anti:
                    if t.matches(other) and t.topology_key in labels:
                        add(t.topology_key, labels, -t.weight)
                        touched = True
                if hard_weight > 0:
                    for at in other.required_affinity_terms:
                        if at.topology_key in labels and at.matches(pod, ns_labels):
                            add(at.topology_key, labels, hard_weight)
                            touched = True
                for wt in other.preferred_affinity_terms:
                    at = wt.term
                    if at.topology_key in labels and at.matches(pod, ns_labels):
                        add(at.topology_key, labels, wt.weight)
                        touched = True
                for wt in other.preferred_anti_affinity_terms:
                    at = wt.term
                    if at.topology_key in labels and at.matches(pod, ns_labels):
                        add(at.topology_key, labels, -wt.weight)
                        touched = True

        # upstream skips when no node produced any entry (even entries summing to 0 count)
        if not touched:
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(topology_score))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status(
                Code.ERROR,
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found',
            )
        labels = node_info.node.labels
        score = 0
        for key, per_value in s.topology_score.items():
            tv = labels.get(key)
            if tv is not None:
                score += per_value.get(tv, 0)
        return score

    def score_extensions(self) -> InterPodAffinity:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return Status(
                Code.ERROR,
                f'failed to read "{PRE_SCORE_STATE_KEY}" from cycleState: not found',
            )
        if not s.topology_score or not scores:
            return None
        lo = min(ns.score for ns in scores)
        hi = max(ns.score for ns in scores)
        diff = hi - lo
        for ns in scores:
            # float64 arithmetic then truncation, as Go's int64(float64) conversion
            ns.score = int(float(MAX_NODE_SCORE) * ((ns.score - lo) / diff)) if diff > 0 else 0
        return None


_AFF = ERR_REASON_AFFINITY_RULES_NOT_MATCH
_ANTI = ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH
_EXISTING = ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH

PLUGIN = InterPodAffinity


def new(args: Mapping[str, Any], handle: Handle) -> InterPodAffinity:
    """Factory; ``args`` is InterPodAffinityArgs (camelCase), defaults applied here too."""
    args = args or {}
    weight = args.get("hardPodAffinityWeight")
    return InterPodAffinity(
        handle,
        DEFAULT_HARD_POD_AFFINITY_WEIGHT if weight is None else int(weight),
        bool(args.get("ignorePreferredTermsOfExistingPods", False)),
    )
