"""Read-side shapes of the dry-run pages: pending results, the preemption graph.

They read the run's compact indexes (``services.results.read_index``), never
the result pages or the frozen state; the views hand the output to templates
(and Plotly, as JSON).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .models import DryRun
from .services.results import ensure_indexes, read_index

__all__ = [
    "MAX_GRAPH_EDGES",
    "cascade_graph",
    "pending_results",
    "preemption_graph",
    "rejections",
]

MAX_GRAPH_EDGES = 300
# one colour per priority class, in order of first appearance (Plotly's default cycle)
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def pending_results(run: DryRun, offset: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """Results that did not schedule, ``offset``..``offset+limit``; and whether more follow.

    Read from the run's pending index (message and rejection groups per pod).
    """
    run = ensure_indexes(run)
    rows = read_index(run, "pending", offset, limit)
    return rows, offset + len(rows) < run.pending_count


def rejections(run: DryRun) -> list[dict[str, Any]]:
    """Per (plugin, reason): how many pending pods it rejected, over how many nodes."""
    return read_index(ensure_indexes(run), "rejections") or []


def preemption_graph(run: DryRun) -> dict[str, Any] | None:
    """A Plotly figure: preemptors (left) → victims (right), coloured by priority class.

    None when the run preempted nothing. Victims whose eviction breaks a PDB are
    drawn with a red ring and listed in ``violations``.
    """
    index = read_index(ensure_indexes(run), "preemptions") or {}
    rows = index.get("preemptors", [])
    if not rows:
        return None
    edges = [(r["pod"], v["pod"], r["node"]) for r in rows for v in r["victims"]][:MAX_GRAPH_EDGES]
    preemptors = list(dict.fromkeys(a for a, _, _ in edges))
    victims = list(dict.fromkeys(b for _, b, _ in edges))
    info: dict[str, dict[str, Any]] = {}
    violations: dict[str, list[str]] = {}
    for r in rows:
        info.setdefault(r["pod"], r)
        for v in r["victims"]:
            info.setdefault(v["pod"], v)
            if v["pdbs"]:
                violations[v["pod"]] = v["pdbs"]
    pos = {k: (0.0, y) for k, y in _column(preemptors).items()}
    pos.update({k: (1.0, y) for k, y in _column(victims).items()})
    traces = [_edge_lines(edges, pos)]
    traces += _pods_by_class(pos, info, violations, index.get("priorityValues", {}))
    layout = _layout(_arrows(edges, pos, violations), max(len(preemptors), len(victims)))
    counts = Counter(b for _, b, _ in edges if b in violations)
    return {
        "figure": {"data": traces, "layout": layout},
        "edges": [
            {"preemptor": a, "victim": b, "node": n, "pdbs": violations.get(b, [])}
            for a, b, n in edges
        ],
        "violations": {k: violations[k] for k in counts},
        "truncated": index.get("victimCount", 0) > len(edges),
        "preemptorCount": index.get("preemptorCount", 0),
        "victimCount": index.get("victimCount", 0),
        "violatingVictims": index.get("violatingVictims", 0),
    }


Edge = tuple[str, str, str]  # preemptor, victim, node
Positions = dict[str, tuple[float, float]]


def _column(items: list[str]) -> dict[str, float]:
    """Heights of one column's pods: first at the top, centred on 0."""
    n = len(items)
    return {k: (n - 1 - i) - (n - 1) / 2 for i, k in enumerate(items)}


def _edge_lines(edges: list[Edge], pos: Positions) -> dict[str, Any]:
    return {
        "type": "scatter",
        "mode": "lines",
        "x": [v for a, b, _ in edges for v in (pos[a][0], pos[b][0], None)],
        "y": [v for a, b, _ in edges for v in (pos[a][1], pos[b][1], None)],
        "line": {"color": "#999", "width": 1},
        "hoverinfo": "skip",
        "showlegend": False,
    }


def _pods_by_class(
    pos: Positions,
    info: dict[str, dict[str, Any]],
    violations: dict[str, list[str]],
    values: dict[str, int],
) -> list[dict[str, Any]]:
    """One marker trace per priority class (the legend), PDB breakers ringed in red."""
    classes = list(dict.fromkeys(info.get(k, {}).get("priorityClass", "(none)") for k in pos))
    traces = []
    for i, cls in enumerate(classes):
        keys = [k for k in pos if info.get(k, {}).get("priorityClass", "(none)") == cls]
        value = values.get(cls)
        traces.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": f"{cls} ({value})" if value is not None else cls,
                "x": [pos[k][0] for k in keys],
                "y": [pos[k][1] for k in keys],
                "text": keys,
                "textposition": ["middle left" if pos[k][0] == 0 else "middle right" for k in keys],
                "hovertext": [
                    f"{k}<br>priority {info.get(k, {}).get('priority')}"
                    + (f"<br>breaks PDB {', '.join(violations[k])}" if k in violations else "")
                    for k in keys
                ],
                "hoverinfo": "text",
                "marker": {
                    "size": 16,
                    "color": PALETTE[i % len(PALETTE)],
                    "symbol": ["x" if k in violations else "circle" for k in keys],
                    "line": {
                        "color": ["#d00" if k in violations else "#fff" for k in keys],
                        "width": [4 if k in violations else 1 for k in keys],
                    },
                },
            }
        )
    return traces


def _arrows(
    edges: list[Edge], pos: Positions, violations: dict[str, list[str]]
) -> list[dict[str, Any]]:
    """An arrow per eviction (red when it breaks a PDB), and the two column titles."""
    arrows = [
        {
            "x": pos[b][0],
            "y": pos[b][1],
            "ax": pos[a][0],
            "ay": pos[a][1],
            "xref": "x",
            "yref": "y",
            "axref": "x",
            "ayref": "y",
            "showarrow": True,
            "arrowhead": 3,
            "arrowsize": 1.2,
            "standoff": 9,
            "startstandoff": 9,
            "arrowcolor": "#d00" if b in violations else "#555",
            "text": "",
            "hovertext": f"on {node}",
        }
        for a, b, node in edges
    ]
    titles = [
        {"x": x, "y": 1.02, "xref": "x", "yref": "paper", "text": f"<b>{t}</b>", "showarrow": False}
        for x, t in ((0, "preemptors"), (1, "victims"))
    ]
    return arrows + titles


def _layout(annotations: list[dict[str, Any]], rows: int) -> dict[str, Any]:
    return {
        "height": max(260, 48 * rows + 80),
        "margin": {"l": 10, "r": 10, "t": 40, "b": 20},
        # room either side for the pod names (text left of preemptors, right of victims)
        "xaxis": {"visible": False, "range": [-1.1, 2.1], "fixedrange": True},
        "yaxis": {"visible": False, "fixedrange": True},
        "annotations": annotations,
        "legend": {"title": {"text": "priority class"}, "orientation": "h", "y": -0.05},
        "hovermode": "closest",
    }


# what became of a victim: the colours of the cascade graph's legend
OUTCOMES = (
    ("preemptor", "pending before the run (preemptor)", "#1f77b4"),
    ("placed", "recreated and placed again", "#2ca02c"),
    ("nowhere", "recreated, nowhere to go", "#d62728"),
    ("gone", "not recreated", "#7f7f7f"),
)


def cascade_graph(run: DryRun) -> dict[str, Any] | None:
    """A Plotly figure of the run's preemption cascade, one column per depth.

    Column 0 holds the pods that started it; column ``d`` the victims at depth
    ``d``, an arrow from each one's preemptor (a victim's replacement starts
    from the victim it replaces). Colours say what became of each victim.
    None when the run was not asked to follow cascades or evicted nothing.
    """
    cascade = (run.summary or {}).get("cascade")
    if not cascade or not cascade.get("levels"):
        return None
    # node ids are "depth:pod" (a StatefulSet's pod may be evicted again, deeper)
    columns: dict[int, list[str]] = {}
    info: dict[str, dict[str, Any]] = {}
    edges: list[tuple[str, str, str]] = []
    replaced_by: dict[str, str] = {}
    drawn = 0
    for level in cascade["levels"]:
        depth = int(level["depth"])
        for e in level["evictions"]:
            if drawn >= MAX_GRAPH_EDGES:
                break
            drawn += 1
            source = replaced_by.get(e["by"])
            if source is None:
                source = f"0:{e['by']}"
                if source not in info:
                    columns.setdefault(0, []).append(source)
                    info[source] = {"pod": e["by"], "kind": "preemptor"}
            target = f"{depth}:{e['pod']}"
            if target not in info:
                columns.setdefault(depth, []).append(target)
            info[target] = {**e, "kind": _outcome(e)}
            edges.append((source, target, e["node"]))
            if e.get("recreatedAs"):
                replaced_by[e["recreatedAs"]] = target
    pos: Positions = {}
    for depth, keys in columns.items():
        pos.update({k: (float(depth), y) for k, y in _column(keys).items()})
    traces = [_edge_lines(edges, pos)]
    for kind, label, colour in OUTCOMES:
        keys = [k for k in pos if info[k]["kind"] == kind]
        if not keys:
            continue
        traces.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "name": label,
                "x": [pos[k][0] for k in keys],
                "y": [pos[k][1] for k in keys],
                "text": [info[k]["pod"] for k in keys],
                "textposition": "bottom center",
                "hovertext": [_cascade_hover(info[k]) for k in keys],
                "hoverinfo": "text",
                "marker": {"size": 16, "color": colour, "line": {"color": "#fff", "width": 1}},
            }
        )
    deepest = max(columns)
    titles = [
        {
            "x": d,
            "y": 1.02,
            "xref": "x",
            "yref": "paper",
            "text": "<b>preemptors</b>" if d == 0 else f"<b>depth {d}</b>",
            "showarrow": False,
        }
        for d in range(deepest + 1)
    ]
    layout = _layout(
        _arrows(edges, pos, {})[: len(edges)] + titles, max(map(len, columns.values()))
    )
    rows = max(map(len, columns.values()))
    layout["height"] = max(300, 80 * rows + 120)
    layout["xaxis"] = {"visible": False, "range": [-0.6, deepest + 0.6], "fixedrange": True}
    # room below the lowest row for its names
    layout["yaxis"] = {"visible": False, "range": [-rows / 2 - 0.3, rows / 2], "fixedrange": True}
    layout["legend"] = {"orientation": "h", "y": -0.05}
    return {
        "figure": {"data": traces, "layout": layout},
        "truncated": drawn < sum(len(lv["evictions"]) for lv in cascade["levels"]),
        "drawn": drawn,
    }


def _outcome(eviction: dict[str, Any]) -> str:
    if not eviction.get("recreatedAs"):
        return "gone"
    outcome = eviction.get("outcome") or {}
    return "placed" if outcome.get("status") == "Scheduled" else "nowhere"


def _cascade_hover(e: dict[str, Any]) -> str:
    if e["kind"] == "preemptor":
        return f"{e['pod']}<br>started the cascade"
    lines = [
        e["pod"],
        f"evicted from {e['node']} by {e['by']}",
        f"priority {e['priority']} ({e.get('priorityClass') or 'no class'})",
        f"owner: {e['cause']}",
    ]
    if e.get("recreatedAs"):
        outcome = e.get("outcome") or {}
        where = outcome.get("node") or outcome.get("status", "")
        lines.append(f"back as {e['recreatedAs']}: {where}")
    return "<br>".join(lines)
