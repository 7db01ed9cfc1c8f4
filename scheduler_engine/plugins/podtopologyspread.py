"""PodTopologySpread: PreFilter (+ AddPod/RemovePod), Filter, PreScore, Score, NormalizeScore.

Upstream counterpart: ``pkg/scheduler/framework/plugins/podtopologyspread``
(v1.36).  Hard constraints (``whenUnsatisfiable: DoNotSchedule``) filter nodes
by skew; soft ones (``ScheduleAnyway``) score them.  Pods without constraints
of their own get the profile's default constraints (the system defaults:
hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway), with a selector
taken from the Services, ReplicationControllers, ReplicaSets and StatefulSets
that select the pod (upstream ``helper.DefaultSelector``).

Feature gates as in v1.36: NodeInclusionPolicyInPodTopologySpread is GA (the
policies always apply), MatchLabelKeysInPodTopologySpread is on (keys are merged
into the selector here too; merging again what the API server already merged
changes nothing), TaintTolerationComparisonOperators is off.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..framework import MAX_NODE_SCORE, Code, CycleState, Handle, NodeInfo, NodeScore, Status
from ..framework.cycle_state import StateData
from ..framework.interfaces import PreFilterResult
from ..gocompat import go_div, go_log, go_round, go_round_array
from ..objects import LabelSelector, Node, Pod, find_untolerated, parse_label_selector
from ..objects.selectors import SelectorError, selector_from_set
from ..objects.taints import NO_EXECUTE, NO_SCHEDULE

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PLUGIN",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "PodTopologySpread",
    "default_selector",
    "new",
]

NAME = "PodTopologySpread"

ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"

LABEL_HOSTNAME = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE = "topology.kubernetes.io/zone"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
SYSTEM_DEFAULTING = "System"

# Upstream's order: hostname first.  The order matters because scores are float sums.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[Mapping[str, Any], ...] = (
    {"topologyKey": LABEL_HOSTNAME, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": LABEL_TOPOLOGY_ZONE, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)

PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

_MAX_INT32 = 2**31 - 1
_INVALID_SCORE = -1
_DO_NOT_SCHEDULE_EFFECTS = (NO_SCHEDULE, NO_EXECUTE)

# (kind, apiVersion group/version) of the controllers DefaultSelector reads
_RC = ("", "v1", "ReplicationController")
_RS = ("apps", "v1", "ReplicaSet")
_SS = ("apps", "v1", "StatefulSet")


class Constraint:
    """A parsed ``TopologySpreadConstraint`` (upstream ``topologySpreadConstraint``)."""

    __slots__ = (
        "affinity_honor",
        "max_skew",
        "min_domains",
        "selector",
        "taints_honor",
        "topology_key",
    )

    def __init__(
        self,
        max_skew: int,
        topology_key: str,
        selector: LabelSelector,
        min_domains: int = 1,
        affinity_honor: bool = True,
        taints_honor: bool = False,
    ) -> None:
        self.max_skew = max_skew
        self.topology_key = topology_key
        self.selector = selector
        self.min_domains = min_domains
        self.affinity_honor = affinity_honor
        self.taints_honor = taints_honor

    def __repr__(self) -> str:
        return (
            f"Constraint(maxSkew={self.max_skew}, key={self.topology_key!r}, "
            f"minDomains={self.min_domains})"
        )


def _merge_match_labels(match_labels: Mapping[str, str], selector: LabelSelector) -> LabelSelector:
    # A selector that selects nothing has no requirements to add: it stays as it is.
    if selector.nothing:
        return selector
    base = selector_from_set(match_labels)
    return LabelSelector(base.requirements + selector.requirements)


def _filter_constraints(
    raw: Sequence[Mapping[str, Any]], pod_labels: Mapping[str, str], action: str
) -> list[Constraint]:
    """Constraints with ``whenUnsatisfiable == action``; raises SelectorError."""
    out: list[Constraint] = []
    for i, c in enumerate(raw):
        if c.get("whenUnsatisfiable") != action:
            continue
        selector = parse_label_selector(
            c.get("labelSelector"), f"spec.topologySpreadConstraints[{i}].labelSelector"
        )
        keys = c.get("matchLabelKeys") or ()
        if keys:
            match_labels = {k: pod_labels[k] for k in keys if k in pod_labels}
            if match_labels:
                selector = _merge_match_labels(match_labels, selector)
        min_domains = c.get("minDomains")
        out.append(
            Constraint(
                int(c.get("maxSkew") or 0),
                str(c.get("topologyKey") or ""),
                selector,
                1 if min_domains is None else int(min_domains),
                (c.get("nodeAffinityPolicy") or HONOR) == HONOR,
                (c.get("nodeTaintsPolicy") or IGNORE) == HONOR,
            )
        )
    return out


def _node_has_all_keys(labels: Mapping[str, str], constraints: Sequence[Constraint]) -> bool:
    for c in constraints:
        if c.topology_key not in labels:
            return False
    return True


def _count_matching(pods: Sequence[Pod], selector: LabelSelector, ns: str) -> int:
    """Pods in ``ns`` matching ``selector``, terminating pods left out (upstream #87621)."""
    if selector.empty:
        return 0
    n = 0
    for p in pods:
        if p.terminating or p.namespace != ns:
            continue
        if selector.matches(p.labels):
            n += 1
    return n


def _required_node_affinity_matches(pod: Pod, node: Node) -> bool:
    """``nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)``: nodeSelector and required terms."""
    labels = node.labels
    for k, v in pod.node_selector.items():
        if labels.get(k) != v:
            return False
    req = pod.required_node_affinity
    return req is None or req.matches(labels, node.name)


class _NodePolicy:
    """Evaluates a node's inclusion once per node and only when a constraint asks."""

    __slots__ = ("_aff", "_pod", "_taints")

    def __init__(self, pod: Pod) -> None:
        self._pod = pod
        self._aff: bool | None = None
        self._taints: bool | None = None

    def reset(self) -> None:
        self._aff = None
        self._taints = None

    def includes(self, c: Constraint, node: Node) -> bool:
        if c.affinity_honor:
            if self._aff is None:
                self._aff = _required_node_affinity_matches(self._pod, node)
            if not self._aff:
                return False
        if c.taints_honor:
            if self._taints is None:
                self._taints = (
                    find_untolerated(node.taints, self._pod.tolerations, _DO_NOT_SCHEDULE_EFFECTS)
                    is None
                )
            if not self._taints:
                return False
        return True


def _same_selector_index(constraints: Sequence[Constraint]) -> list[int]:
    """For each constraint, the first constraint with an equal selector (counts are shared)."""
    out: list[int] = []
    for i, c in enumerate(constraints):
        j = i
        for k in range(i):
            if constraints[k].selector == c.selector:
                j = k
                break
        out.append(j)
    return out


# -- default selector (upstream helper.DefaultSelector) -------------------------


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    return None


def _controller_of(pod: Pod) -> Mapping[str, Any] | None:
    meta = pod.raw.get("metadata") or {}
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller") is True:
            return ref
    return None


def _ns_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "default")


def _name_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def default_selector(pod: Pod, objects_of_kind: Any) -> LabelSelector:
    """The selector deduced from the Services, RCs, RSs and StatefulSets that select ``pod``.

    ``objects_of_kind(kind)`` lists the snapshot's objects of a kind (dicts).
    """
    ns = pod.namespace
    label_set: dict[str, str] = {}
    pod_labels = pod.labels
    for svc in objects_of_kind("Service"):
        if _ns_of(svc) != ns:
            continue
        sel = (svc.get("spec") or {}).get("selector")
        # a nil selector matches nothing (not everything)
        if sel is None or not isinstance(sel, Mapping):
            continue
        if all(pod_labels.get(str(k)) == str(v) for k, v in sel.items()):
            label_set.update({str(k): str(v) for k, v in sel.items()})
    selector = selector_from_set(label_set)

    owner = _controller_of(pod)
    if owner is None:
        return selector
    gv = _parse_group_version(str(owner.get("apiVersion") or ""))
    if gv is None:
        return selector
    gvk = (gv[0], gv[1], str(owner.get("kind") or ""))
    if gvk not in (_RC, _RS, _SS):
        return selector
    name = str(owner.get("name") or "")
    found = None
    for obj in objects_of_kind(gvk[2]):
        if _name_of(obj) == name and _ns_of(obj) == ns:
            found = obj
            break
    if found is None:
        return selector
    spec = found.get("spec") or {}
    if gvk == _RC:
        rc_sel = spec.get("selector") or {}
        if isinstance(rc_sel, Mapping):
            label_set.update({str(k): str(v) for k, v in rc_sel.items()})
        return selector_from_set(label_set)
    try:
        other = parse_label_selector(spec.get("selector"), "spec.selector")
    except SelectorError:
        return selector
    if other.nothing:
        return selector
    return LabelSelector(selector.requirements + other.requirements)


# -- state ----------------------------------------------------------------------


class CriticalPaths:
    """The two lowest-count domains seen (upstream ``criticalPaths``).

    Only ``n0`` (the minimum) is read.  As upstream, after AddPod/RemovePod the
    pair may no longer hold the true minimum (see upstream's CAVEAT); in Go
    that depends on map order, here on the domains' first-seen order.
    """

    __slots__ = ("n0", "n1", "v0", "v1")

    def __init__(self) -> None:
        self.v0 = ""
        self.n0 = _MAX_INT32
        self.v1 = ""
        self.n1 = _MAX_INT32

    def update(self, tp_val: str, num: int) -> None:
        if tp_val == self.v0:
            self.n0 = num
        elif tp_val == self.v1:
            self.n1 = num
        else:
            if num < self.n0:
                self.v1, self.n1 = self.v0, self.n0
                self.v0, self.n0 = tp_val, num
            elif num < self.n1:
                self.v1, self.n1 = tp_val, num
            return
        if self.n0 > self.n1:
            self.v0, self.n0, self.v1, self.n1 = self.v1, self.n1, self.v0, self.n0

    def copy(self) -> CriticalPaths:
        c = CriticalPaths.__new__(CriticalPaths)
        c.v0, c.n0, c.v1, c.n1 = self.v0, self.n0, self.v1, self.n1
        return c

    def __repr__(self) -> str:
        return f"[{self.v0!r}:{self.n0}, {self.v1!r}:{self.n1}]"


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


class PreScoreState(StateData):
    __slots__ = (
        "batch_ignored",
        "constraints",
        "count_ids",
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
        self.count_ids: list[int] = []
        # fast path: the index, ignored nodes as a mask over its rows, and the ignored
        # mask of the nodes score_batch last scored (normalize_score_batch gets no nodes)
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


def _score_for_count(cnt: int, max_skew: int, weight: float) -> float:
    return float(cnt) * weight + float(max_skew - 1)


# -- incremental, vectorised views ----------------------------------------------
#
# Per snapshot (in ``Snapshot.extensions``): for each topology key a per-node domain
# id; for each (selector, namespace) the matching-pod count of every node; for each
# (counts, topology key, eligible nodes) the per-domain sums.  All are brought up to
# date from ``Snapshot.change_log`` (only nodes whose pods changed are recounted),
# and node eligibility (required labels, nodeAffinityPolicy, nodeTaintsPolicy) is
# evaluated once per distinct node signature.  They give exactly what the per-node
# loops (kept as the reference, used whenever the nodes are not the snapshot's own)
# give, in the same domain order.

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


class _SpreadIndex:
    """The per-snapshot views (see above)."""

    __slots__ = (
        "_aff",
        "_domains",
        "_keys",
        "_node_counts",
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
        from .helper import signatures_for

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
        own = self.snap.node_info_list
        if nodes is own:
            return np.arange(len(own), dtype=np.intp)
        idx = [ni.index for ni in nodes]
        n = len(own)
        for i in idx:
            if not 0 <= i < n:
                return None
        if not all(map(operator.is_, [own[i] for i in idx], nodes)):
            return None
        return np.array(idx, dtype=np.intp)


# -- the plugin -----------------------------------------------------------------


class PodTopologySpread:
    NAME = NAME

    def __init__(
        self,
        default_constraints: Sequence[Mapping[str, Any]] = (),
        system_defaulted: bool = False,
        handle: Handle | None = None,
        incremental: bool = True,
    ) -> None:
        self.default_constraints = tuple(default_constraints)
        self.system_defaulted = system_defaulted
        self.handle = handle
        # False keeps to the per-node loops (the reference the fast paths are tested against)
        self.incremental = incremental
        # Matching-pod counts per node, reused across cycles while the node's pods are
        # unchanged: (selector, namespace) → small id; node name → {id: (NodeInfo, generation, count)}.
        # The NodeInfo identity check keeps preemption's clones and new snapshots apart.
        self._count_ids: dict[tuple[LabelSelector, str], int] = {}
        self._counts: dict[str, dict[int, tuple[NodeInfo, int, int]]] = {}

    def _count_id(self, selector: LabelSelector, ns: str) -> int:
        key = (selector, ns)
        cid = self._count_ids.get(key)
        if cid is None:
            if len(self._count_ids) > 4096:
                self._count_ids.clear()
                self._counts.clear()
            cid = self._count_ids[key] = len(self._count_ids)
        return cid

    def _count(self, ni: NodeInfo, cid: int, selector: LabelSelector, ns: str) -> int:
        pods = ni.pods
        if not pods or selector.empty:
            return 0
        per_node = self._counts.get(ni.node.name)
        if per_node is None:
            per_node = self._counts[ni.node.name] = {}
        hit = per_node.get(cid)
        gen = ni.generation
        if hit is not None and hit[0] is ni and hit[1] == gen:
            return hit[2]
        n = _count_matching(pods, selector, ns)
        per_node[cid] = (ni, gen, n)
        return n

    # -- constraints -----------------------------------------------------------
    def _objects_of_kind(self, kind: str) -> list[Mapping[str, Any]]:
        cluster = getattr(self.handle, "cluster", None) if self.handle is not None else None
        if cluster is None:
            return []
        return cluster.of_kind(kind)

    def _default_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        constraints = _filter_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        selector = default_selector(pod, self._objects_of_kind)
        if selector.empty:
            return []
        for c in constraints:
            c.selector = selector
        return constraints

    def get_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """The pod's own constraints for ``action``, else the defaults; raises SelectorError."""
        if pod.topology_spread_constraints:
            # depends only on the pod: parse once
            cache = pod.cache.get(NAME)
            if cache is None:
                cache = pod.cache[NAME] = {}
            got = cache.get(action)
            if got is None:
                got = cache[action] = _filter_constraints(
                    pod.topology_spread_constraints, pod.labels, action
                )
            return got
        return self._default_constraints(pod, action)

    # -- PreFilter ---------------------------------------------------------------
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
        index = self._index_for(nodes)
        if index is not None:
            st = self._fast_pre_filter_state(index, pod, constraints)
        else:
            st = self._cal_pre_filter_state(pod, constraints, nodes)
        state.write(PRE_FILTER_STATE_KEY, st)
        return None, None

    def _index_for(self, nodes: Sequence[NodeInfo]) -> _SpreadIndex | None:
        """The snapshot's index when ``nodes`` is the snapshot's own node list."""
        if not self.incremental:
            return None
        index = _SpreadIndex.of(self.handle)
        if index is None or nodes is not index.snap.node_info_list:
            return None
        return index

    def _fast_pre_filter_state(
        self, index: _SpreadIndex, pod: Pod, constraints: list[Constraint]
    ) -> PreFilterState:
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

    def _cal_pre_filter_state(
        self, pod: Pod, constraints: list[Constraint], nodes: Sequence[NodeInfo]
    ) -> PreFilterState:
        n = len(constraints)
        counts: list[dict[str, int]] = [{} for _ in range(n)]
        shared = _same_selector_index(constraints)
        ns = pod.namespace
        policy = _NodePolicy(pod)
        per_node = [0] * n
        idx = range(n)
        cids = [self._count_id(c.selector, ns) for c in constraints]
        for ni in nodes:
            node = ni.node
            labels = node.labels
            if not _node_has_all_keys(labels, constraints):
                continue
            policy.reset()
            pods = ni.pods
            for i in idx:
                c = constraints[i]
                if not policy.includes(c, node):
                    per_node[i] = -1
                    continue
                j = shared[i]
                if j != i and per_node[j] >= 0:
                    cnt = per_node[j]
                else:
                    cnt = self._count(ni, cids[i], c.selector, ns) if pods else 0
                per_node[i] = cnt
                d = counts[i]
                v = labels[c.topology_key]
                d[v] = d.get(v, 0) + cnt
        paths = []
        for i in idx:
            p = CriticalPaths()
            for v, num in counts[i].items():
                p.update(v, num)
            paths.append(p)
        pod_labels = pod.labels
        self_match = [1 if c.selector.matches(pod_labels) else 0 for c in constraints]
        return PreFilterState(constraints, paths, counts, self_match)

    def pre_filter_extensions(self) -> PodTopologySpread:
        return self

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _missing_state(PRE_FILTER_STATE_KEY)
        self._update_with_pod(s, pod_to_add, pod_to_schedule, node_info.node, 1)
        return None

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return _missing_state(PRE_FILTER_STATE_KEY)
        self._update_with_pod(s, pod_to_remove, pod_to_schedule, node_info.node, -1)
        return None

    @staticmethod
    def _update_with_pod(
        s: PreFilterState, updated: Pod, preemptor: Pod, node: Node | None, delta: int
    ) -> None:
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
            min_match = s.min_match_num(i, c.min_domains)
            skew = counts[i].get(tp_val, 0) + s.self_match[i] - min_match
            if skew > c.max_skew:
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
        index = s.index if self.incremental else None
        rows = index.rows(nodes) if index is not None else None
        if index is None or rows is None:
            filt = self.filter
            return np.fromiter((filt(state, pod, ni) is None for ni in nodes), dtype=bool, count=n)
        ok = np.ones(n, dtype=bool)
        arrays = s.domain_counts
        counts = s.tp_value_to_match_num
        for i, c in enumerate(s.constraints):
            doms = index.domains(c.topology_key)
            ids = doms.ids[rows]
            if arrays is not None:
                per_domain = arrays[i]
            else:
                # AddPod/RemovePod changed the counts: read them back from the dict
                per_domain = np.zeros(len(doms), dtype=np.int64)
                index_of = doms.index_of
                for v, num in counts[i].items():
                    k = index_of.get(v)
                    if k is not None:
                        per_domain[k] = num
            min_match = s.min_match_num(i, c.min_domains)
            passes = (per_domain + (s.self_match[i] - min_match)) <= c.max_skew
            ok &= (ids >= 0) & passes[np.maximum(ids, 0)]
        return ok

    # -- PreScore ----------------------------------------------------------------
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
        s = PreScoreState()
        s.constraints = constraints
        n = len(constraints)
        ns = pod.namespace
        index = _SpreadIndex.of(self.handle) if self.incremental else None
        rows = None
        if index is not None and all_nodes is index.snap.node_info_list:
            rows = index.rows(nodes)
        if index is not None and rows is not None:
            self._fast_pre_score_state(index, s, pod, constraints, nodes, rows, require_all)
            s.count_ids = [self._count_id(c.selector, ns) for c in constraints]
            state.write(PRE_SCORE_STATE_KEY, s)
            return None
        counts: list[dict[str, int]] = [{} for _ in range(n)]
        is_host = [c.topology_key == LABEL_HOSTNAME for c in constraints]
        ignored = s.ignored_nodes
        for ni in nodes:
            labels = ni.node.labels
            if require_all and not _node_has_all_keys(labels, constraints):
                ignored.add(ni.node.name)
                continue
            for i, c in enumerate(constraints):
                if is_host[i]:
                    # per-node counts are taken in Score
                    continue
                counts[i].setdefault(labels.get(c.topology_key, ""), 0)
        weights = []
        for i in range(n):
            size = len(nodes) - len(ignored) if is_host[i] else len(counts[i])
            weights.append(topology_normalizing_weight(size))

        cids = [self._count_id(c.selector, ns) for c in constraints]
        policy = _NodePolicy(pod)
        for ni in all_nodes:
            node = ni.node
            labels = node.labels
            if require_all and not _node_has_all_keys(labels, constraints):
                continue
            policy.reset()
            pods = ni.pods
            for i, c in enumerate(constraints):
                if not policy.includes(c, node):
                    continue
                d = counts[i]
                v = labels.get(c.topology_key, "")
                # domains of no candidate node (and hostname) are not counted here
                if v not in d:
                    continue
                if pods:
                    d[v] += self._count(ni, cids[i], c.selector, ns)
        s.tp_value_to_pod_counts = counts
        s.count_ids = cids
        s.normalizing_weight = weights
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    @staticmethod
    def _fast_pre_score_state(
        index: _SpreadIndex,
        s: PreScoreState,
        pod: Pod,
        constraints: list[Constraint],
        nodes: Sequence[NodeInfo],
        rows: np.ndarray,
        require_all: bool,
    ) -> None:
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
                # per-node counts are taken in Score
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
                cnt = self._count(node_info, s.count_ids[i], c.selector, pod.namespace)
            else:
                cnt = s.tp_value_to_pod_counts[i].get(tp_val, 0)
            score += _score_for_count(cnt, c.max_skew, s.normalizing_weight[i])
        return go_round(score)

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """``score(...)`` for every node: per-domain counts broadcast through domain ids."""
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            raise KeyError(f'reading "{PRE_SCORE_STATE_KEY}" from cycleState: not found')
        n = len(nodes)
        index = s.index if self.incremental else None
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
                per_domain = np.zeros(len(doms), dtype=np.int64)
                index_of = doms.index_of
                for v, num in s.tp_value_to_pod_counts[i].items():
                    per_domain[index_of[v]] = num
                cnt = per_domain[np.maximum(ids, 0)]
            # the same float64 operations, in the same order, as _score_for_count and Score
            term = cnt.astype(np.float64) * s.normalizing_weight[i] + float(c.max_skew - 1)
            acc = np.where(present, acc + term, acc)
        ign = s.ignored_mask[rows]
        s.batch_ignored = ign
        return np.where(ign, 0, go_round_array(acc))

    def score_extensions(self) -> PodTopologySpread:
        return self

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
        if len(scores) == 0:
            return None
        valid = ~ign
        if valid.any():
            min_score = int(scores[valid].min())
            max_score = max(0, int(scores[valid].max()))
        else:
            min_score, max_score = 2**63 - 1, 0
        marked = np.where(ign, _INVALID_SCORE, scores)
        if max_score == 0:
            out = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
        else:
            num = MAX_NODE_SCORE * (max_score + min_score - marked)
            q = np.abs(num) // max_score
            out = np.where(num < 0, -q, q)
        scores[:] = np.where(marked == _INVALID_SCORE, 0, out)
        return None

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        s: PreScoreState | None = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return _missing_state(PRE_SCORE_STATE_KEY)
        ignored = s.ignored_nodes
        min_score = 2**63 - 1
        max_score = 0
        for ns in scores:
            if ns.name in ignored:
                ns.score = _INVALID_SCORE
                continue
            if ns.score < min_score:
                min_score = ns.score
            if ns.score > max_score:
                max_score = ns.score
        for ns in scores:
            if ns.score == _INVALID_SCORE:
                ns.score = 0
                continue
            if max_score == 0:
                ns.score = MAX_NODE_SCORE
                continue
            ns.score = go_div(MAX_NODE_SCORE * (max_score + min_score - ns.score), max_score)
        return None


def _missing_state(key: str) -> Status:
    return Status.from_error(KeyError(f'reading "{key}" from cycleState: not found'), NAME)


PLUGIN = PodTopologySpread


def new(args: Mapping[str, Any], handle: Handle | None) -> PodTopologySpread:
    """Build from PodTopologySpreadArgs (``defaultConstraints``, ``defaultingType``)."""
    args = args or {}
    defaulting = args.get("defaultingType") or SYSTEM_DEFAULTING
    if defaulting == SYSTEM_DEFAULTING:
        return PodTopologySpread(SYSTEM_DEFAULT_CONSTRAINTS, True, handle)
    return PodTopologySpread(tuple(args.get("defaultConstraints") or ()), False, handle)
