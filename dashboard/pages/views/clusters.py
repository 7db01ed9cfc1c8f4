"""Pages of the mirrored clusters: overview, pending pods, pod explanations, nodes and GPUs.

Every page needs a login (any role may look); starting a dry-run needs the
operator role. ``*_rows``/``*.json`` endpoints are the small fragments that
live.js re-fetches to catch up after a websocket reconnect or a large change.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from dashboard.cluster import selectors
from dashboard.cluster.models import Cluster
from dashboard.dryruns import selectors as dryrun_selectors
from dashboard.dryruns.models import ProfileVersion
from dashboard.dryruns.services.errors import BadInput
from dashboard.dryruns.services.pod_dry_run import start_pod_dry_run
from dashboard.explain import live
from dashboard.explain.answer import engine_warnings
from dashboard.explain.events import event_rows
from dashboard.explain.orphans import orphans_of_pod, unschedulable, update_settings
from dashboard.explain.pending_reasons import pending_reasons
from dashboard.explain.reading import read_explanation
from dashboard.pages.views.forms import DEPTH_MESSAGE, cascade_depth_param
from dashboard.pages.views.gangs import gang_rows
from dashboard.roles import OPERATOR, has_role

_PAGES = {
    "overview": "pages:cluster-detail",
    "pending": "pages:pending",
    "nodes": "pages:nodes",
}


def _cluster(name: str) -> Cluster:
    return get_object_or_404(Cluster, name=name)


def _page_number(request: HttpRequest) -> int:
    raw = request.GET.get("page", "1")
    return int(raw) if raw.isdigit() else 1


@login_required
def cluster_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "dashboard/cluster_list.html",
        {"clusters": selectors.clusters(), "nav": "clusters"},
    )


@login_required
@require_GET
def switch_cluster(request: HttpRequest) -> HttpResponse:
    name = request.GET.get("cluster", "")
    cluster = _cluster(name)
    page = request.GET.get("page", "overview")
    return redirect(_PAGES.get(page, "pages:cluster-detail"), cluster.name)


@login_required
def cluster_detail(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _cluster(name)
    reasons, source = selectors.top_reasons(cluster, live.pending_messages(cluster))
    context = {
        "cluster": cluster,
        "nav": "overview",
        "overview": selectors.overview(cluster),
        "reasons": reasons,
        "reasons_source": source,
        **_unschedulable_context(cluster),
    }
    return render(request, "dashboard/overview.html", context)


def _unschedulable_context(cluster: Cluster) -> dict[str, Any]:
    found = unschedulable(cluster)
    for o in found["orphans"]:
        o["namespace"], _, o["name"] = o["pod"].partition("/")
    return {
        "unschedulable": found,
        "declared_text": "\n".join(found["declaredSchedulers"]),
        "gates_text": "\n".join(found["gateControllers"]),
    }


def _lines(raw: str) -> list[str]:
    return [line.strip() for line in raw.splitlines() if line.strip()]


@login_required
@require_POST
def unschedulable_settings(request: HttpRequest, name: str) -> HttpResponse:
    """Store the declared schedulers and gate-removing controllers (one name per line)."""
    cluster = _cluster(name)
    back = reverse("pages:cluster-detail", args=[cluster.name]) + "#unschedulable-h"
    if not has_role(request.user, OPERATOR):
        messages.error(request, "Changing the declarations needs the operator role.")
        return redirect(back)
    data = {
        "declaredSchedulers": _lines(request.POST.get("declared_schedulers", "")),
        "gateControllers": _lines(request.POST.get("gate_controllers", "")),
    }
    try:
        update_settings(cluster, data)
    except BadInput as exc:
        messages.error(request, f"Not saved: {exc}")
    else:
        messages.success(request, "Declarations saved.")
    return redirect(back)


@login_required
def overview_json(request: HttpRequest, name: str) -> JsonResponse:
    cluster = _cluster(name)
    reasons, source = selectors.top_reasons(cluster, live.pending_messages(cluster))
    return JsonResponse(
        {
            **selectors.overview(cluster),
            "reasons": reasons,
            "reasonsSource": source,
            "health": selectors.mirror_health(cluster),
        }
    )


def _pending_filters(request: HttpRequest) -> selectors.PendingFilters:
    raw_priority = request.GET.get("priority", "").strip()
    try:
        priority = int(raw_priority) if raw_priority else None
    except ValueError:
        priority = None
    gpu = request.GET.get("gpu", "").strip()
    return selectors.PendingFilters(
        namespace=request.GET.get("namespace", "").strip(),
        priority=priority,
        reason=request.GET.get("reason", "").strip()[:200],
        gpu=gpu if gpu in ("none", "any") or gpu.isdigit() else "",
    )


def _pending_context(
    request: HttpRequest, cluster: Cluster, engine: selectors.EngineMessages | None
) -> dict[str, Any]:
    filters = _pending_filters(request)
    page = selectors.pending_page(cluster, filters, _page_number(request), engine)
    return {"cluster": cluster, "filters": filters, "result": page, "query": filters.query()}


@login_required
def pending(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _cluster(name)
    engine = live.pending_messages(cluster)
    context = _pending_context(request, cluster, engine)
    reasons, _ = selectors.top_reasons(cluster, engine)
    context.update(
        nav="pending",
        choices=selectors.pending_filter_choices(cluster),
        reasons=reasons,
        gangs=gang_rows(cluster),
    )
    return render(request, "dashboard/pending.html", context)


@login_required
def pending_rows(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _cluster(name)
    context = _pending_context(request, cluster, live.pending_messages(cluster))
    return render(request, "dashboard/_pending_rows.html", context)


def _profile_versions(cluster: Cluster) -> list[Any]:
    return list(
        dryrun_selectors.profile_versions()
        .filter(Q(profile__cluster=cluster) | Q(profile__cluster__isnull=True))
        .order_by("-id")[:50]
    )


@login_required
def pod_explanation(request: HttpRequest, name: str, namespace: str, pod: str) -> HttpResponse:
    cluster, row = _pod(name, namespace, pod)
    event = (
        selectors.failed_scheduling_events(cluster, namespace, pod)
        .only("message", "count", "last_seen")
        .first()
    )
    context = {
        "cluster": cluster,
        "nav": "pending",
        "pod": row,
        "event": event,
        "versions": _profile_versions(cluster) if has_role(request.user, OPERATOR) else [],
    }
    return render(request, "dashboard/pod_explanation.html", context)


@login_required
def pod_explanation_fragment(
    request: HttpRequest, name: str, namespace: str, pod: str
) -> HttpResponse:
    """The engine's breakdown (runs the engine with the active profile; seconds when cold)."""
    cluster, row = _pod(name, namespace, pod)
    result = live.explain_pod(cluster, namespace, pod, whatif=False)
    explanation = read_explanation(cluster, row, result)
    events = event_rows(
        selectors.failed_scheduling_events(cluster, namespace, pod),
        result.get("events") or [],
        row.scheduler_name,
    )
    reasons = []
    if not row.node_name and explanation.status == "Scheduled":
        reasons = pending_reasons(cluster, row, live.active_config(cluster))
    return render(
        request,
        "dashboard/_explanation.html",
        {
            "cluster": cluster,
            "pod": row,
            "ex": explanation,
            "chart": explanation.chart,
            "events": events,
            "pending_reasons": reasons,
            "orphans": orphans_of_pod(cluster, row) if not row.node_name else [],
            "warnings": engine_warnings(result),
            # what would make it fit: a second request, so the verdict never waits for it
            "fit_url": reverse("pages:pod-explanation-fit", args=[cluster.name, namespace, pod])
            if explanation.status == "Unschedulable"
            else "",
        },
    )


@login_required
def pod_explanation_fit(request: HttpRequest, name: str, namespace: str, pod: str) -> HttpResponse:
    """The nearest nodes and verified changes of a pod that does not fit (the engine's whatif)."""
    cluster, row = _pod(name, namespace, pod)
    result = live.explain_pod(cluster, namespace, pod)
    return render(
        request,
        "dashboard/_explanation_fit.html",
        {
            "cluster": cluster,
            "pod": row,
            "ex": read_explanation(cluster, row, result),
            "can_dry_run": has_role(request.user, OPERATOR),
        },
    )


def _pod(name: str, namespace: str, pod: str) -> tuple[Cluster, Any]:
    """The cluster and the pod's row; 404 for either unknown."""
    cluster = _cluster(name)
    row = selectors.pod_row(cluster, namespace, pod)
    if row is None:
        raise Http404(f"pod {namespace}/{pod} is not in cluster {cluster.name}")
    return cluster, row


@login_required
@require_POST
def pod_dry_run(request: HttpRequest, name: str, namespace: str, pod: str) -> HttpResponse:
    """Start a dry-run of just this pod (the running state plus it) with another profile."""
    cluster = _cluster(name)
    back = reverse("pages:pod-explanation", args=[cluster.name, namespace, pod])
    if not has_role(request.user, OPERATOR):
        messages.error(request, "Starting a dry-run needs the operator role.")
        return redirect(back)
    version = None
    raw = request.POST.get("profile_version", "").strip()
    if raw:
        version = ProfileVersion.objects.filter(pk=int(raw)).first() if _is_id(raw) else None
        if version is None:
            messages.error(
                request, f"Could not start the dry-run: profile_version: no version {raw!r}"
            )
            return redirect(back)
    depth = cascade_depth_param(request)
    if depth is None:
        messages.error(request, f"Could not start the dry-run: cascade_depth: {DEPTH_MESSAGE}")
        return redirect(back)
    fix = None
    raw_fix = request.POST.get("fix", "").strip()
    if raw_fix:
        fix = live.verified_fix(cluster, namespace, pod, raw_fix)
        if fix is None:
            messages.error(
                request,
                f"Could not start the dry-run: fix: no verified change {raw_fix!r} "
                "for this pod now (the cluster may have changed; see the list again)",
            )
            return redirect(back)
    moves = None
    raw_moves = request.POST.get("moves", "").strip()
    if raw_moves:
        try:
            moves = json.loads(raw_moves)
        except ValueError:
            messages.error(request, "Could not start the dry-run: moves: not JSON")
            return redirect(back)
    try:
        run = start_pod_dry_run(
            cluster,
            namespace,
            pod,
            version,
            hardware_view=request.POST.get("hardware_view") == "on",
            cascade_depth=depth,
            moves=moves,
            user=request.user,
            fix=fix,
        )
    except (BadInput, LookupError) as exc:
        messages.error(request, f"Could not start the dry-run: {exc}")
        return redirect(back)
    return redirect("pages:dryrun-detail", pk=run.pk)


def _is_id(raw: str) -> bool:
    return raw.isascii() and raw.isdigit() and 0 < int(raw) < 2**63


def _nodes_context(request: HttpRequest, cluster: Cluster) -> dict[str, Any]:
    gpu_only = request.GET.get("gpu") == "1"
    q = request.GET.get("q", "").strip()[:100]
    page = selectors.nodes_page(cluster, _page_number(request), gpu_only=gpu_only, q=q)
    query = {k: v for k, v in {"gpu": "1" if gpu_only else "", "q": q}.items() if v}
    return {"cluster": cluster, "result": page, "gpu_only": gpu_only, "q": q, "query": query}


@login_required
def nodes(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _cluster(name)
    context = _nodes_context(request, cluster)
    # the GPU heatmap and figures read all GPU nodes: nodes.js loads them from
    # gpu-topology.json after the page, so the page costs one page of nodes
    context.update(nav="nodes")
    return render(request, "dashboard/nodes.html", context)


@login_required
def nodes_rows(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _cluster(name)
    return render(request, "dashboard/_nodes_rows.html", _nodes_context(request, cluster))


@login_required
def gpu_topology_json(request: HttpRequest, name: str) -> JsonResponse:
    return JsonResponse(selectors.gpu_topology(_cluster(name)))


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})
