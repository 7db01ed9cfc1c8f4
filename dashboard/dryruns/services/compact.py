"""Keeping explained dry-run results to a size worth storing.

The engine's explanation of one pod on 5,000 nodes is about 1.5 MB (every
plugin on every node).  A dry-run keeps what its pages and the API show: the
first failing filter of each rejected node, and the per-plugin scores of the
best few nodes; the raw per-call record is dropped.
"""

from __future__ import annotations

from typing import Any

from dashboard import conf
from scheduler_engine.cluster import ClusterState

__all__ = ["compact_result", "explain_affordable"]


def explain_affordable(state: ClusterState) -> bool:
    pairs = len(state.pending_pods) * max(1, len(state.nodes))
    return pairs <= conf.explain_max_pairs()


def compact_result(r: dict[str, Any], top: int | None = None) -> dict[str, Any]:
    """Drop the raw record and all but the best ``top`` nodes' (and the chosen one's) scores."""
    r.pop("record", None)
    r.pop("allFilterFailures", None)
    before = r.get("beforePreemption")
    if before is not None:  # the attempt that preempted: its first failures, as above
        before.pop("allFilterFailures", None)
    scores = r.get("scores")
    if scores:
        keep = top if top is not None else conf.explain_top_nodes()
        best = sorted(scores, key=lambda n: (-scores[n], n))[:keep]
        # the chosen node may have tied with better-named ones: always keep it
        if r.get("node") in scores and r["node"] not in best:
            best.append(r["node"])
        r["scores"] = {n: scores[n] for n in best}
        plugin_scores = r.get("pluginScores") or {}
        r["pluginScores"] = {n: plugin_scores[n] for n in best if n in plugin_scores}
    return r
