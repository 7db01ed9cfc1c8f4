"""Pages of applied profiles: a cluster's apply history, and rolling back (with a confirmation).

Viewers read the history; rolling back needs the admin role, as applying does.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from dashboard.cluster.models import Cluster
from dashboard.dryruns import selectors
from dashboard.dryruns.services import profiles as profile_services
from dashboard.dryruns.services.errors import BadInput
from dashboard.roles import ADMIN, VIEWER, has_role

from .common import NO_PROFILE, confirm_change, require_role

HISTORY_ROWS = 100


@login_required
def application_history(request: HttpRequest, name: str) -> HttpResponse:
    require_role(request, VIEWER)
    cluster = get_object_or_404(Cluster, name=name)
    apps = list(
        selectors.applications(cluster)
        .select_related("dry_run", "rolled_back_from__version__profile")
        .order_by("-id")[:HISTORY_ROWS]
    )
    active = selectors.active_application(cluster)
    try:
        _, previous = profile_services.rollback_target(cluster)
        can_roll_back = True
    except BadInput:
        previous, can_roll_back = None, False
    return render(
        request,
        "dryruns/applications.html",
        {
            "nav": "profiles",
            "cluster": cluster,
            "apps": apps,
            "active": active,
            "can_roll_back": can_roll_back and has_role(request.user, ADMIN),
            "rollback_to": previous.version if previous is not None else None,
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def rollback(request: HttpRequest, name: str) -> HttpResponse:
    """GET: what a rollback would change and the dry-run it rests on; POST: roll back."""
    require_role(request, ADMIN)
    cluster = get_object_or_404(Cluster, name=name)
    back = reverse("pages:applications", args=[cluster.name])
    if request.method == "POST":
        try:
            app = profile_services.rollback(cluster, user=request.user)
        except BadInput as exc:
            messages.error(request, f"Not rolled back: {exc}")
        else:
            now = str(app.version) if app.version is not None else NO_PROFILE
            messages.success(request, f"Rolled back: {cluster.name} now runs {now}.")
        return redirect(back)
    try:
        current, previous = profile_services.rollback_target(cluster)
    except BadInput as exc:
        messages.error(request, str(exc))
        return redirect(back)
    return confirm_change(
        request,
        cluster,
        "rollback",
        current.version,
        previous.version if previous is not None else None,
        dry_run=previous.dry_run if previous is not None else None,
        back=back,
    )
