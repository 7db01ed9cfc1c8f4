"""Which pod (anti-)affinity terms and topology spread constraints a node violates, and why.

Read off the pod's parsed terms, the node's topology domains and, for
spreading, the PodTopologySpread PreFilter state the filter itself reads.
Terms are numbered as in the pod's spec (``requiredDuringScheduling...[i]``,
``topologySpreadConstraints[i]``).
"""

from __future__ import annotations

from typing import Any

from ..framework.cycle_state import CycleState
from ..framework.node_info import NodeInfo
from ..framework.snapshot import Snapshot
from ..objects import AffinityTerm, Pod
from ..plugins.podtopologyspread.common import DO_NOT_SCHEDULE
from ..plugins.podtopologyspread.common import PRE_FILTER_STATE_KEY as SPREAD_STATE

__all__ = ["MAX_PODS_NAMED", "affinity_violations", "spread_violations"]

# pods named per violated term (the count stays exact)
MAX_PODS_NAMED = 5


def _domain_nodes(snapshot: Snapshot, key: str, value: str) -> list[NodeInfo]:
    return [ni for ni in snapshot.node_info_list if ni.node.labels.get(key) == value]


def _ns_labels(snapshot: Snapshot, pod: Pod) -> Any:
    return snapshot.namespace_labels.get(pod.namespace)


def _matching(snapshot: Snapshot, term: AffinityTerm, nodes: list[NodeInfo]) -> list[str]:
    return [p.key for ni in nodes for p in ni.pods if term.matches(p, _ns_labels(snapshot, p))]


def _entry(kind: str, index: int, key: str, domain: str | None, pods: list[str]) -> dict[str, Any]:
    return {
        "kind": kind,
        "term": index,
        "topologyKey": key,
        "domain": domain,
        "pods": sorted(pods)[:MAX_PODS_NAMED],
        "podCount": len(pods),
    }


def affinity_violations(snapshot: Snapshot, pod: Pod, node_info: NodeInfo) -> list[dict[str, Any]]:
    """The pod's required affinity and anti-affinity terms, and running pods' anti-affinity,
    that rule the node out."""
    labels = node_info.node.labels
    out: list[dict[str, Any]] = []
    for i, t in enumerate(pod.required_anti_affinity_terms):
        value = labels.get(t.topology_key)
        if value is None:
            continue
        pods = _matching(snapshot, t, _domain_nodes(snapshot, t.topology_key, value))
        if pods:
            out.append(_entry("podAntiAffinity", i, t.topology_key, value, pods))
    for i, t in enumerate(pod.required_affinity_terms):
        value = labels.get(t.topology_key)
        if value is None:
            out.append(_entry("podAffinity", i, t.topology_key, None, []))
            continue
        if not _matching(snapshot, t, _domain_nodes(snapshot, t.topology_key, value)):
            out.append(_entry("podAffinity", i, t.topology_key, value, []))
    own = _ns_labels(snapshot, pod)
    holders: dict[tuple[str, str], list[str]] = {}
    for ni in snapshot.have_pods_with_required_anti_affinity():
        for other in ni.pods_with_required_anti_affinity:
            for t in other.required_anti_affinity_terms:
                value = ni.node.labels.get(t.topology_key)
                if (
                    value is not None
                    and labels.get(t.topology_key) == value
                    and t.matches(pod, own)
                ):
                    holders.setdefault((t.topology_key, value), []).append(other.key)
    for (key, value), pods in sorted(holders.items()):
        out.append(_entry("existingPodAntiAffinity", -1, key, value, pods))
    return out


def spread_violations(state: CycleState, pod: Pod, node_info: NodeInfo) -> list[dict[str, Any]]:
    """DoNotSchedule constraints whose skew the node would exceed, from the PreFilter state."""
    s = state.get(SPREAD_STATE)
    if s is None or not s.constraints:
        return []
    raw_index = [
        i
        for i, c in enumerate(pod.topology_spread_constraints)
        if c.get("whenUnsatisfiable") == DO_NOT_SCHEDULE
    ]
    labels = node_info.node.labels
    out: list[dict[str, Any]] = []
    for i, c in enumerate(s.constraints):
        value = labels.get(c.topology_key)
        index = raw_index[i] if i < len(raw_index) else -1  # -1: a default constraint
        entry = {
            "kind": "topologySpread",
            "term": index,
            "topologyKey": c.topology_key,
            "domain": value,
            "maxSkew": c.max_skew,
        }
        if value is None:
            out.append({**entry, "skew": None})
            continue
        min_match = s.min_match_num(i, c.min_domains)
        skew = s.tp_value_to_match_num[i].get(value, 0) + s.self_match[i] - min_match
        if skew > c.max_skew:
            out.append({**entry, "skew": skew})
    return out
