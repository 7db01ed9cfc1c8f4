"""PodTopologySpread's counts: matching pods per node and per topology domain.

The one way PreFilter and PreScore count.  Over a snapshot's own node list the
views are kept in the snapshot and brought up to date from its change log
across cycles; over any other node list they are built for the one call.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ...framework import Handle, NodeInfo
from ...framework.node_table import rows_in
from ...objects import LabelSelector, Pod, find_untolerated
from ..helper import signatures_for
from .common import (
    _DO_NOT_SCHEDULE_EFFECTS,
    LABEL_HOSTNAME,
    Constraint,
    CriticalPaths,
    _count_matching,
    _required_node_affinity_matches,
)

# -- incremental, vectorised views ----------------------------------------------
#
# Per snapshot (in ``Snapshot.extensions``): for each topology key a per-node domain
# id; for each (selector, namespace) the matching-pod count of every node; for each
# (counts, topology key, eligible nodes) the per-domain sums.  All are brought up to
# date from ``Snapshot.change_log`` (only nodes whose pods changed are recounted),
# and node eligibility (required labels, nodeAffinityPolicy, nodeTaintsPolicy) is
# evaluated once per distinct node signature.  Domains are in the order of their
# first eligible node, as upstream's walk over the node list finds them.

_INDEX_KEY = "plugins.podtopologyspread.index"
_CACHE_LIMIT = 64
# below this many domains the critical paths are found by the plain loop
_NUMPY_PATHS_MIN = 32


class _Domains:
    """One topology key: a domain id per node (-1 without the label)."""

    __slots__ = ("blank_ids", "ids", "index_of", "values")

    def __init__(self, nodes: Sequence[NodeInfo], key: str) -> None:
        index_of: dict[str, int] = {}
        ids = np.empty(len(nodes), dtype=np.intp)
        for i, ni in enumerate(nodes):
            v = ni.node.labels.get(key)
            if v is None:
                ids[i] = -1
                continue
            d = index_of.get(v)
            if d is None:
                d = index_of[v] = len(index_of)
            ids[i] = d
        # PreScore reads a missing label as "" (the domain of nodes labelled "")
        blank = index_of.get("")
        if blank is None:
            blank = index_of[""] = len(index_of)
        self.index_of = index_of
        self.values = list(index_of)
        self.ids = ids
        self.blank_ids = np.where(ids < 0, blank, ids)

    def __len__(self) -> int:
        return len(self.values)

    def counts_of(self, by_value: dict[str, int]) -> np.ndarray:
        """``by_value`` (domain value → count) as counts by domain id; unknown values dropped."""
        per_domain = np.zeros(len(self.values), dtype=np.int64)
        index_of = self.index_of
        for v, num in by_value.items():
            k = index_of.get(v)
            if k is not None:
                per_domain[k] = num
        return per_domain


class _NodeCounts:
    """Matching pods (namespace, selector; terminating pods left out) per node."""

    __slots__ = ("counts", "log_pos", "ns", "selector")

    def __init__(self, selector: LabelSelector, ns: str, n: int) -> None:
        self.selector = selector
        self.ns = ns
        self.counts = np.zeros(n, dtype=np.int64)
        self.log_pos = -1

    def refresh(self, nodes: Sequence[NodeInfo], log: list[int]) -> None:
        if self.selector.empty:
            # selects no pod for counting (upstream counts nothing for an empty selector)
            self.log_pos = len(log)
            return
        sel, ns, counts = self.selector, self.ns, self.counts
        if self.log_pos < 0 or len(log) - self.log_pos >= len(nodes):
            touched: Iterable[int] = range(len(nodes))
        else:
            touched = set(log[self.log_pos :])
        for i in touched:
            pods = nodes[i].pods
            counts[i] = _count_matching(pods, sel, ns) if pods else 0
        self.log_pos = len(log)


class _DomainSums:
    """Per-domain sums of one _NodeCounts over eligible nodes, in first-seen order."""

    __slots__ = ("counts_dict", "elig", "ids", "log_pos", "order", "paths", "seen", "sums")

    def __init__(
        self,
        node_counts: _NodeCounts,
        ids: np.ndarray,
        n_dom: int,
        elig: np.ndarray,
        log_len: int,
    ) -> None:
        elig = elig & (ids >= 0)
        self.elig = elig
        self.ids = ids
        counts = node_counts.counts
        self.seen = counts.copy()
        rows = np.flatnonzero(elig)
        dom = ids[rows]
        self.sums = np.bincount(dom, weights=counts[rows], minlength=n_dom).astype(np.int64)
        # eligible domains in the order of their first eligible node (the per-node loop's order)
        uniq, first = np.unique(dom, return_index=True)
        self.order: np.ndarray = uniq[np.argsort(first, kind="stable")]
        self.counts_dict: dict[str, int] | None = None
        self.paths: CriticalPaths | None = None
        self.log_pos = log_len

    def refresh(self, node_counts: _NodeCounts, log: list[int], values: list[str]) -> None:
        if self.log_pos == len(log):
            return
        segment = log[self.log_pos :]
        self.log_pos = len(log)
        if len(segment) <= 8:
            # one or two pods bound per cycle: scalar updates beat numpy's set-up cost
            counts, seen, elig, ids, sums = (
                node_counts.counts,
                self.seen,
                self.elig,
                self.ids,
                self.sums,
            )
            touched: set[int] = set()
            for j in set(segment):
                delta = int(counts[j]) - int(seen[j])
                if delta:
                    seen[j] += delta
                    if elig[j]:
                        k = int(ids[j])
                        sums[k] += delta
                        touched.add(k)
            if touched:
                self._touched(touched, values)
            return
        changed = np.unique(np.asarray(segment, dtype=np.intp))
        now = node_counts.counts[changed]
        delta = now - self.seen[changed]
        self.seen[changed] = now
        hit = self.elig[changed] & (delta != 0)
        if not hit.any():
            return
        dom = self.ids[changed[hit]]
        np.add.at(self.sums, dom, delta[hit])
        self._touched(set(dom.tolist()), values)

    def _touched(self, domains: set[int], values: list[str]) -> None:
        d = self.counts_dict
        if d is not None:
            sums = self.sums
            # updating a value keeps the dict's (first-seen) order
            for k in domains:
                d[values[k]] = int(sums[k])
        self.paths = None

    def as_dict(self, values: list[str]) -> dict[str, int]:
        d = self.counts_dict
        if d is None:
            order = self.order.tolist()
            d = self.counts_dict = dict(
                zip([values[k] for k in order], self.sums[order].tolist(), strict=True)
            )
        return d

    def critical_paths(self, values: list[str]) -> CriticalPaths:
        p = self.paths
        if p is None:
            p = self.paths = _critical_paths(self.as_dict(values), self.sums[self.order])
        return p


def _critical_paths(counts: Mapping[str, int], ordered: np.ndarray) -> CriticalPaths:
    """CriticalPaths built by updating with ``counts`` in order (``ordered``: its values).

    Built from scratch with distinct domains, the pair is the two smallest counts,
    ties to the earlier domain; "" is special in ``update`` (the initial empty
    slots), so with it, or few domains, the loop itself runs.
    """
    p = CriticalPaths()
    if len(counts) < _NUMPY_PATHS_MIN or "" in counts:
        for v, num in counts.items():
            p.update(v, num)
        return p
    keys = list(counts)
    k0 = int(np.argmin(ordered))
    rest = ordered.copy()
    rest[k0] = np.iinfo(np.int64).max
    k1 = int(np.argmin(rest))
    p.v0, p.n0 = keys[k0], int(ordered[k0])
    p.v1, p.n1 = keys[k1], int(ordered[k1])
    return p


def _reads_node_name(pod: Pod) -> bool:
    if LABEL_HOSTNAME in pod.node_selector:
        return True
    req = pod.required_node_affinity
    if req is None:
        return False
    for t in req.terms:
        if t.fields is not None:
            return True
        if t.expressions is not None and any(
            r.key == LABEL_HOSTNAME for r in t.expressions.requirements
        ):
            return True
    return False


class _NodeList:
    """A node list that is not a snapshot's own, read like one that never changes."""

    __slots__ = ("change_log", "node_info_list")

    def __init__(self, nodes: Sequence[NodeInfo]) -> None:
        self.node_info_list = nodes
        self.change_log: list[int] = []


class _SpreadIndex:
    """The per-snapshot views (see above)."""

    __slots__ = (
        "_aff",
        "_domains",
        "_keys",
        "_node_counts",
        "_rows_by_name",
        "_sums",
        "_taints",
        "handle",
        "n",
        "snap",
    )

    def __init__(self, snap: Any, handle: Handle | None) -> None:
        self.snap = snap
        self.handle = handle
        self.n = len(snap.node_info_list)
        self._domains: dict[str, _Domains] = {}
        self._node_counts: OrderedDict[tuple[LabelSelector, str], _NodeCounts] = OrderedDict()
        self._sums: OrderedDict[tuple[Any, ...], _DomainSums] = OrderedDict()
        self._keys: dict[frozenset[str], np.ndarray] = {}
        self._aff: OrderedDict[Any, np.ndarray] = OrderedDict()
        self._taints: OrderedDict[Any, np.ndarray] = OrderedDict()
        self._rows_by_name: dict[str, int] | None = None

    @staticmethod
    def over(handle: Handle | None, nodes: Sequence[NodeInfo]) -> _SpreadIndex:
        """The snapshot's index when ``nodes`` is its node list, else views of ``nodes`` alone."""
        index = _SpreadIndex.of(handle)
        if index is not None and nodes is index.snap.node_info_list:
            return index
        return _SpreadIndex(_NodeList(nodes), handle)

    @staticmethod
    def of(handle: Handle | None) -> _SpreadIndex | None:
        if handle is None:
            return None
        try:
            snap = handle.snapshot()
        except Exception:  # a handle without a snapshot (unit tests)
            return None
        if snap is None:
            return None
        ext = getattr(snap, "extensions", None)
        if ext is None or not hasattr(snap, "change_log"):
            return None
        idx = ext.get(_INDEX_KEY)
        if idx is None or idx.snap is not snap or idx.n != len(snap.node_info_list):
            idx = ext[_INDEX_KEY] = _SpreadIndex(snap, handle)
        return idx

    def domains(self, key: str) -> _Domains:
        d = self._domains.get(key)
        if d is None:
            d = self._domains[key] = _Domains(self.snap.node_info_list, key)
        return d

    def node_counts(self, selector: LabelSelector, ns: str) -> _NodeCounts:
        key = (selector, ns)
        nc = self._node_counts.get(key)
        if nc is None:
            nc = self._node_counts[key] = _NodeCounts(selector, ns, len(self.snap.node_info_list))
            if len(self._node_counts) > _CACHE_LIMIT:
                self._node_counts.popitem(last=False)
        else:
            self._node_counts.move_to_end(key)
        nc.refresh(self.snap.node_info_list, self.snap.change_log)
        return nc

    # -- eligibility ---------------------------------------------------------------
    def has_keys(self, keys: frozenset[str]) -> np.ndarray:
        m = self._keys.get(keys)
        if m is None:
            m = np.ones(len(self.snap.node_info_list), dtype=bool)
            for k in keys:
                m &= self.domains(k).ids >= 0
            self._keys[keys] = m
        return m

    def _signatures(self) -> Any:
        nodes = self.snap.node_info_list
        tab, rows = signatures_for(self.handle, nodes)
        return tab, rows

    def affinity_mask(self, pod: Pod) -> tuple[Any, np.ndarray]:
        key = (tuple(pod.node_selector.items()), pod.required_node_affinity)
        m = self._aff.get(key)
        if m is None:
            nodes = self.snap.node_info_list
            if _reads_node_name(pod):
                m = np.fromiter(
                    (_required_node_affinity_matches(pod, ni.node) for ni in nodes),
                    dtype=bool,
                    count=len(nodes),
                )
            else:
                tab, rows = self._signatures()
                m = tab.by_label_set(
                    rows, lambda node: _required_node_affinity_matches(pod, node), np.bool_
                )
            self._aff[key] = m
            if len(self._aff) > _CACHE_LIMIT:
                self._aff.popitem(last=False)
        return key, m

    def taints_mask(self, pod: Pod) -> tuple[Any, np.ndarray]:
        key = pod.tolerations
        m = self._taints.get(key)
        if m is None:
            tols = pod.tolerations
            tab, rows = self._signatures()
            m = tab.by_taint_set(
                rows,
                lambda taints: find_untolerated(taints, tols, _DO_NOT_SCHEDULE_EFFECTS) is None,
                np.bool_,
            )
            self._taints[key] = m
            if len(self._taints) > _CACHE_LIMIT:
                self._taints.popitem(last=False)
        return key, m

    def eligible(
        self, pod: Pod, c: Constraint, keys: frozenset[str] | None
    ) -> tuple[tuple[Any, ...], np.ndarray]:
        """Nodes a constraint counts on: all ``keys`` present and included by its policies."""
        m = self.has_keys(keys) if keys else None
        aff_key = taint_key = None
        if c.affinity_honor:
            aff_key, am = self.affinity_mask(pod)
            m = am if m is None else m & am
        if c.taints_honor:
            taint_key, tm = self.taints_mask(pod)
            m = tm if m is None else m & tm
        if m is None:
            m = np.ones(len(self.snap.node_info_list), dtype=bool)
        return (keys, c.affinity_honor, aff_key, c.taints_honor, taint_key), m

    def domain_sums(
        self, pod: Pod, c: Constraint, keys: frozenset[str] | None, blank: bool
    ) -> tuple[_DomainSums, _Domains]:
        nc = self.node_counts(c.selector, pod.namespace)
        doms = self.domains(c.topology_key)
        elig_key, elig = self.eligible(pod, c, keys)
        key = (c.selector, pod.namespace, c.topology_key, blank, elig_key)
        ds = self._sums.get(key)
        log = self.snap.change_log
        if ds is None:
            ds = _DomainSums(nc, doms.blank_ids if blank else doms.ids, len(doms), elig, len(log))
            self._sums[key] = ds
            if len(self._sums) > _CACHE_LIMIT:
                self._sums.popitem(last=False)
        else:
            self._sums.move_to_end(key)
            ds.refresh(nc, log, doms.values)
        return ds, doms

    def rows(self, nodes: Sequence[NodeInfo]) -> np.ndarray | None:
        """Rows of ``nodes`` (the snapshot's own NodeInfos) or None."""
        return rows_in(self.snap.node_info_list, nodes)

    def rows_of(self, nodes: Sequence[NodeInfo]) -> np.ndarray | None:
        """Rows of ``nodes``, found by node name when they are not the list's NodeInfos
        (clones); None when a name is not in the list."""
        rows = rows_in(self.snap.node_info_list, nodes)
        if rows is not None:
            return rows
        by_name = self._rows_by_name
        if by_name is None:
            own = self.snap.node_info_list
            by_name = self._rows_by_name = {ni.name: i for i, ni in enumerate(own)}
        found = [by_name.get(ni.name, -1) for ni in nodes]
        if -1 in found:
            return None
        return np.asarray(found, dtype=np.intp)
