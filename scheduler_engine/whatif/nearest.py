"""Nearest fit: for every node, every filter that rejects a pod and how far it is from fitting.

:func:`gaps` probes every node of the snapshot with every filter of the
pod's profile (:mod:`.probe`) and measures, per node, the shortfall of each
resource NodeResourcesFit names, the taints not tolerated, and, for the
closest nodes, the affinity and spread terms violated (:mod:`.terms`).
:func:`nearest` ranks them by :func:`distance` (docs/explanations.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..framework.node_info import NodeInfo
from ..objects import Pod
from ..objects.taints import NO_EXECUTE, NO_SCHEDULE, Taint
from .amounts import available, format_amount, requested, resource_of_reason
from .probe import Failure, Prepared, Probe
from .terms import affinity_violations, spread_violations

__all__ = ["MAX_NEAREST", "Gap", "distance", "gaps", "nearest", "toleration", "untolerated_taints"]

MAX_NEAREST = 10

FIT = "NodeResourcesFit"
TAINTS = "TaintToleration"
AFFINITY = "InterPodAffinity"
SPREAD = "PodTopologySpread"


@dataclass(slots=True)
class Gap:
    """How one node falls short for the pod."""

    node_info: NodeInfo
    failures: list[Failure]
    # resource → amount missing (engine units: milli-CPU, bytes, units, pods)
    shortfall: dict[str, int] = field(default_factory=dict)
    # resources the pod asks more of than the node has even when empty
    lacking: list[str] = field(default_factory=list)
    taints: list[Taint] = field(default_factory=list)
    terms: list[dict[str, Any]] = field(default_factory=list)
    distance: float = 0.0

    @property
    def node(self) -> str:
        return self.node_info.name

    # the plugins among the failures
    plugins: frozenset[str] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "node": self.node,
            "failures": [f.to_dict() for f in self.failures],
            "shortfall": {r: format_amount(r, a) for r, a in self.shortfall.items()},
            "distance": self.distance,
        }
        if self.lacking:
            d["lacking"] = list(self.lacking)
        if self.taints:
            d["taints"] = [
                {"key": t.key, "value": t.value, "effect": t.effect, "toleration": toleration(t)}
                for t in self.taints
            ]
        if self.terms:
            d["terms"] = list(self.terms)
        return d


def toleration(t: Taint) -> dict[str, str]:
    """The exact toleration of one taint (``Exists`` for a taint without a value)."""
    if t.value:
        return {"key": t.key, "operator": "Equal", "value": t.value, "effect": t.effect}
    return {"key": t.key, "operator": "Exists", "effect": t.effect}


def untolerated_taints(pod: Pod, node_info: NodeInfo) -> list[Taint]:
    """Every NoSchedule/NoExecute taint of the node no toleration of the pod tolerates."""
    return [
        t
        for t in node_info.node.taints
        if t.effect in (NO_SCHEDULE, NO_EXECUTE)
        and not any(tol.tolerates(t) for tol in pod.tolerations)
    ]


def distance(gap: Gap) -> float:
    """Kinds of change first (each resource short, each taint, each other rejection; a
    resource the node cannot offer even when empty counts twice), then the mean share of
    the node's allocatable that is missing (below 1), rounded."""
    kinds = len(gap.shortfall) + len(gap.lacking) + len(gap.taints)
    for f in gap.failures:
        if f.plugin in (FIT, TAINTS):
            continue
        kinds += max(1, sum(1 for t in gap.terms if _term_plugin(t) == f.plugin))
    shares = []
    for r, amount in gap.shortfall.items():
        total, _ = available(gap.node_info, r)
        shares.append(min(1.0, amount / total) if total > 0 else 1.0)
    share = sum(shares) / len(shares) if shares else 0.0
    return round(kinds + min(share, 0.999), 3)


def _term_plugin(term: dict[str, Any]) -> str:
    return SPREAD if term["kind"] == "topologySpread" else AFFINITY


def _gap(prep: Prepared, ni: NodeInfo, failures: list[Failure]) -> Gap | None:
    if not failures:
        return None
    gap = Gap(ni, failures, plugins=frozenset(f.plugin for f in failures))
    pod = prep.pod
    for f in failures:
        if f.plugin == FIT:
            for reason in f.reasons:
                r = resource_of_reason(reason)
                if r is None:
                    continue
                want = requested(pod, r)
                total, free = available(ni, r)
                gap.shortfall[r] = want - free
                if want > total:
                    gap.lacking.append(r)
        elif f.plugin == TAINTS:
            gap.taints = untolerated_taints(pod, ni)
    return gap


def gaps(probe: Probe, prep: Prepared) -> list[Gap]:
    """Every node that rejects the pod, closest first (terms filled for the closest only)."""
    out = [g for ni, fails in probe.every_node(prep) if (g := _gap(prep, ni, fails)) is not None]
    for g in out:
        g.distance = distance(g)
    out.sort(key=lambda g: (g.distance, g.node))
    # the terms are worth naming (and cost a scan of the domain) only where they are read
    for g in out[: MAX_NEAREST * 3]:
        _fill_terms(probe, prep, g)
        g.distance = distance(g)
    out.sort(key=lambda g: (g.distance, g.node))
    return out


def _fill_terms(probe: Probe, prep: Prepared, gap: Gap) -> None:
    plugins = gap.plugins
    if AFFINITY in plugins:
        gap.terms += affinity_violations(probe.snapshot, prep.pod, gap.node_info)
    if SPREAD in plugins:
        gap.terms += spread_violations(prep.state, prep.pod, gap.node_info)


def nearest(found: list[Gap]) -> list[dict[str, Any]]:
    """The CLI's ``nearest``: the closest nodes, at most :data:`MAX_NEAREST`."""
    return [g.to_dict() for g in found[:MAX_NEAREST]]
