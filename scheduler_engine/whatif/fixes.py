"""Candidate changes that would make a pod fit, each verified by the engine before it is shown.

A producer reads the nodes' gaps (:mod:`.nearest`) and returns
:class:`Candidate` changes with a cost and a ``verify`` callable that runs
the profile's real PreFilter and Filter plugins (:mod:`.probe`) on the
changed pod or cluster.  :func:`gather` verifies candidates cheapest first
and keeps at most :data:`MAX_FIXES`, one per kind: nothing unverified is
ever returned.  The pod-side producers live here; preemption and priority
in :mod:`.preempt`, new nodes in :mod:`.nodes`; costs are explained in
``docs/explanations.md``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cluster import ClusterState
from ..errors import InputError
from ..framework.registry import Registry
from ..objects import Pod, parse_pod
from ..objects.resources import PODS
from ..quantity import milli_value, parse_quantity, value
from .amounts import format_amount, requested
from .moves import Scheduling
from .nearest import AFFINITY, FIT, SPREAD, TAINTS, Gap, toleration
from .patch import apply_patch
from .probe import Prepared, Probe

__all__ = [
    "MAX_FIXES",
    "Candidate",
    "Fix",
    "Producer",
    "WhatIf",
    "affinity_candidates",
    "gather",
    "request_candidates",
    "spread_candidates",
    "tolerating",
    "toleration_candidates",
]

MAX_FIXES = 5
# gaps a producer looks at, closest first
MAX_GAPS = 20
NODE_AFFINITY = "NodeAffinity"


@dataclass(slots=True)
class WhatIf:
    """What producers read: the pod, its PreFilter outcome, the nodes' gaps, the cluster."""

    probe: Probe
    prep: Prepared
    gaps: list[Gap]
    cluster: ClusterState
    registry: Registry | None = None
    # the scheduling run, for changes verified by scheduling again (moves)
    scheduling: Scheduling | None = None
    _prepared: dict[str, Prepared | None] = field(default_factory=dict)

    @property
    def pod(self) -> Pod:
        return self.prep.pod

    def only(self, *plugins: str, limit: int = MAX_GAPS, taints: bool = False) -> list[Gap]:
        """The closest gaps whose every failure comes from ``plugins`` (and, with ``taints``,
        TaintToleration: the change then adds the tolerations, see :func:`tolerating`)."""
        allowed = frozenset(plugins) | ({TAINTS} if taints else frozenset())
        out: list[Gap] = []
        for g in self.gaps:
            if g.plugins <= allowed:
                out.append(g)
                if len(out) >= limit:
                    break
        return out

    def patched(self, patch: Mapping[str, Any]) -> Pod | None:
        """The pod with ``patch`` applied, parsed as the engine parses pods (None: invalid)."""
        obj = apply_patch(self.pod.raw, patch)
        try:
            return parse_pod(obj, self.cluster.priority_classes, source="fix")
        except InputError:
            return None

    def prepared(self, patch: Mapping[str, Any] | None) -> Prepared | None:
        """The patched pod's PreFilter outcome, worked out once per distinct patch."""
        key = json.dumps(patch, sort_keys=True)
        if key not in self._prepared:
            pod = self.patched(patch) if patch else self.pod
            self._prepared[key] = self.probe.prepare(pod) if pod is not None else None
        return self._prepared[key]

    def fits_patched(self, patch: Mapping[str, Any], node: str) -> bool:
        prep = self.prepared(patch)
        ni = self.probe.snapshot.get(node)
        if prep is None or ni is None:
            return False
        return self.probe.fits(prep, ni)


@dataclass(slots=True)
class Fix:
    """A verified change: the CLI's ``fixes`` entry."""

    kind: str
    summary: str
    patch: dict[str, Any] | None
    cost: float
    # where the engine found the changed pod fits
    node: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "summary": self.summary,
            "patch": self.patch,
            "verified": True,
            "cost": self.cost,
            "node": self.node,
            **self.extra,
        }


@dataclass(slots=True)
class Candidate:
    fix: Fix
    verify: Callable[[], bool]


Producer = Callable[[WhatIf], Iterable[Candidate]]


def gather(ctx: WhatIf, producers: Sequence[Producer]) -> list[Fix]:
    """Candidates of every producer, verified cheapest first: at most one per kind, five in all."""
    candidates = [c for produce in producers for c in produce(ctx)]
    candidates.sort(key=lambda c: (c.fix.cost, c.fix.kind, c.fix.node or ""))
    out: list[Fix] = []
    kinds: set[str] = set()
    for c in candidates:
        if len(out) >= MAX_FIXES:
            break
        if c.fix.kind in kinds:
            continue
        if c.verify():
            out.append(c.fix)
            kinds.add(c.fix.kind)
    return out


def tolerating(
    ctx: WhatIf, gap: Gap, patch: Mapping[str, Any] | None
) -> tuple[dict[str, Any] | None, str, float]:
    """``patch`` plus the tolerations of the gap's untolerated taints: (patch, words, cost)."""
    if not gap.taints:
        return (dict(patch) if patch else None), "", 0.0
    added = [toleration(t) for t in gap.taints]
    existing = list((ctx.pod.raw.get("spec") or {}).get("tolerations") or [])
    out = copy.deepcopy(dict(patch or {}))
    out.setdefault("spec", {})["tolerations"] = existing + added
    return out, f", and add the toleration(s) {_named(added)}", float(len(added))


def _named(tolerations: list[dict[str, str]]) -> str:
    return "; ".join(
        f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}" for t in tolerations
    )


# -- requests -------------------------------------------------------------------------


def _lowered_containers(pod: Pod, resource: str, by: int) -> list[dict[str, Any]] | None:
    """Container patches taking ``by`` off ``resource``, largest requests first."""
    spec = pod.raw.get("spec") or {}
    if (spec.get("resources") or {}).get("requests") or (spec.get("resources") or {}).get("limits"):
        return None  # pod-level resources decide: not a container edit
    amounts = []
    for c in spec.get("containers") or []:
        res = c.get("resources") or {}
        reqs = res.get("requests") or {}
        lims = res.get("limits") or {}
        raw = reqs.get(resource, lims.get(resource))
        if raw is None:
            continue
        try:
            q = parse_quantity(raw)
        except (InputError, ValueError):
            return None
        amount = milli_value(q) if resource == "cpu" else value(q)
        amounts.append((amount, c["name"], resource in lims))
    amounts.sort(key=lambda a: -a[0])
    out = []
    left = by
    for amount, name, has_limit in amounts:
        if left <= 0:
            break
        take = min(amount, left)
        new = format_amount(resource, amount - take)
        res: dict[str, Any] = {"requests": {resource: new}}
        if has_limit and not _cpu_or_memory(resource):
            res["limits"] = {resource: new}
        out.append({"name": name, "resources": res})
        left -= take
    return out if left <= 0 else None


def _cpu_or_memory(resource: str) -> bool:
    return resource in ("cpu", "memory")


def request_candidates(ctx: WhatIf) -> Iterable[Candidate]:
    """Lower a request to what the closest node rejected only for resources has free."""
    for g in ctx.only(FIT, taints=True):
        if PODS in g.shortfall or not g.shortfall:
            continue
        patches: dict[str, dict[str, Any]] = {}
        changes, shares = [], []
        ok = True
        for r, short in g.shortfall.items():
            want = requested(ctx.pod, r)
            if short >= want:
                ok = False
                break
            lowered = _lowered_containers(ctx.pod, r, short)
            if lowered is None:
                ok = False
                break
            for c in lowered:
                entry = patches.setdefault(c["name"], {"name": c["name"], "resources": {}})
                for part, vals in c["resources"].items():
                    entry["resources"].setdefault(part, {}).update(vals)
            changes.append(f"{r} from {format_amount(r, want)} to {format_amount(r, want - short)}")
            shares.append(short / want)
        if not ok:
            continue
        patch, also, extra = tolerating(ctx, g, {"spec": {"containers": list(patches.values())}})
        cost = round(1 + 4 * max(shares) + extra, 3)
        fix = Fix(
            "requests",
            f"Lower the request of {', '.join(changes)}{also}: it then fits on {g.node}.",
            patch,
            cost,
            g.node,
        )
        yield Candidate(fix, lambda p=patch, n=g.node: ctx.fits_patched(p, n))


# -- tolerations ----------------------------------------------------------------------


def toleration_candidates(ctx: WhatIf) -> Iterable[Candidate]:
    """Add exactly the tolerations of the taints that alone keep the pod off a node."""
    seen: set[tuple[Any, ...]] = set()
    for g in ctx.only(TAINTS):
        key = tuple(g.taints)
        if not g.taints or key in seen:
            continue
        seen.add(key)
        existing = list((ctx.pod.raw.get("spec") or {}).get("tolerations") or [])
        added = [toleration(t) for t in g.taints]
        patch = {"spec": {"tolerations": existing + added}}
        named = _named(added)
        fix = Fix(
            "toleration",
            f"Add the toleration(s) {named}: the pod then fits on {g.node}.",
            patch,
            float(len(added)),
            g.node,
            {"tolerations": added},
        )
        yield Candidate(fix, lambda p=patch, n=g.node: ctx.fits_patched(p, n))


# -- pod affinity, node affinity ------------------------------------------------------

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"


def _without_terms(pod: Pod, kind: str, drop: set[int]) -> dict[str, Any]:
    affinity = (pod.raw.get("spec") or {}).get("affinity") or {}
    terms = list((affinity.get(kind) or {}).get(_REQUIRED) or [])
    kept = [t for i, t in enumerate(terms) if i not in drop]
    return {"spec": {"affinity": {kind: {_REQUIRED: kept or None}}}}


def affinity_candidates(ctx: WhatIf) -> Iterable[Candidate]:
    """Drop the pod's own (anti-)affinity terms, or node selector keys, that alone rule a node out."""
    seen: set[Any] = set()
    for g in ctx.only(AFFINITY, taints=True):
        own = [t for t in g.terms if t["kind"] in ("podAffinity", "podAntiAffinity")]
        if not own or len(own) != len(g.terms):
            continue  # running pods' anti-affinity is not the pod's to change
        for kind in ("podAffinity", "podAntiAffinity"):
            drop = {t["term"] for t in own if t["kind"] == kind}
            if not drop or (kind, frozenset(drop)) in seen:
                continue
            seen.add((kind, frozenset(drop)))
            patch, also, extra = tolerating(ctx, g, _without_terms(ctx.pod, kind, drop))
            pods = sorted({p for t in own if t["kind"] == kind for p in t["pods"]})
            because = f" (it matches {', '.join(pods)})" if pods else ""
            fix = Fix(
                "affinity",
                f"Drop required {kind} term(s) {sorted(drop)}{because}{also}: "
                f"the pod then fits on {g.node}.",
                patch,
                2.0 * len(drop) + extra,
                g.node,
            )
            yield Candidate(fix, lambda p=patch, n=g.node: ctx.fits_patched(p, n))
    for g in ctx.only(NODE_AFFINITY, limit=3, taints=True):
        spec = ctx.pod.raw.get("spec") or {}
        labels = g.node_info.node.labels
        selector = spec.get("nodeSelector") or {}
        wrong = sorted(k for k, v in selector.items() if labels.get(k) != v)
        patch: dict[str, Any] = {"spec": {}}
        parts = []
        if wrong:
            patch["spec"]["nodeSelector"] = {k: None for k in wrong}
            parts.append(f"nodeSelector key(s) {', '.join(wrong)}")
        node_aff = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(_REQUIRED)
        required = ctx.pod.required_node_affinity
        if node_aff and required is not None and not required.matches(labels, g.node):
            patch["spec"]["affinity"] = {"nodeAffinity": {_REQUIRED: None}}
            parts.append("the required node affinity")
        if not parts:
            continue
        patch, also, extra = tolerating(ctx, g, patch)
        fix = Fix(
            "affinity",
            f"Drop {' and '.join(parts)}{also}: the pod then fits on {g.node}.",
            patch,
            2.0 * len(parts) + extra,
            g.node,
        )
        yield Candidate(fix, lambda p=patch, n=g.node: ctx.fits_patched(p, n))


# -- topology spread ------------------------------------------------------------------


def spread_candidates(ctx: WhatIf) -> Iterable[Candidate]:
    """Raise a DoNotSchedule constraint's maxSkew to the skew the node would reach."""
    raw = list((ctx.pod.raw.get("spec") or {}).get("topologySpreadConstraints") or [])
    seen: set[Any] = set()
    for g in ctx.only(SPREAD, taints=True):
        terms = [t for t in g.terms if t["kind"] == "topologySpread"]
        if not terms or any(t["term"] < 0 or t.get("skew") is None for t in terms):
            continue
        new = [dict(c) for c in raw]
        for t in terms:
            new[t["term"]]["maxSkew"] = t["skew"]
        key = tuple((t["term"], t["skew"]) for t in terms)
        if key in seen:
            continue
        seen.add(key)
        patch, also, extra = tolerating(ctx, g, {"spec": {"topologySpreadConstraints": new}})
        what = "; ".join(
            f"constraint {t['term']} ({t['topologyKey']}) maxSkew {t['maxSkew']} → {t['skew']}"
            for t in terms
        )
        fix = Fix(
            "spread",
            f"Relax topology spread: {what}{also}: the pod then fits on {g.node}.",
            patch,
            round(1.5 + sum(t["skew"] - t["maxSkew"] for t in terms) * 0.5 + extra, 3),
            g.node,
        )
        yield Candidate(fix, lambda p=patch, n=g.node: ctx.fits_patched(p, n))
