"""The explanation as the API sends it: the verdict, the node verdicts in brief, sections on request.

At 15,000 nodes the engine's per-node record is megabytes (every node's
filters and scores) that nobody reads whole; the answer leads with the
message and the node verdicts counted per reason, a bounded sample of nodes
for each, and the best-scored nodes. ``include`` adds the sections that cost
more: ``nodes`` (the whole per-node record, as the engine gives it) and
``whatif`` (nearest nodes and verified changes, computed only then).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "INCLUDE",
    "NODE_KEYS",
    "SAMPLE_PER_REASON",
    "TOP_SCORED",
    "WHATIF_KEYS",
    "IncludeError",
    "all_failures",
    "answer",
    "engine_warnings",
    "group_rejections",
    "parse_include",
]

# what ?include= may name
INCLUDE = ("nodes", "whatif")
# the engine's per-node keys, sent only with include=nodes
NODE_KEYS = ("scores", "filterFailures", "allFilterFailures", "pluginScores", "record")
WHATIF_KEYS = ("nearest", "fixes")
SAMPLE_PER_REASON = 10
TOP_SCORED = 10


class IncludeError(ValueError):
    """An ``include`` value that names no section; the message says which."""


def parse_include(values: list[str]) -> frozenset[str]:
    """The sections asked for: comma-separated, repeatable (``include=nodes,whatif``)."""
    asked = {v.strip() for raw in values for v in raw.split(",") if v.strip()}
    unknown = sorted(asked - set(INCLUDE))
    if unknown:
        raise IncludeError(
            f"unknown section {unknown[0][:40]!r}: each must be one of {', '.join(INCLUDE)}"
        )
    return frozenset(asked)


def group_rejections(
    all_failures: dict[str, list[dict[str, str]]], per_group: int
) -> list[dict[str, Any]]:
    """Rejected nodes grouped by their first failing plugin and reason, largest group first.

    Each group: plugin, reason, count (exact), nodes (at most ``per_group``,
    each with every failure), more (the nodes not listed).
    """
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for node, failures in all_failures.items():
        if not failures:
            continue
        first = failures[0]
        plugin, reason = first.get("plugin", ""), first.get("reason", "")
        g = groups.get((plugin, reason))
        if g is None:
            g = groups[plugin, reason] = {"plugin": plugin, "reason": reason, "count": 0}
            g["nodes"] = []
        g["count"] += 1
        if len(g["nodes"]) < per_group:
            g["nodes"].append({"name": node, "failures": failures})
    out = sorted(groups.values(), key=lambda g: (-g["count"], g["plugin"], g["reason"]))
    for g in out:
        g["more"] = g["count"] - len(g["nodes"])
    return out


def all_failures(result: dict[str, Any]) -> dict[str, list[dict[str, str]]]:
    """Each rejected node's failures (every filter, or the first when only that was kept)."""
    every = result.get("allFilterFailures")
    if every:
        return every
    return {n: [f] for n, f in (result.get("filterFailures") or {}).items()}


def node_summary(result: dict[str, Any]) -> dict[str, Any]:
    """The node verdicts in brief: counts, rejections per reason with a sample, the best scored."""
    scores: dict[str, int] = result.get("scores") or {}
    plugin_scores = result.get("pluginScores") or {}
    rejections = group_rejections(all_failures(result), SAMPLE_PER_REASON)
    best = sorted(scores, key=lambda n: (-scores[n], n))[:TOP_SCORED]
    return {
        "nodes": (result.get("summary") or {}).get("nodes"),
        "feasible": len(scores),
        "rejected": sum(g["count"] for g in rejections),
        "rejections": rejections,
        "topScored": [
            {"node": n, "score": scores[n], "plugins": plugin_scores.get(n, {})} for n in best
        ],
    }


def engine_warnings(result: dict[str, Any]) -> list[str]:
    """What the engine's run left out of the active profile, one line each: its extenders,
    never called (worded once by the engine, in the kept result's summary)."""
    return (result.get("summary") or {}).get("warnings") or []


def answer(result: dict[str, Any], include: frozenset[str]) -> dict[str, Any]:
    """The engine's result as the API sends it, with only the sections ``include`` names.

    A bound pod's answer (no engine run) is sent as it is. ``warnings``, last,
    only when the engine left something out (:func:`engine_warnings`).
    """
    if result.get("status") == "Bound":
        return result
    out = {k: v for k, v in result.items() if k not in NODE_KEYS and k not in WHATIF_KEYS}
    out["nodeSummary"] = node_summary(result)
    before = result.get("beforePreemption")
    if before is not None:
        # the attempt that preempted, in brief as the answer: its node verdicts by reason
        brief = {k: v for k, v in before.items() if k not in NODE_KEYS}
        brief["nodeSummary"] = node_summary({**before, "summary": result.get("summary")})
        if "nodes" in include:
            brief.update((k, v) for k, v in before.items() if k in NODE_KEYS)
        out["beforePreemption"] = brief
    for section, keys in (("nodes", NODE_KEYS), ("whatif", WHATIF_KEYS)):
        if section in include:
            out.update((k, result[k]) for k in keys if k in result)
    warnings = engine_warnings(result)
    if warnings:
        out["warnings"] = warnings
    return out
