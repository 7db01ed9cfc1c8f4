"""Server-rendered pages; each view calls selectors and renders."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render

from . import selectors
from .models import Cluster


def cluster_list(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/cluster_list.html", {"clusters": selectors.clusters()})


def cluster_detail(request: HttpRequest, name: str) -> HttpResponse:
    cluster = get_object_or_404(Cluster, name=name)
    context = {
        "cluster": cluster,
        "summary": selectors.cluster_summary(cluster),
        "pending": selectors.pending_pods(cluster)[:200],
    }
    return render(request, "dashboard/cluster_detail.html", context)


def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"ok": True})
