"""Pages of the profile editor and the dry-run results; each view parses, calls, renders."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Max, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from dashboard.cluster.models import Cluster
from dashboard.roles import ADMIN, OPERATOR, VIEWER, has_role

from . import graphs, selectors
from .models import DryRun, Profile, ProfileVersion
from .services import BadInput
from .services import dryruns as dryrun_services
from .services import editor as editor_services
from .services import profiles as profile_services
from .services.metrics import LOWER_IS_BETTER

NEW_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
"""
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


def _require(request: HttpRequest, role: str) -> None:
    if not has_role(request.user, role):
        raise PermissionDenied(f"your role does not allow this (needs {role})")


def _int(value: str | None, default: int = 0) -> int:
    try:
        return max(int(value or default), 0)
    except ValueError:
        return default


def _cluster_param(request: HttpRequest) -> Cluster | None:
    name = request.GET.get("cluster") or request.POST.get("cluster")
    return Cluster.objects.filter(name=name).first() if name else None


def _errors(exc: BadInput) -> list[dict[str, str]]:
    return [{"field": f, "message": m} for f, ms in exc.errors.items() for m in ms]


# --- profiles -------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def profile_list(request: HttpRequest) -> HttpResponse:
    _require(request, VIEWER)
    cluster = _cluster_param(request)
    form = {"name": "", "document": NEW_PROFILE, "cluster": cluster.name if cluster else ""}
    errors: list[dict[str, str]] = []
    if request.method == "POST":
        _require(request, OPERATOR)
        form = {k: request.POST.get(k, "") for k in ("name", "document", "cluster", "message")}
        try:
            version = profile_services.create_profile(
                name=form["name"].strip(),
                document=form["document"],
                cluster=cluster,
                author=request.user,
                message=form.get("message", ""),
            )
        except BadInput as exc:
            errors = _errors(exc)
        else:
            messages.success(request, f"Profile {version.profile.name} created.")
            return redirect("dryruns:profile-editor", pk=version.profile_id)
    qs = selectors.profiles().annotate(
        latest_number=Max("versions__number"), updated_at=Max("versions__created_at")
    )
    if cluster is not None:
        qs = qs.filter(Q(cluster=cluster) | Q(cluster__isnull=True))
    page = Paginator(qs.order_by("name", "id"), 50).get_page(request.GET.get("page"))
    active = {
        c.name: selectors.active_application(c) for c in Cluster.objects.order_by("name")[:50]
    }
    rows = [
        {
            "profile": p,
            "active_on": [n for n, a in active.items() if a and a.version.profile_id == p.pk],
        }
        for p in page
    ]
    context = {
        "nav": "profiles",
        "cluster": cluster,
        "page": page,
        "rows": rows,
        "clusters": Cluster.objects.order_by("name").values_list("name", flat=True),
        "form": form,
        "errors": errors,
    }
    return render(request, "dryruns/profile_list.html", context, status=400 if errors else 200)


def _editor_context(
    request: HttpRequest, profile: Profile, version: ProfileVersion, document: str
) -> dict[str, Any]:
    versions = list(selectors.profile_versions().filter(profile=profile).order_by("-number")[:200])
    cluster = _cluster_param(request) or profile.cluster or Cluster.objects.order_by("name").first()
    active = selectors.active_application(cluster) if cluster else None
    runs = (
        list(
            selectors.dry_runs()
            .filter(profile_version=version, cluster=cluster)
            .order_by("-id")[:5]
        )
        if cluster
        else []
    )
    watched = None
    run_id = request.GET.get("run")
    if run_id and run_id.isdigit():
        watched = next((r for r in runs if r.pk == int(run_id)), None)
    try:
        knobs = editor_services.read_knobs(document)
    except BadInput:
        knobs = None
    return {
        "nav": "profiles",
        "cluster": cluster,
        "profile": profile,
        "version": version,
        "versions": versions,
        "document": document,
        "clusters": Cluster.objects.order_by("name").values_list("name", flat=True),
        "active": active,
        "is_active": active is not None and active.version_id == version.pk,
        "runs": runs,
        "watched": watched or (runs[0] if runs else None),
        "succeeded": next((r for r in runs if r.status == DryRun.Status.SUCCEEDED), None),
        "knobs": knobs,
        "strategies": editor_services.SCORING_STRATEGIES,
        "can_operate": has_role(request.user, OPERATOR),
        "can_admin": has_role(request.user, ADMIN),
    }


@login_required
@require_http_methods(["GET", "POST"])
def profile_editor(request: HttpRequest, pk: int) -> HttpResponse:
    """The YAML editor and form of one version (``?v=N``, default the latest); POST saves."""
    _require(request, VIEWER)
    profile = get_object_or_404(selectors.profiles(), pk=pk)
    versions = selectors.profile_versions().filter(profile=profile)
    number = _int(request.GET.get("v"))
    version = (
        get_object_or_404(versions, number=number)
        if number
        else versions.order_by("-number").first()
    )
    if version is None:
        raise PermissionDenied("this profile has no versions")
    if request.method == "POST":
        _require(request, OPERATOR)
        document = request.POST.get("document", "")
        try:
            saved = profile_services.create_version(
                profile,
                document=document,
                author=request.user,
                message=request.POST.get("message", "").strip()[:500],
            )
        except BadInput as exc:
            context = _editor_context(request, profile, version, document)
            context["errors"] = _errors(exc)
            context["message"] = request.POST.get("message", "")
            return render(request, "dryruns/profile_editor.html", context, status=400)
        messages.success(request, f"Saved {saved}.")
        url = reverse("dryruns:profile-editor", args=[profile.pk])
        cluster = request.POST.get("cluster", "")
        return redirect(f"{url}?v={saved.number}" + (f"&cluster={cluster}" if cluster else ""))
    return render(
        request,
        "dryruns/profile_editor.html",
        _editor_context(request, profile, version, version.document),
    )


@login_required
@require_POST
def profile_form(request: HttpRequest) -> JsonResponse:
    """The form's knobs for a document, or the document with the form's changes applied.

    Body: ``{"document": "...", "knobs": {...}}`` (knobs optional). Nothing is saved.
    """
    _require(request, VIEWER)
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return JsonResponse({"errors": [{"field": "body", "message": "not JSON"}]}, status=400)
    if not isinstance(body, dict) or not isinstance(body.get("document"), str):
        return JsonResponse(
            {"errors": [{"field": "document", "message": "a string is required"}]}, status=400
        )
    try:
        if body.get("knobs") is not None:
            data = editor_services.apply_knobs(body["document"], body["knobs"])
        else:
            data = {
                "document": body["document"],
                "knobs": editor_services.read_knobs(body["document"]),
            }
    except BadInput as exc:
        return JsonResponse({"errors": _errors(exc)}, status=400)
    return JsonResponse(data)


@login_required
def profile_diff(request: HttpRequest, pk: int) -> HttpResponse:
    _require(request, VIEWER)
    profile = get_object_or_404(selectors.profiles(), pk=pk)
    versions = selectors.profile_versions().filter(profile=profile)
    numbers = list(versions.order_by("-number").values_list("number", flat=True)[:200])
    b_num = _int(request.GET.get("b")) or (numbers[0] if numbers else 0)
    a_num = _int(request.GET.get("a")) or (numbers[1] if len(numbers) > 1 else b_num)
    a = get_object_or_404(versions, number=a_num)
    b = get_object_or_404(versions, number=b_num)
    diff = profile_services.diff_versions(a, b)
    lines = [
        {
            "text": line.rstrip("\n"),
            "kind": "meta"
            if line.startswith(("---", "+++", "@@"))
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else "same",
        }
        for line in diff.splitlines(keepends=True)
    ]
    context = {
        "nav": "profiles",
        "cluster": _cluster_param(request) or profile.cluster,
        "profile": profile,
        "a": a,
        "b": b,
        "numbers": numbers,
        "lines": lines,
    }
    return render(request, "dryruns/profile_diff.html", context)


def _version(pk: int, number: int) -> ProfileVersion:
    return get_object_or_404(selectors.profile_versions(), profile_id=pk, number=number)


@login_required
@require_POST
def start_dry_run(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Freeze the cluster as mirrored now and queue a dry-run of this version on it."""
    _require(request, OPERATOR)
    version = _version(pk, number)
    cluster = get_object_or_404(Cluster, name=request.POST.get("cluster", ""))
    url = reverse("dryruns:profile-editor", args=[pk])
    try:
        run = dryrun_services.create_dry_run(
            cluster,
            profile_version=version,
            source=DryRun.Source.MIRROR,
            explain=request.POST.get("explain", "on") == "on",
            user=request.user,
        )
    except BadInput as exc:
        messages.error(request, f"Dry-run not started: {exc}")
        return redirect(f"{url}?v={number}&cluster={cluster.name}")
    return redirect(f"{url}?v={number}&cluster={cluster.name}&run={run.pk}#dry-run")


@login_required
@require_POST
def apply_version(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Make the version active (admins); guarded by a successful dry-run unless forced."""
    _require(request, ADMIN)
    version = _version(pk, number)
    cluster = get_object_or_404(Cluster, name=request.POST.get("cluster", ""))
    force = request.POST.get("force") == "on"
    run_id = request.POST.get("dry_run", "")
    dry_run = DryRun.objects.filter(pk=int(run_id)).first() if run_id.isdigit() else None
    try:
        app = profile_services.apply_version(
            cluster, version, user=request.user, dry_run=dry_run, force=force
        )
    except BadInput as exc:
        messages.error(request, f"Not applied: {exc}")
    else:
        how = (
            "forced by an admin (recorded)"
            if app.forced
            else f"justified by dry-run {app.dry_run_id}"
        )
        messages.success(request, f"{version} is now active on {cluster.name}, {how}.")
    url = reverse("dryruns:profile-editor", args=[pk])
    return redirect(f"{url}?v={number}&cluster={cluster.name}")


# --- dry-runs -------------------------------------------------------------------------


@login_required
def dryrun_list(request: HttpRequest) -> HttpResponse:
    _require(request, VIEWER)
    cluster = _cluster_param(request)
    # only what the table shows: no payloads (state, workload, metrics) per row
    qs = selectors.dry_runs().select_related("created_by").only(*LIST_FIELDS)
    if cluster is not None:
        qs = qs.filter(cluster=cluster)
    page = Paginator(qs.order_by("-id"), 50).get_page(request.GET.get("page"))
    return render(
        request, "dryruns/dryrun_list.html", {"nav": "dryruns", "cluster": cluster, "page": page}
    )


def _metric_rows(run: DryRun) -> list[dict[str, Any]]:
    before = (run.metrics or {}).get("before", {})
    after = (run.metrics or {}).get("after", {})
    rows = []
    for name in dict.fromkeys([*before, *after]):
        a, b = before.get(name), after.get(name)
        if isinstance(a, dict) or isinstance(b, dict):
            continue
        delta = (
            round(b - a, 4) if isinstance(a, int | float) and isinstance(b, int | float) else None
        )
        verdict = ""
        if delta and name in LOWER_IS_BETTER:
            verdict = "better" if (delta < 0) == LOWER_IS_BETTER[name] else "worse"
        rows.append({"name": name, "before": a, "after": b, "delta": delta, "verdict": verdict})
    return rows


@login_required
def dryrun_detail(request: HttpRequest, pk: int) -> HttpResponse:
    _require(request, VIEWER)
    run = get_object_or_404(selectors.dry_runs().select_related("created_by"), pk=pk)
    context: dict[str, Any] = {"nav": "dryruns", "cluster": run.cluster, "run": run}
    if run.status == DryRun.Status.SUCCEEDED:
        page_no = _int(request.GET.get("page"), 1) or 1
        pages = max((run.result_count + PLACEMENTS_PER_PAGE - 1) // PLACEMENTS_PER_PAGE, 1)
        page_no = min(page_no, pages)
        run = dryrun_services.ensure_indexes(run)
        # the compact placement index, never the result pages (explanations) or the state
        placements = dryrun_services.read_index(
            run, "placements", (page_no - 1) * PLACEMENTS_PER_PAGE, PLACEMENTS_PER_PAGE
        )
        pending_no = _int(request.GET.get("pending"), 1) or 1
        pending, more = graphs.pending_results(
            run, (pending_no - 1) * PENDING_PER_PAGE, PENDING_PER_PAGE
        )
        graph = graphs.preemption_graph(run)
        context.update(
            placements=placements,
            page_no=page_no,
            pages=pages,
            pending=pending,
            pending_no=pending_no,
            pending_more=more,
            pending_pages=max(-(-run.pending_count // PENDING_PER_PAGE), 1),
            metric_rows=_metric_rows(run),
            spread=(run.metrics or {}).get("after", {}).get("spreadPerZone", {}),
            graph=graph,
            figure=graph["figure"] if graph else None,
            rejections=graphs.rejections(run)[:REJECTION_ROWS],
            active=selectors.active_application(run.cluster),
        )
    context["can_operate"] = has_role(request.user, OPERATOR)
    return render(request, "dryruns/dryrun_detail.html", context)


@login_required
@require_POST
def compare_with_active(request: HttpRequest, pk: int) -> HttpResponse:
    """Find (or queue, on the same frozen state) the active profile's run; show the diff."""
    _require(request, OPERATOR)
    run = get_object_or_404(selectors.dry_runs(), pk=pk)
    active = selectors.active_application(run.cluster)
    version = active.version if active is not None else None
    if version is not None and version.pk == run.profile_version_id:
        messages.info(request, f"{version} is already the active version on {run.cluster.name}.")
        return redirect("dryruns:dryrun-detail", pk=run.pk)
    try:
        baseline = editor_services.baseline_for(run, version, request.user)
    except BadInput as exc:
        messages.error(request, f"Could not start the baseline dry-run: {exc}")
        return redirect("dryruns:dryrun-detail", pk=run.pk)
    return redirect("dryruns:dryrun-compare", pk=run.pk, other=baseline.pk)


@login_required
def dryrun_compare(request: HttpRequest, pk: int, other: int) -> HttpResponse:
    """``pk`` (edited) against ``other`` (the baseline): placement diff and metric deltas."""
    _require(request, VIEWER)
    runs = selectors.dry_runs()
    run = get_object_or_404(runs, pk=pk)
    baseline = get_object_or_404(runs, pk=other)
    context: dict[str, Any] = {
        "nav": "dryruns",
        "cluster": run.cluster,
        "run": run,
        "baseline": baseline,
        "waiting": [r for r in (baseline, run) if not r.finished],
    }
    if not context["waiting"]:
        page_no = _int(request.GET.get("page"), 1) or 1
        try:
            context["comparison"] = dryrun_services.compare_dry_runs(
                baseline,
                run,
                limit=CHANGES_PER_PAGE,
                offset=(page_no - 1) * CHANGES_PER_PAGE,
            )
            context["page_no"] = page_no
        except BadInput as exc:
            context["compare_error"] = str(exc)
    return render(request, "dryruns/dryrun_compare.html", context)
