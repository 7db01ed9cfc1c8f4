"""Pages of the studies: the list and one study's progress and results (curves side by side)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from dashboard.dryruns.services.errors import NotCancellable
from dashboard.roles import OPERATOR, VIEWER, has_role
from dashboard.studies.models import FINISHED, Study
from dashboard.studies.services import figures
from dashboard.studies.services import studies as study_services

from .common import require_role


@login_required
def study_list(request: HttpRequest) -> HttpResponse:
    require_role(request, VIEWER)
    qs = Study.objects.select_related("created_by").defer("spec").order_by("-id")
    page = Paginator(qs, 50).get_page(request.GET.get("page"))
    return render(request, "studies/study_list.html", {"nav": "studies", "page": page})


@login_required
def study_detail(request: HttpRequest, pk: int) -> HttpResponse:
    require_role(request, VIEWER)
    study = get_object_or_404(Study, pk=pk)
    runs = list(study.runs.select_related("trace").order_by("index"))
    rows = figures.groups(runs)
    return render(
        request,
        "studies/study_detail.html",
        {
            "nav": "studies",
            "study": study,
            "finished": study.status in FINISHED,
            "runs": runs,
            "traces": list(study.traces.all()),
            "configs": [c["label"] for c in study.spec.get("configs", [])],
            "groups": rows,
            "figure": {"groups": rows, "nodesToScore": figures.nodes_to_score(rows)},
            "can_operate": has_role(request.user, OPERATOR),
        },
    )


@login_required
@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    """Stop a study (operators): queued runs are dropped, running ones stop soon."""
    require_role(request, OPERATOR)
    study = get_object_or_404(Study, pk=pk)
    try:
        study_services.cancel_study(study)
        messages.success(request, f"Study #{pk} cancelled; runs that finished are kept.")
    except NotCancellable:
        messages.info(request, f"Study #{pk} has finished already.")
    return redirect("pages:study-detail", pk=pk)
