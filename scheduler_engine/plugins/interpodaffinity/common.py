"""What filtering and scoring share: names, messages, resolved terms, node-index helpers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...framework.snapshot import STEADY_EXTENSIONS
from ...objects import Pod
from ...objects.pod import AffinityTerm, WeightedAffinityTerm
from ...objects.selectors import LabelSelector

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


_AFF = ERR_REASON_AFFINITY_RULES_NOT_MATCH
_ANTI = ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH
_EXISTING = ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH


@dataclass(slots=True, eq=False)
class _Term:
    """An incoming pod's term with its namespaceSelector folded into namespaces.

    Upstream lists the namespaces a non-empty selector picks and then drops the
    selector; an empty selector (``{}``) stays and selects every namespace.
    """

    namespaces: frozenset[str]
    all_namespaces: bool
    selector: LabelSelector
    topology_key: str
    weight: int = 0

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


_SCORING_NODES_KEY = "plugins.interpodaffinity.scoring_nodes"
_KEY_IDS_KEY = "plugins.interpodaffinity.key_ids"
STEADY_EXTENSIONS.update((_SCORING_NODES_KEY, _KEY_IDS_KEY))


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
