"""Pages of the profile editor: the list, one version's editor and form, diffs, dry-run, apply.

Each view parses its input, calls the profile services, renders.
"""

from __future__ import annotations

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

from dashboard import conf
from dashboard.cluster.models import Cluster
from dashboard.dryruns import selectors
from dashboard.dryruns.models import DryRun, Profile, ProfileVersion
from dashboard.dryruns.services import dryruns as dryrun_services
from dashboard.dryruns.services import editor as editor_services
from dashboard.dryruns.services import profiles as profile_services
from dashboard.dryruns.services.errors import BadInput
from dashboard.pages.views.forms import DEPTH_MESSAGE, cascade_depth_param
from dashboard.roles import ADMIN, OPERATOR, VIEWER, has_role
from scheduler_engine.documents import load_json
from scheduler_engine.errors import InputError

from .common import (
    cluster_param,
    confirm_change,
    diff_lines,
    editor_bundle,
    field_errors,
    int_param,
    require_role,
)

NEW_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
"""


@login_required
@require_http_methods(["GET", "POST"])
def profile_list(request: HttpRequest) -> HttpResponse:
    require_role(request, VIEWER)
    cluster = cluster_param(request)
    form = {"name": "", "document": NEW_PROFILE, "cluster": cluster.name if cluster else ""}
    errors: list[dict[str, str]] = []
    if request.method == "POST":
        require_role(request, OPERATOR)
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
            errors = field_errors(exc)
        else:
            messages.success(request, f"Profile {version.profile.name} created.")
            return redirect("pages:profile-editor", pk=version.profile_id)
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
    cluster = cluster_param(request) or profile.cluster or Cluster.objects.order_by("name").first()
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
        "warnings": profile_services.document_warnings(document),
        "strategies": editor_services.SCORING_STRATEGIES,
        "can_operate": has_role(request.user, OPERATOR),
        "can_admin": has_role(request.user, ADMIN),
        "editor_bundle": editor_bundle(),
    }


@login_required
@require_http_methods(["GET", "POST"])
def profile_editor(request: HttpRequest, pk: int) -> HttpResponse:
    """The YAML editor and form of one version (``?v=N``, default the latest); POST saves."""
    require_role(request, VIEWER)
    profile = get_object_or_404(selectors.profiles(), pk=pk)
    versions = selectors.profile_versions().filter(profile=profile)
    number = int_param(request.GET.get("v"))
    version = (
        get_object_or_404(versions, number=number)
        if number
        else versions.order_by("-number").first()
    )
    if version is None:
        raise PermissionDenied("this profile has no versions")
    if request.method == "POST":
        require_role(request, OPERATOR)
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
            context["errors"] = field_errors(exc)
            context["message"] = request.POST.get("message", "")
            return render(request, "dryruns/profile_editor.html", context, status=400)
        messages.success(request, f"Saved {saved}.")
        url = reverse("pages:profile-editor", args=[profile.pk])
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
    require_role(request, VIEWER)
    if len(request.body) > 2 * conf.max_config_bytes():
        message = f"larger than {2 * conf.max_config_bytes()} bytes, the limit of this endpoint"
        return JsonResponse({"errors": [{"field": "body", "message": message}]}, status=400)
    try:
        body = load_json(request.body or b"{}")
    except InputError as exc:
        return JsonResponse({"errors": [{"field": "body", "message": exc.message}]}, status=400)
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
        return JsonResponse({"errors": field_errors(exc)}, status=400)
    return JsonResponse(data)


@login_required
def profile_diff(request: HttpRequest, pk: int) -> HttpResponse:
    require_role(request, VIEWER)
    profile = get_object_or_404(selectors.profiles(), pk=pk)
    versions = selectors.profile_versions().filter(profile=profile)
    numbers = list(versions.order_by("-number").values_list("number", flat=True)[:200])
    b_num = int_param(request.GET.get("b")) or (numbers[0] if numbers else 0)
    a_num = int_param(request.GET.get("a")) or (numbers[1] if len(numbers) > 1 else b_num)
    a = get_object_or_404(versions, number=a_num)
    b = get_object_or_404(versions, number=b_num)
    lines = diff_lines(profile_services.diff_versions(a, b))
    context = {
        "nav": "profiles",
        "cluster": cluster_param(request) or profile.cluster,
        "profile": profile,
        "a": a,
        "b": b,
        "numbers": numbers,
        "lines": lines,
        "editor_bundle": editor_bundle(),
    }
    return render(request, "dryruns/profile_diff.html", context)


def _version_on_cluster(
    request: HttpRequest, pk: int, number: int
) -> tuple[ProfileVersion, Cluster, str]:
    """The version, the form's cluster, and the editor's URL to go back to."""
    version = get_object_or_404(selectors.profile_versions(), profile_id=pk, number=number)
    name = request.POST.get("cluster") or request.GET.get("cluster", "")
    cluster = get_object_or_404(Cluster, name=name)
    back = f"{reverse('pages:profile-editor', args=[pk])}?v={number}&cluster={cluster.name}"
    return version, cluster, back


@login_required
@require_POST
def start_dry_run(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Freeze the cluster as mirrored now and queue a dry-run of this version on it."""
    require_role(request, OPERATOR)
    version, cluster, back = _version_on_cluster(request, pk, number)
    raw_lag = request.POST.get("scheduler_lag", "").strip()
    if raw_lag and not (raw_lag.isascii() and raw_lag.isdigit()):
        messages.error(request, "Dry-run not started: scheduler_lag: must be a whole number")
        return redirect(back)
    depth = cascade_depth_param(request)
    if depth is None:
        messages.error(request, f"Dry-run not started: cascade_depth: {DEPTH_MESSAGE}")
        return redirect(back)
    try:
        run = dryrun_services.create_dry_run(
            cluster,
            profile_version=version,
            source=DryRun.Source.MIRROR,
            cascade_depth=depth,
            explain=request.POST.get("explain", "on") == "on",
            hardware_view=request.POST.get("hardware_view") == "on",
            scheduler_lag=int(raw_lag) if raw_lag else None,
            feature_gates=request.POST.get("feature_gates", "").strip() or None,
            user=request.user,
        )
    except BadInput as exc:
        messages.error(request, f"Dry-run not started: {exc}")
        return redirect(back)
    return redirect(f"{back}&run={run.pk}#dry-run")


@login_required
@require_http_methods(["GET", "POST"])
def apply_version(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Make the version active (admins); guarded by a successful dry-run unless forced.

    GET shows what would change (the diff from what is active) and the dry-run
    the apply rests on; the confirmation POSTs here.
    """
    require_role(request, ADMIN)
    version, cluster, back = _version_on_cluster(request, pk, number)
    data = request.POST if request.method == "POST" else request.GET
    force = data.get("force") == "on"
    run_id = data.get("dry_run", "")
    dry_run = DryRun.objects.filter(pk=int(run_id)).first() if run_id.isdigit() else None
    if request.method == "GET":
        active = selectors.active_application(cluster)
        if dry_run is None:
            dry_run = selectors.latest_succeeded_run(cluster, version)
        before = active.version if active is not None else None
        return confirm_change(
            request, cluster, "apply", before, version, dry_run=dry_run, force=force, back=back
        )
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
    return redirect(back)
