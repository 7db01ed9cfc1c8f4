"""What filtering and scoring share (upstream ``common.go``): constraints, the
default selector, node inclusion policies, critical paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...framework import Status
from ...objects import LabelSelector, Node, Pod, find_untolerated, parse_label_selector
from ...objects.selectors import SelectorError, selector_from_set
from ...objects.taints import NO_EXECUTE, NO_SCHEDULE

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


@dataclass(slots=True, eq=False, repr=False)
class Constraint:
    """A parsed ``TopologySpreadConstraint`` (upstream ``topologySpreadConstraint``)."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    affinity_honor: bool = True
    taints_honor: bool = False

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


def _missing_state(key: str) -> Status:
    return Status.from_error(KeyError(f'reading "{key}" from cycleState: not found'), NAME)
