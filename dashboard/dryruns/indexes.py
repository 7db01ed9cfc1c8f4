"""Compact indexes of a finished dry-run, built once from its results and frozen objects.

The results page and the compare page read these instead of the result pages
(which carry the engine's full explanations, up to megabytes per pod) and the
frozen state (tens of megabytes at 5,000 nodes): the positions and messages of
the pods left pending with a per-plugin histogram of what rejected them, the
preemptors with their victims' priority classes and the PDBs their eviction
breaks, and one small row per result for the placement table and the diff.
Pure functions; the service stores the output (``DryRunIndexPage``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dashboard.cluster.selectors import parse_reasons
from scheduler_engine.objects.selectors import SelectorError, parse_label_selector

__all__ = [
    "INDEX_VERSION",
    "MAX_STORED_EDGES",
    "Indexes",
    "build_indexes",
    "explanation_groups",
]

# bump when the shape of an index changes: older runs are re-indexed on first view
INDEX_VERSION = 1
# evictions kept with their details (the graph draws at most this many)
MAX_STORED_EDGES = 300
# node names kept per rejection group of a pending pod (the rest are counted)
GROUP_SAMPLE = 20


@dataclass(frozen=True, slots=True)
class Indexes:
    placements: list[dict[str, Any]]
    pending: list[dict[str, Any]]
    preemptions: dict[str, Any]
    rejections: list[dict[str, Any]]


def explanation_groups(
    result: Mapping[str, Any], sample: int | None = None
) -> list[dict[str, Any]]:
    """Nodes grouped by the (plugin, reason) that first rejected them, biggest group first.

    ``sample`` keeps that many node names per group (sorted); ``count`` is the whole group.
    """
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for node, failure in (result.get("filterFailures") or {}).items():
        groups[(failure.get("plugin", ""), failure.get("reason", ""))].append(node)
    return [
        {
            "plugin": plugin,
            "reason": reason,
            "nodes": sorted(nodes)[:sample] if sample is not None else sorted(nodes),
            "count": len(nodes),
        }
        for (plugin, reason), nodes in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def _pod_key(meta: Mapping[str, Any]) -> str:
    return f"{meta.get('namespace') or 'default'}/{meta.get('name')}"


def _pod_info(objects: Iterable[Mapping[str, Any]], keys: set[str]) -> dict[str, dict[str, Any]]:
    info: dict[str, dict[str, Any]] = {}
    for obj in objects:
        if obj.get("kind") != "Pod":
            continue
        meta = obj.get("metadata") or {}
        key = _pod_key(meta)
        if key not in keys:
            continue
        spec = obj.get("spec") or {}
        info[key] = {
            "priorityClass": spec.get("priorityClassName") or "(none)",
            "priority": spec.get("priority"),
            "labels": meta.get("labels") or {},
            "namespace": meta.get("namespace") or "default",
        }
    return info


def _priority_values(objects: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    return {
        (o.get("metadata") or {}).get("name", ""): int(o.get("value") or 0)
        for o in objects
        if o.get("kind") == "PriorityClass"
    }


def _violations(
    objects: Iterable[Mapping[str, Any]], victims: list[str], info: Mapping[str, Mapping[str, Any]]
) -> dict[str, list[str]]:
    """Victim → the PDBs its eviction breaks (more victims than ``disruptionsAllowed``)."""
    hits: dict[str, list[str]] = defaultdict(list)
    for obj in objects:
        if obj.get("kind") != "PodDisruptionBudget":
            continue
        meta = obj.get("metadata") or {}
        try:
            selector = parse_label_selector((obj.get("spec") or {}).get("selector") or {})
        except SelectorError:
            continue
        if selector.empty:
            continue
        ns = meta.get("namespace") or "default"
        covered = [
            v
            for v in victims
            if v in info and info[v]["namespace"] == ns and selector.matches(info[v]["labels"])
        ]
        allowed = int((obj.get("status") or {}).get("disruptionsAllowed") or 0)
        if len(covered) > allowed:
            for v in covered:
                hits[v].append(f"{ns}/{meta.get('name')}")
    return hits


def _preemptions(
    objects: list[Mapping[str, Any]], results: list[Mapping[str, Any]]
) -> dict[str, Any]:
    rows = [r for r in results if r.get("victims")]
    victims = list(dict.fromkeys(v for r in rows for v in r["victims"]))
    info = _pod_info(objects, {r["pod"] for r in rows} | set(victims))
    values = _priority_values(objects)
    # PDBs are judged over every eviction of the run, not only the stored ones
    violations = _violations(objects, victims, info)

    def who(key: str) -> dict[str, Any]:
        i = info.get(key, {})
        cls = i.get("priorityClass", "(none)")
        return {
            "pod": key,
            "priorityClass": cls,
            "priority": i["priority"] if i.get("priority") is not None else values.get(cls),
            "pdbs": violations.get(key, []),
        }

    stored: list[dict[str, Any]] = []
    edges = 0
    for r in rows:
        if edges >= MAX_STORED_EDGES:
            break
        kept = r["victims"][: MAX_STORED_EDGES - edges]
        edges += len(kept)
        stored.append(
            {
                **{k: v for k, v in who(r["pod"]).items() if k != "pdbs"},
                "node": r.get("node") or r.get("nominatedNode"),
                "victims": [who(v) for v in kept],
            }
        )
    return {
        "preemptors": stored,
        "priorityValues": {
            c: values[c] for c in {i["priorityClass"] for i in info.values()} if c in values
        },
        "preemptorCount": len(rows),
        "victimCount": sum(len(r["victims"]) for r in rows),
        "violatingVictims": len(violations),
        "truncated": edges < sum(len(r["victims"]) for r in rows),
    }


def _rejections(pending: list[dict[str, Any]], by_reason: dict[str, list[int]]) -> list[dict]:
    """Per (plugin, reason): the pending pods it rejected and the node rejections summed."""
    hist: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for p in pending:
        for g in p["groups"]:
            h = hist[(g["plugin"], g["reason"])]
            h[0] += 1
            h[1] += g["count"]
    for reason, (pods, nodes) in by_reason.items():
        h = hist[("", reason)]
        h[0] += pods
        h[1] += nodes
    return [
        {"plugin": plugin, "reason": reason, "pods": pods, "nodes": nodes}
        for (plugin, reason), (pods, nodes) in sorted(
            hist.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0])
        )
    ]


def build_indexes(objects: list[Mapping[str, Any]], results: list[Mapping[str, Any]]) -> Indexes:
    """Every index of one run from its frozen objects and its results (queue order)."""
    placements: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    # without explanations (no filterFailures) the histogram reads the upstream message
    by_reason: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for i, r in enumerate(results):
        scheduled = r.get("status") == "Scheduled"
        placements.append(
            {
                "pod": r.get("pod"),
                "status": r.get("status"),
                "node": r.get("node"),
                "victims": r.get("victims") or [],
                "message": "" if scheduled else (r.get("message") or ""),
            }
        )
        if scheduled:
            continue
        groups = explanation_groups(r, GROUP_SAMPLE)
        if not groups:
            for reason, n in parse_reasons(r.get("message") or "").items():
                h = by_reason[reason]
                h[0] += 1
                h[1] += n
        pending.append(
            {
                "i": i,
                "pod": r.get("pod"),
                "status": r.get("status"),
                "message": r.get("message") or "",
                "nominatedNode": r.get("nominatedNode"),
                "groups": groups,
            }
        )
    return Indexes(
        placements=placements,
        pending=pending,
        preemptions=_preemptions(objects, results),
        rejections=_rejections(pending, by_reason),
    )
