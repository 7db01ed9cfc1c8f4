"""The pod-explanation page's reading of the engine's record.

Turns :func:`~dashboard.explain.live.explain_pod`'s output (message, filterFailures, allFilterFailures,
pluginScores, victims, beforePreemption, nearest, fixes) into what the page shows: rejected
nodes grouped by reason (and, for a pod that preempted, those of the attempt that preempted), feasible nodes ranked with their per-plugin weighted
scores, the preemption picture with PDBs, and what would make it fit: the
engine's nearest nodes and verified changes (scheduler_engine.whatif).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dashboard.cluster.kinds import KINDS_BY_KIND
from dashboard.cluster.models import Cluster, Pod, PodDisruptionBudget
from dashboard.cluster.selectors import resolved_priority
from dashboard.explain.answer import all_failures, group_rejections
from scheduler_engine.objects.selectors import SelectorError, parse_label_selector

__all__ = ["MAX_NODES_PER_GROUP", "MAX_RANKED", "Explanation", "read_explanation"]

# Caps that keep the page small at 5,000 nodes; the counts stay exact.
MAX_NODES_PER_GROUP = 40
MAX_RANKED = 30

VOLUME_PLUGINS = frozenset(
    {"VolumeBinding", "VolumeZone", "VolumeRestrictions", "NodeVolumeLimits"}
)


@dataclass(slots=True)
class Explanation:
    status: str
    message: str
    node: str | None
    nominated: str | None
    groups: list[dict[str, Any]] = field(default_factory=list)
    rejected: int = 0
    ranked: list[dict[str, Any]] = field(default_factory=list)
    feasible: int = 0
    chart: dict[str, Any] = field(default_factory=dict)
    victims: list[dict[str, Any]] = field(default_factory=list)
    pdbs: list[dict[str, Any]] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    # the engine's nearest nodes and verified changes (unschedulable pods)
    nearest: list[dict[str, Any]] = field(default_factory=list)
    fixes: list[dict[str, Any]] = field(default_factory=list)
    # DRA devices the engine allocated for a scheduled pod: [{claim, allocation, ...}]
    allocations: list[dict[str, Any]] = field(default_factory=list)
    # a pod that preempted, then was tried again: the attempt that preempted, why no
    # node fit before the victims left (its message, its rejected nodes by reason)
    before_message: str = ""
    before_groups: list[dict[str, Any]] = field(default_factory=list)
    before_rejected: int = 0


def _selector_matches(selector: dict[str, Any] | None, labels: dict[str, str]) -> bool:
    """A PDB selector as the scheduler's preemption reads it: empty or invalid matches nothing."""
    try:
        parsed = parse_label_selector(selector)
    except SelectorError:
        return False
    return not parsed.empty and parsed.matches(labels)


def _groups(failures: dict[str, list[dict[str, str]]]) -> list[dict[str, Any]]:
    """Rejected nodes grouped by their first failing reason, largest group first."""
    return group_rejections(failures, MAX_NODES_PER_GROUP)


def _ranked(scores: dict[str, int], plugin_scores: dict[str, dict[str, dict]]) -> tuple[list, dict]:
    names = sorted(scores, key=lambda n: (-scores[n], n))[:MAX_RANKED]
    plugins = sorted({p for n in names for p in plugin_scores.get(n, {})})
    ranked = [
        {
            "name": n,
            "total": scores[n],
            "plugins": {p: plugin_scores.get(n, {}).get(p, {}).get("weighted", 0) for p in plugins},
        }
        for n in names
    ]
    # One Plotly bar trace per plugin, stacked; nodes top-down by total.
    chart = {
        "nodes": names,
        "traces": [{"name": p, "x": [r["plugins"][p] for r in ranked]} for p in plugins],
    }
    return ranked, chart


def read_explanation(cluster: Cluster, pod: Pod, result: dict[str, Any]) -> Explanation:
    ex = Explanation(
        status=result.get("status", ""),
        message=result.get("message") or "",
        node=result.get("node"),
        nominated=result.get("nominatedNode"),
    )
    failures = all_failures(result)
    ex.groups = _groups(failures)
    ex.rejected = sum(g["count"] for g in ex.groups)
    scores = result.get("scores") or {}
    ex.feasible = len(scores)
    ex.ranked, ex.chart = _ranked(scores, result.get("pluginScores") or {})
    ex.allocations = list(result.get("allocations") or [])
    before = result.get("beforePreemption")
    if before:
        ex.before_message = before.get("message") or ""
        ex.before_groups = _groups(all_failures(before))
        ex.before_rejected = sum(g["count"] for g in ex.before_groups)

    victims = result.get("victims") or []
    if victims:
        keys = [v.partition("/")[::2] for v in victims]
        rows = {
            (p.namespace, p.name): p
            for p in Pod.objects.filter(cluster=cluster, name__in=[k[1] for k in keys])
            .annotate(effective_priority=resolved_priority())
            .only("namespace", "name", "priority", "priority_class_name", "node_name", "obj")
        }
        pdbs = list(
            PodDisruptionBudget.objects.filter(
                cluster=cluster, namespace__in={k[0] for k in keys}
            ).only("namespace", "name", "obj", "disruptions_allowed")
        )
        hits: dict[tuple[str, str], int] = {}
        for ns, name in keys:
            row = rows.get((ns, name))
            labels = ((row.obj.get("metadata") or {}).get("labels") or {}) if row else {}
            covering = [
                p.name
                for p in pdbs
                if p.namespace == ns
                and _selector_matches((p.obj.get("spec") or {}).get("selector"), labels)
            ]
            for p in covering:
                hits[(ns, p)] = hits.get((ns, p), 0) + 1
            ex.victims.append(
                {
                    "namespace": ns,
                    "name": name,
                    "node": row.node_name if row else "",
                    "priority": row.effective_priority if row else None,
                    "priority_class": row.priority_class_name if row else "",
                    "pdbs": covering,
                }
            )
        for p in pdbs:
            n = hits.get((p.namespace, p.name))
            if n:
                allowed = p.disruptions_allowed
                ex.pdbs.append(
                    {
                        "namespace": p.namespace,
                        "name": p.name,
                        "victims": n,
                        "allowed": allowed,
                        "violated": allowed is not None and n > allowed,
                    }
                )

    if ex.status != "Scheduled" and failures:
        failing = {f.get("plugin") for per_node in failures.values() for f in per_node}
        ex.hints += _claim_hints(cluster, pod, failing)
    ex.nearest = [_nearest_row(n) for n in result.get("nearest") or []]
    ex.fixes = [
        {**f, "index": i, "patch_json": json.dumps(f.get("patch"), indent=2)}
        for i, f in enumerate(result.get("fixes") or [])
    ]
    held = result.get("preEnqueue")
    if ex.status == "Skipped" and isinstance(held, dict):
        # never attempted: what holds it back is all there is to fix
        ex.hints.append(
            f"The scheduler does not try this pod yet: {held.get('plugin', '')} holds it back "
            f"({held.get('reason', '')})."
        )
    return ex


def _taint_text(t: dict[str, Any]) -> str:
    return f"{t.get('key', '')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect', '')}"


def _nearest_row(n: dict[str, Any]) -> dict[str, Any]:
    """One nearest node as the page lists it: taints and tolerations written out."""
    taints = [
        {
            **t,
            "text": _taint_text(t),
            "toleration_json": json.dumps(t.get("toleration") or {}),
        }
        for t in n.get("taints") or []
    ]
    short = ", ".join(f"{q} {r}" for r, q in (n.get("shortfall") or {}).items())
    return {**n, "taints": taints, "short": short}


def _claim_hints(cluster: Cluster, pod: Pod, failing: set[Any]) -> list[str]:
    """What the mirror holds of the pod's PVCs / ResourceClaims, when their plugins reject."""
    spec = pod.obj.get("spec") or {}
    hints: list[str] = []
    if failing & VOLUME_PLUGINS:
        names = [
            v["persistentVolumeClaim"].get("claimName")
            for v in spec.get("volumes") or []
            if isinstance(v, dict) and isinstance(v.get("persistentVolumeClaim"), dict)
        ]
        stored = _stored(cluster, "PersistentVolumeClaim", pod.namespace, names)
        for name in names:
            claim = stored.get(name)
            if claim is None:
                hints.append(f"PersistentVolumeClaim {pod.namespace}/{name} does not exist.")
                continue
            cspec = claim.get("spec") or {}
            if cspec.get("volumeName"):
                hints.append(
                    f"PersistentVolumeClaim {pod.namespace}/{name} is bound to "
                    f"PersistentVolume {cspec['volumeName']}: only nodes that volume can "
                    "reach qualify."
                )
            else:
                size = ((cspec.get("resources") or {}).get("requests") or {}).get("storage", "?")
                hints.append(
                    f"PersistentVolumeClaim {pod.namespace}/{name} is unbound "
                    f"(storage class {cspec.get('storageClassName') or '(none)'}, {size}, "
                    f"{', '.join(cspec.get('accessModes') or []) or 'no access modes'}): "
                    "a matching available PersistentVolume on a feasible node, or a "
                    "provisioner for its class there, would make it fit."
                )
    if "DynamicResources" in failing:
        claims = [c for c in spec.get("resourceClaims") or [] if isinstance(c, dict)]
        named = [c["resourceClaimName"] for c in claims if c.get("resourceClaimName")]
        stored = _stored(cluster, "ResourceClaim", pod.namespace, named)
        for c in claims:
            if c.get("resourceClaimName"):
                name = c["resourceClaimName"]
                claim = stored.get(name)
                if claim is None:
                    hints.append(f"ResourceClaim {pod.namespace}/{name} does not exist.")
                elif (claim.get("status") or {}).get("allocation"):
                    hints.append(
                        f"ResourceClaim {pod.namespace}/{name} is allocated already: "
                        "only the nodes its allocation selects qualify."
                    )
                else:
                    hints.append(
                        f"ResourceClaim {pod.namespace}/{name} needs devices no feasible "
                        "node's ResourceSlices have free."
                    )
            elif c.get("resourceClaimTemplateName"):
                hints.append(
                    f"Claim {c.get('name')} (from ResourceClaimTemplate "
                    f"{pod.namespace}/{c['resourceClaimTemplateName']}) needs devices no "
                    "feasible node's ResourceSlices have free."
                )
    return hints


def _stored(cluster: Cluster, kind: str, namespace: str, names: list[Any]) -> dict[str, dict]:
    rows = (
        KINDS_BY_KIND[kind]
        .rows()
        .filter(
            cluster=cluster, namespace=namespace, name__in=[n for n in names if isinstance(n, str)]
        )
    )
    return dict(rows.values_list("name", "obj"))
