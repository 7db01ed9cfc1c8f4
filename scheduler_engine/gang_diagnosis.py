"""A pending gang explained as a job: how many members fit, where, and what blocks the rest.

Built after a run from each pod group's last cycle.  The summary line reads
like ``10 of 16 fit, all in zone b; 6 blocked: 4 Insufficient nvidia.com/gpu,
2 node(s) had untolerated taint(s)``: members that fit counted per domain of
a node label (the group's topology key, else the zone or node pool label),
blocked members counted by the reason that rejected most nodes for them
(the reasons of the ``FailedScheduling`` histogram; shortfalls before
reasons no change to the cluster's load can lift), and the quorum it lacks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .framework.snapshot import Snapshot
from .objects.podgroup import COSCHEDULING_LABEL
from .scheduler.messages import FitError

__all__ = [
    "DOMAIN_LABELS",
    "GangView",
    "blocking_reason",
    "broken_gangs",
    "describe_domains",
    "gang_summary",
]


# labels a gang's members are counted by when the group names no topology key
DOMAIN_LABELS: tuple[str, ...] = (
    "topology.kubernetes.io/zone",
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "kubernetes.azure.com/agentpool",
    "node.kubernetes.io/instance-type",
)


def blocking_reason(fe: FitError | None, message: str) -> str:
    """The reason that rejected most nodes for a member (its own message when not a FitError)."""
    if fe is None:
        return message
    d = fe.diagnosis
    if d.pre_filter_msg:
        return d.pre_filter_msg
    # nodes turned down for a reason that can change (a shortfall: Unschedulable) say
    # what blocks the member where it could go; nodes it may never use (taints,
    # selectors: UnschedulableAndUnresolvable) only when there are no others
    every, resolvable = fe.reason_counts()
    hist = resolvable or every
    if not hist:
        return message
    return min(hist.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def _domain_word(key: str) -> str:
    if key == "topology.kubernetes.io/zone":
        return "zone"
    if key in DOMAIN_LABELS[1:4]:
        return "node pool"
    return key.rsplit("/", 1)[-1]


def describe_domains(
    hosts: Iterable[str], snapshot: Snapshot, topology_key: str | None
) -> tuple[str | None, dict[str, int]]:
    """(label key, domain → members) for the nodes members were placed on."""
    hosts = list(hosts)
    labels = []
    for h in hosts:
        ni = snapshot.get(h)
        labels.append(ni.node.labels if ni is not None else {})
    key = topology_key
    if key is None:
        key = next((k for k in DOMAIN_LABELS if any(k in lb for lb in labels)), None)
    if key is None:
        return None, {}
    counts: Counter[str] = Counter(lb.get(key, "(none)") for lb in labels)
    return key, dict(sorted(counts.items()))


class GangView:
    """What the CLI reports for one gang (``gang`` on members, ``gangs`` in the summary)."""

    def __init__(
        self,
        name: str,
        api: str,
        min_member: int | None,
        members: Sequence[str],
    ) -> None:
        self.name = name
        self.api = api
        self.min_member = min_member
        self.members = list(members)
        self.scheduled = 0
        self.placed = 0
        self.status = "Pending"
        self.reasons: dict[str, int] = {}
        self.domain_key: str | None = None
        self.domains: dict[str, int] = {}
        self.message = ""
        self.placements: list[dict[str, Any]] = []
        self.placement: str | None = None
        self.quorum_missing = 0
        # members that fit but were let go at Permit (timeout, rejection), by reason
        self.released: dict[str, int] = {}

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "api": self.api,
            "minMember": self.min_member,
            "members": len(self.members),
            "placed": self.placed,
            "scheduled": self.scheduled,
            "status": self.status,
            "reasons": dict(self.reasons),
            "domainKey": self.domain_key,
            "domains": dict(self.domains),
            "message": self.message,
            "summary": gang_summary(self),
        }
        if self.placements:
            d["placements"] = [dict(p) for p in self.placements]
            d["placement"] = self.placement
        if self.quorum_missing:
            d["quorumMissing"] = self.quorum_missing
        if self.released:
            d["released"] = dict(self.released)
        return d


def gang_summary(g: GangView) -> str:
    """``10 of 16 fit, all in zone b; 6 blocked: 4 Insufficient nvidia.com/gpu, ...``."""
    n = len(g.members)
    if g.status == "QuorumNotReached":
        return (
            f"{n} of minMember {g.min_member} pods exist; waiting for {g.quorum_missing} more "
            "before any is scheduled"
        )
    parts = [f"{g.placed} of {n} fit"]
    if g.domains and g.placed:
        word = _domain_word(g.domain_key or "")
        if len(g.domains) == 1:
            (dom,) = g.domains
            parts[0] += f", all in {word} {dom}"
        else:
            parts[0] += ", " + ", ".join(f"{c} in {word} {d}" for d, c in g.domains.items())
    blocked = sum(g.reasons.values())
    text = parts[0]
    if blocked:
        hist = ", ".join(
            f"{c} {r}" for r, c in sorted(g.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        text += f"; {blocked} blocked: {hist}"
    if g.released:
        hist = ", ".join(
            f"{c} {r}" for r, c in sorted(g.released.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        text += f"; released at Permit: {hist}"
    if g.status == "Unschedulable" and g.min_member is not None and g.placed < g.min_member:
        text += f"; needs {g.min_member}, lacks {g.min_member - g.placed}"
    if g.status == "Unschedulable" and len(g.placements) > 1:
        text += "; " + _domains_tried(g)
    return text


def _domains_tried(g: GangView) -> str:
    """``3 zones tried, none holds 4: us-east-1a 3 fit (1 Insufficient cpu), ...``."""
    word = _domain_word(g.domain_key or "")
    need = g.min_member if g.min_member is not None else len(g.members)
    parts = []
    for p in sorted(g.placements, key=lambda e: (-int(e["placed"]), str(e["name"]))):
        reasons = p.get("reasons") or {}
        why = ", ".join(
            f"{c} {r}" for r, c in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))
        )
        parts.append(f"{p['name']} {p['placed']} fit" + (f" ({why})" if why else ""))
    return f"{len(g.placements)} {word}s tried, none holds {need}: " + ", ".join(parts)


def count_reasons(blocked: Iterable[tuple[FitError | None, str]]) -> dict[str, int]:
    c: Counter[str] = Counter(blocking_reason(fe, msg) for fe, msg in blocked)
    return dict(c)


def members_by_group(keys: Mapping[str, str | None]) -> dict[str, list[str]]:
    """pod key → group key, inverted (group key → pod keys in order)."""
    out: dict[str, list[str]] = {}
    for pod, group in keys.items():
        if group is not None:
            out.setdefault(group, []).append(pod)
    return out


def _membership(pod: Any) -> tuple[str, str] | None:
    """(group key, API) of a pod in either gang API, or None."""
    sg = (pod.raw.get("spec") or {}).get("schedulingGroup")
    if isinstance(sg, Mapping) and sg.get("podGroupName"):
        return f"{pod.namespace}/{sg['podGroupName']}", "scheduling.k8s.io/v1alpha2"
    label = pod.labels.get(COSCHEDULING_LABEL)
    if label:
        return f"{pod.namespace}/{label}", "scheduling.x-k8s.io/v1alpha1"
    return None


def _min_members(objects: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for o in objects.get("PodGroup", ()):
        meta = o.get("metadata") or {}
        spec = o.get("spec") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
        api = str(o.get("apiVersion") or "")
        if api.startswith("scheduling.x-k8s.io/"):
            mm = spec.get("minMember")
        else:
            mm = ((spec.get("schedulingPolicy") or {}).get("gang") or {}).get("minCount")
        if isinstance(mm, int) and not isinstance(mm, bool):
            out[(key, api)] = mm
    return out


def broken_gangs(
    evictions: Sequence[Any],
    running: Sequence[Any],
    objects: Mapping[str, Sequence[Mapping[str, Any]]],
) -> list[dict[str, Any]]:
    """Running gangs pod-level preemption took members from, and whether they fell below quorum."""
    hit: dict[tuple[str, str], list[Any]] = {}
    for e in evictions:
        m = _membership(e.victim)
        if m is not None:
            hit.setdefault(m, []).append(e)
    if not hit:
        return []
    before: Counter[tuple[str, str]] = Counter()
    for p in running:
        m = _membership(p)
        if m is not None:
            before[m] += 1
    mins = _min_members(objects)
    out: list[dict[str, Any]] = []
    for (key, api), evs in sorted(hit.items()):
        mm = next(
            (v for (k, a), v in mins.items() if k == key and a.split("/")[0] == api.split("/")[0]),
            None,
        )
        remaining = before[(key, api)] - len(evs)
        out.append(
            {
                "name": key,
                "api": api,
                "minMember": mm,
                "runningBefore": before[(key, api)],
                "evicted": [e.victim.key for e in evs],
                "preemptors": sorted({e.by for e in evs if e.by}),
                "remaining": remaining,
                "belowMinMember": mm is not None and remaining < mm,
            }
        )
    return out
