"""What the results page draws: per group of runs (trace, configuration, percentage),
the median over seeds of the unallocated-GPU curve and of the summary figures."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from ..models import Status, StudyRun

__all__ = ["groups", "nodes_to_score"]


def _median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 4) if xs else None


def groups(runs: Iterable[StudyRun]) -> list[dict[str, Any]]:
    """One entry per (trace, configuration, percentage) with its succeeded runs' medians.

    ``curve`` is the median unallocated GPU % at each arrived percentage that
    every seed's curve reached.
    """
    by: dict[tuple[str, str, int], list[StudyRun]] = defaultdict(list)
    for r in runs:
        if r.status == Status.SUCCEEDED and r.summary:
            by[(r.trace.name, r.config_label, r.percentage)].append(r)
    out = []
    for (trace, config, pct), rs in sorted(by.items()):
        points: dict[float, list[float]] = defaultdict(list)
        for r in rs:
            for p in r.curve or []:
                points[p["arrivedGpuPercent"]].append(p["unallocatedGpuPercent"])
        xs = sorted(x for x, v in points.items() if len(v) == len(rs))
        out.append(
            {
                "trace": trace,
                "config": config,
                "percentage": pct,
                "label": f"{trace} · {config} · {pct}% of nodes",
                "seeds": len(rs),
                "arrived": xs,
                "unallocated": [_median(points[x]) for x in xs],
                "unallocatedAt100": _median(
                    [
                        v
                        for r in rs
                        if (v := r.summary.get("unallocatedGpuPercentAt100")) is not None
                    ]
                ),
                "podsPerSecond": _median(
                    [v for r in rs if (v := r.summary.get("podsPerSecond")) is not None]
                ),
                "placed": _median([r.summary.get("placed", 0) for r in rs]),
                "failed": _median([r.summary.get("failed", 0) for r in rs]),
            }
        )
    return out


def nodes_to_score(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Throughput against quality: per (trace, configuration), the percentages in order."""
    series: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for g in rows:
        series[(g["trace"], g["config"])].append(g)
    return [
        {
            "label": f"{trace} · {config}",
            "percentage": [g["percentage"] for g in gs],
            "podsPerSecond": [g["podsPerSecond"] for g in gs],
            "unallocatedAt100": [g["unallocatedAt100"] for g in gs],
        }
        for (trace, config), gs in sorted(series.items())
        if len(gs) > 1
    ]
