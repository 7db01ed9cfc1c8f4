"""Read-side shapes of the dry-run pages: pending results, the preemption graph.

Pure functions of a run's stored results and frozen objects; the views call
them and hand the output to templates (and Plotly, as JSON).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from scheduler_engine.objects.selectors import SelectorError, parse_label_selector

from . import codec
from .models import DryRun, DryRunResultPage

__all__ = [
    "MAX_GRAPH_EDGES",
    "explanation_groups",
    "pending_results",
    "preemption_graph",
    "preemptions",
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


def _pages(run: DryRun) -> Iterator[list[dict[str, Any]]]:
    ids = (
        DryRunResultPage.objects.filter(dry_run=run).order_by("index").values_list("id", flat=True)
    )
    for pk in ids:
        data = DryRunResultPage.objects.values_list("data", flat=True).get(pk=pk)
        yield codec.unpack(data)


def pending_results(run: DryRun, offset: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """Results that did not schedule, ``offset``..``offset+limit``; and whether more follow."""
    out: list[dict[str, Any]] = []
    seen = 0
    for page in _pages(run):
        for r in page:
            if r.get("status") == "Scheduled":
                continue
            if seen >= offset:
                if len(out) == limit:
                    return out, True
                out.append(r)
            seen += 1
    return out, False


def preemptions(run: DryRun) -> list[dict[str, Any]]:
    """Every result that evicted pods (preemptor, node, victims), in queue order."""
    return [
        {"pod": r["pod"], "node": r.get("node") or r.get("nominatedNode"), "victims": r["victims"]}
        for page in _pages(run)
        for r in page
        if r.get("victims")
    ]


def explanation_groups(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Nodes grouped by the (plugin, reason) that first rejected them, biggest group first."""
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for node, failure in (result.get("filterFailures") or {}).items():
        groups[(failure.get("plugin", ""), failure.get("reason", ""))].append(node)
    return [
        {"plugin": plugin, "reason": reason, "nodes": sorted(nodes), "count": len(nodes)}
        for (plugin, reason), nodes in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    ]


def _pod_info(objects: Iterable[Mapping[str, Any]], keys: set[str]) -> dict[str, dict[str, Any]]:
    info: dict[str, dict[str, Any]] = {}
    for obj in objects:
        if obj.get("kind") != "Pod":
            continue
        meta = obj.get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
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


def preemption_graph(run: DryRun) -> dict[str, Any] | None:
    """A Plotly figure: preemptors (left) → victims (right), coloured by priority class.

    None when the run preempted nothing. Victims whose eviction breaks a PDB are
    drawn with a red ring and listed in ``violations``.
    """
    rows = preemptions(run)
    if not rows:
        return None
    edges = [(r["pod"], v, r["node"]) for r in rows for v in r["victims"]][:MAX_GRAPH_EDGES]
    preemptors = list(dict.fromkeys(a for a, _, _ in edges))
    victims = list(dict.fromkeys(b for _, b, _ in edges))
    objects = codec.unpack(DryRun.objects.values_list("snapshot", flat=True).get(pk=run.pk))
    info = _pod_info(objects, set(preemptors) | set(victims))
    values = _priority_values(objects)
    violations = _violations(objects, victims, info)

    def y_of(items: list[str]) -> dict[str, float]:
        n = len(items)
        return {k: (n - 1 - i) - (n - 1) / 2 for i, k in enumerate(items)}

    pos = {k: (0.0, y) for k, y in y_of(preemptors).items()}
    pos.update({k: (1.0, y) for k, y in y_of(victims).items()})
    classes = list(dict.fromkeys(info.get(k, {}).get("priorityClass", "(none)") for k in pos))
    colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(classes)}

    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": [v for a, b, _ in edges for v in (pos[a][0], pos[b][0], None)],
            "y": [v for a, b, _ in edges for v in (pos[a][1], pos[b][1], None)],
            "line": {"color": "#999", "width": 1},
            "hoverinfo": "skip",
            "showlegend": False,
        }
    ]
    for cls in classes:
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
                    "color": colour[cls],
                    "symbol": ["x" if k in violations else "circle" for k in keys],
                    "line": {
                        "color": ["#d00" if k in violations else "#fff" for k in keys],
                        "width": [4 if k in violations else 1 for k in keys],
                    },
                },
            }
        )
    annotations = [
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
    annotations += [
        {
            "x": 0,
            "y": 1.02,
            "xref": "x",
            "yref": "paper",
            "text": "<b>preemptors</b>",
            "showarrow": False,
        },
        {
            "x": 1,
            "y": 1.02,
            "xref": "x",
            "yref": "paper",
            "text": "<b>victims</b>",
            "showarrow": False,
        },
    ]
    height = max(260, 48 * max(len(preemptors), len(victims)) + 80)
    layout = {
        "height": height,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 20},
        # room either side for the pod names (text left of preemptors, right of victims)
        "xaxis": {"visible": False, "range": [-1.1, 2.1], "fixedrange": True},
        "yaxis": {"visible": False, "fixedrange": True},
        "annotations": annotations,
        "legend": {"title": {"text": "priority class"}, "orientation": "h", "y": -0.05},
        "hovermode": "closest",
    }
    counts = Counter(b for _, b, _ in edges if b in violations)
    return {
        "figure": {"data": traces, "layout": layout},
        "edges": [{"preemptor": a, "victim": b, "node": n} for a, b, n in edges],
        "violations": {k: violations[k] for k in counts},
        "truncated": sum(len(r["victims"]) for r in rows) > len(edges),
    }
