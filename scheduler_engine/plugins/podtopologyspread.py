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

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..framework import MAX_NODE_SCORE, Code, CycleState, Handle, NodeInfo, NodeScore, Status
from ..framework.cycle_state import StateData
from ..framework.interfaces import PreFilterResult
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
    __slots__ = ("constraints", "critical_paths", "self_match", "tp_value_to_match_num")

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

    def min_match_num(self, i: int, min_domains: int) -> int:
        # fewer eligible domains than minDomains: the global minimum is taken as 0
        if len(self.tp_value_to_match_num[i]) < min_domains:
            return 0
        return self.critical_paths[i].n0

    def clone(self) -> PreFilterState:
        return PreFilterState(
            self.constraints,
            [p.copy() for p in self.critical_paths],
            [dict(m) for m in self.tp_value_to_match_num],
            self.self_match,
        )


class PreScoreState(StateData):
    __slots__ = (
        "constraints",
        "count_ids",
        "ignored_nodes",
        "normalizing_weight",
        "tp_value_to_pod_counts",
    )

    def __init__(self) -> None:
        self.constraints: list[Constraint] = []
        self.ignored_nodes: set[str] = set()
        self.tp_value_to_pod_counts: list[dict[str, int]] = []
        self.normalizing_weight: list[float] = []
        self.count_ids: list[int] = []

    def clone(self) -> PreScoreState:
        # read-only after PreScore, as upstream
        return self


# fdlibm's log as Go's math.Log computes it (pure Go and the amd64 assembly alike).
# libm's log is correctly rounded and differs from it by one ulp for some integers
# (log(3) among them), which could move a score across a rounding boundary.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LG1 = 6.666666666666735130e-01
_LG2 = 3.999999999940941908e-01
_LG3 = 2.857142874366239149e-01
_LG4 = 2.222219843214978396e-01
_LG5 = 1.818357216161805012e-01
_LG6 = 1.531383769920937332e-01
_LG7 = 1.479819860511658591e-01
_SQRT2_HALF = math.sqrt(2) / 2


def go_log(x: float) -> float:
    """Natural log of a finite ``x > 0`` with Go's ``math.Log`` rounding."""
    f1, exp = math.frexp(x)
    if f1 < _SQRT2_HALF:
        f1 *= 2
        exp -= 1
    f = f1 - 1
    k = float(exp)
    s = f / (2 + f)
    s2 = s * s
    s4 = s2 * s2
    t1 = s2 * (_LG1 + s4 * (_LG3 + s4 * (_LG5 + s4 * _LG7)))
    t2 = s4 * (_LG2 + s4 * (_LG4 + s4 * _LG6))
    r = t1 + t2
    hfsq = 0.5 * f * f
    return k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)


_WEIGHTS: dict[int, float] = {}


def topology_normalizing_weight(size: int) -> float:
    """log(size + 2): smaller topologies' counts are not watered down by bigger ones."""
    w = _WEIGHTS.get(size)
    if w is None:
        w = _WEIGHTS[size] = go_log(float(size + 2))
    return w


def _score_for_count(cnt: int, max_skew: int, weight: float) -> float:
    return float(cnt) * weight + float(max_skew - 1)


def _go_round(x: float) -> int:
    """Go's math.Round: halves away from zero (Python's round() goes to even)."""
    r = math.floor(abs(x))
    if abs(x) - r >= 0.5:
        r += 1
    return int(math.copysign(r, x))


# -- the plugin -----------------------------------------------------------------


class PodTopologySpread:
    NAME = NAME

    def __init__(
        self,
        default_constraints: Sequence[Mapping[str, Any]] = (),
        system_defaulted: bool = False,
        handle: Handle | None = None,
    ) -> None:
        self.default_constraints = tuple(default_constraints)
        self.system_defaulted = system_defaulted
        self.handle = handle
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
        state.write(PRE_FILTER_STATE_KEY, self._cal_pre_filter_state(pod, constraints, nodes))
        return None, None

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

        ns = pod.namespace
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
        return _go_round(score)

    def score_extensions(self) -> PodTopologySpread:
        return self

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
            ns.score = _go_div(MAX_NODE_SCORE * (max_score + min_score - ns.score), max_score)
        return None


def _go_div(a: int, b: int) -> int:
    """Go's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


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
