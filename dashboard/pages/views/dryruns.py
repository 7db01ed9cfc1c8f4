"""Pages of the dry-runs: the list, one run's results, the comparison of two runs.

They read the runs' compact indexes (never the result pages or the frozen
state); each view parses its input, calls a selector or service, renders.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from dashboard.dryruns import graphs, selectors
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services import dryruns as dryrun_services
from dashboard.dryruns.services import editor as editor_services
from dashboard.dryruns.services import profiles as profile_services
from dashboard.dryruns.services.errors import BadInput
from dashboard.dryruns.services.metrics import LOWER_IS_BETTER, METRICS, metric_info
from dashboard.dryruns.services.results import ensure_indexes, read_index
from dashboard.roles import OPERATOR, VIEWER, has_role

from .common import cluster_param, int_param, require_role
from .forms import gates_text

PLACEMENTS_PER_PAGE = 100
PENDING_PER_PAGE = 20
CHANGES_PER_PAGE = 100
LIST_FIELDS = (
    "id",
    "status",
    "progress",
    "pods_placed",
    "pods_total",
    "inline_config",
    "created_at",
    "cluster",
    "profile_version",
    "created_by",
    "cluster__name",
    "profile_version__profile",
    "profile_version__number",
    "profile_version__profile__name",
    "created_by__username",
)
REJECTION_ROWS = 20
CHANGE_LABELS = {
    "same": "pods placed the same",
    "moved": "pods on another node",
    "newlyScheduled": "pods placed only by the edited profile",
    "newlyUnscheduled": "pods left pending only by the edited profile",
    "other": "pods whose status changed otherwise",
}


@login_required
def dryrun_list(request: HttpRequest) -> HttpResponse:
    require_role(request, VIEWER)
    cluster = cluster_param(request)
    # only what the table shows: no payloads (state, workload, metrics) per row
    qs = selectors.dry_runs().select_related("created_by").only(*LIST_FIELDS)
    if cluster is not None:
        qs = qs.filter(cluster=cluster)
    page = Paginator(qs.order_by("-id"), 50).get_page(request.GET.get("page"))
    return render(
        request, "dryruns/dryrun_list.html", {"nav": "dryruns", "cluster": cluster, "page": page}
    )


def _shown(value: Any, percent: bool) -> Any:
    if percent and isinstance(value, int | float):
        return f"{value * 100:.1f} %"
    return value


def metric_row(name: str, a: Any, b: Any, verdict: str | None = None) -> dict[str, Any]:
    """One table row of a metric: its human name, unit and definition, values as shown."""
    info = metric_info(name)
    numbers = isinstance(a, int | float) and isinstance(b, int | float)
    delta = round(b - a, 4) if numbers else None
    if verdict is None and delta and name in LOWER_IS_BETTER:
        verdict = "better" if (delta < 0) == LOWER_IS_BETTER[name] else "worse"
    if delta and info.percent:
        shown_delta = f"{delta * 100:+.1f} pp"
    else:
        shown_delta = f"{delta:+g}" if delta else ""
    return {
        "key": name,
        "name": info.label,
        "unit": info.unit,
        "definition": info.definition,
        "before": _shown(a, info.percent),
        "after": _shown(b, info.percent),
        "delta": shown_delta,
        "verdict": verdict or "",
    }


def _metric_rows(run: DryRun) -> list[dict[str, Any]]:
    before = (run.metrics or {}).get("before", {})
    after = (run.metrics or {}).get("after", {})
    return [
        metric_row(name, before.get(name), after.get(name))
        for name in dict.fromkeys([*before, *after])
        if not isinstance(before.get(name), dict) and not isinstance(after.get(name), dict)
    ]


def _pending_note(run: DryRun) -> str:
    """Why the "Pods pending" metric and the pending list's count differ, when they do."""
    metric = (run.metrics or {}).get("after", {}).get("podsPending")
    if not isinstance(metric, int) or metric == run.pending_count:
        return ""
    if metric == run.pending_count + run.victim_count:
        return (
            f"The Pods pending metric ({metric}) also counts the {run.victim_count} pod"
            f"{'s' if run.victim_count != 1 else ''} preemption evicted: they wait again, "
            "and this list shows the pods the run itself left pending."
        )
    return (
        f"The Pods pending metric ({metric}) counts every pod without a node at the end "
        "(evicted victims included); this list shows the pods the run itself left pending."
    )


def _page_param(request: HttpRequest, name: str, count: int, per_page: int) -> tuple[int, int]:
    """The page number ``?name=`` asks for, floored at 1 and capped at the last page of
    ``count`` rows shown ``per_page`` at a time; and the number of pages (at least 1)."""
    pages = max(-(-count // per_page), 1)
    return min(max(int_param(request.GET.get(name), 1), 1), pages), pages


@login_required
def dryrun_detail(request: HttpRequest, pk: int) -> HttpResponse:
    require_role(request, VIEWER)
    run = get_object_or_404(selectors.dry_runs().select_related("created_by"), pk=pk)
    context: dict[str, Any] = {"nav": "dryruns", "cluster": run.cluster, "run": run}
    context["gates"] = gates_text(run.feature_gates)
    context["warnings"] = profile_services.run_warnings(run)
    if run.status == DryRun.Status.SUCCEEDED:
        run = ensure_indexes(run)
        page_no, pages = _page_param(request, "page", run.result_count, PLACEMENTS_PER_PAGE)
        pending_no, pending_pages = _page_param(
            request, "pending", run.pending_count, PENDING_PER_PAGE
        )
        # the compact placement index, never the result pages (explanations) or the state
        placements = read_index(
            run, "placements", (page_no - 1) * PLACEMENTS_PER_PAGE, PLACEMENTS_PER_PAGE
        )
        pending, more = graphs.pending_results(
            run, (pending_no - 1) * PENDING_PER_PAGE, PENDING_PER_PAGE
        )
        graph = graphs.preemption_graph(run)
        cascade = graphs.cascade_graph(run)
        context.update(
            placements=placements,
            page_no=page_no,
            pages=pages,
            pending=pending,
            pending_no=pending_no,
            pending_more=more,
            pending_pages=pending_pages,
            metric_rows=_metric_rows(run),
            pending_note=_pending_note(run),
            spread=(run.metrics or {}).get("after", {}).get("spreadPerZone", {}),
            graph=graph,
            figure=graph["figure"] if graph else None,
            cascade=run.summary.get("cascade"),
            cascade_graph=cascade,
            cascade_figure=cascade["figure"] if cascade else None,
            rejections=graphs.rejections(run)[:REJECTION_ROWS],
            active=selectors.active_application(run.cluster),
        )
    context["can_operate"] = has_role(request.user, OPERATOR)
    return render(request, "dryruns/dryrun_detail.html", context)


@login_required
@require_POST
def compare_with_active(request: HttpRequest, pk: int) -> HttpResponse:
    """Find (or queue, on the same frozen state) the active profile's run; show the diff."""
    require_role(request, OPERATOR)
    run = get_object_or_404(selectors.dry_runs(), pk=pk)
    active = selectors.active_application(run.cluster)
    version = active.version if active is not None else None
    if version is not None and version.pk == run.profile_version_id:
        messages.info(request, f"{version} is already the active version on {run.cluster.name}.")
        return redirect("pages:dryrun-detail", pk=run.pk)
    try:
        baseline = editor_services.baseline_for(run, version, request.user)
    except BadInput as exc:
        messages.error(request, f"Could not start the baseline dry-run: {exc}")
        return redirect("pages:dryrun-detail", pk=run.pk)
    return redirect("pages:dryrun-compare", pk=run.pk, other=baseline.pk)


@login_required
def dryrun_compare(request: HttpRequest, pk: int, other: int) -> HttpResponse:
    """``pk`` (edited) against ``other`` (the baseline): placement diff and metric deltas."""
    require_role(request, VIEWER)
    runs = selectors.dry_runs()
    run = get_object_or_404(runs, pk=pk)
    baseline = get_object_or_404(runs, pk=other)
    context: dict[str, Any] = {
        "nav": "dryruns",
        "cluster": run.cluster,
        "run": run,
        "baseline": baseline,
        "waiting": [r for r in (baseline, run) if not r.finished],
        # either run's extenders, once each: neither run called them
        "warnings": profile_services.run_warnings(run, baseline),
    }
    if not context["waiting"]:
        page_no = int_param(request.GET.get("page"), 1) or 1
        try:
            context["comparison"] = dryrun_services.compare_dry_runs(
                baseline,
                run,
                limit=CHANGES_PER_PAGE,
                offset=(page_no - 1) * CHANGES_PER_PAGE,
            )
            context["page_no"] = page_no
            comparison = context["comparison"]
            context["metric_rows"] = [
                metric_row(m["metric"], m["a"], m["b"], m["verdict"]) for m in comparison["metrics"]
            ]
            context["count_cards"] = [
                {"key": k, "n": n, "label": CHANGE_LABELS.get(k, k)}
                for k, n in comparison["counts"].items()
            ]
        except BadInput as exc:
            context["compare_error"] = str(exc)
    return render(request, "dryruns/dryrun_compare.html", context)


@login_required
def metrics_glossary(request: HttpRequest) -> HttpResponse:
    """Every metric the dry-run and compare pages show: name, unit, definition, verdict."""
    return render(
        request, "dryruns/metrics.html", {"nav": "dryruns", "metrics": list(METRICS.values())}
    )


@login_required
@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask a queued or running dry-run to stop (operators); the page follows its status."""
    require_role(request, OPERATOR)
    run = get_object_or_404(selectors.dry_runs(), pk=pk)
    if run.finished:
        messages.info(request, f"Dry-run #{run.pk} has finished already ({run.status}).")
    else:
        run = dryrun_services.cancel_dry_run(run)
        messages.success(
            request,
            f"Dry-run #{run.pk} cancelled."
            if run.finished
            else f"Dry-run #{run.pk} will stop at its next progress check.",
        )
    return redirect("pages:dryrun-detail", pk=run.pk)
