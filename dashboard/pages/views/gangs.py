"""Gang pages: the pending pod groups of a cluster, and one group diagnosed as a job.

Thin: the diagnosis is the engine's (``dashboard.explain.gangs``); this only
picks the group and names its domain key in words. Any role may look.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from dashboard.cluster.models import Cluster
from dashboard.explain.gangs import GangsUnavailable, find_gang, pending_gangs

APIS = {
    "scheduling.k8s.io/v1alpha2": "native workload API",
    "scheduling.x-k8s.io/v1alpha1": "Coscheduling",
}


@login_required
def gang_list(request: HttpRequest, name: str) -> HttpResponse:
    cluster = get_object_or_404(Cluster, name=name)
    try:
        gangs, unavailable = pending_gangs(cluster), ""
    except GangsUnavailable as exc:
        gangs, unavailable = [], str(exc)
    context = {
        "cluster": cluster,
        "nav": "pending",
        "gangs": [_row(g) for g in gangs],
        "unavailable": unavailable,
    }
    return render(request, "dashboard/gangs.html", context)


@login_required
def gang_detail(request: HttpRequest, name: str, namespace: str, gang: str) -> HttpResponse:
    cluster = get_object_or_404(Cluster, name=name)
    api = request.GET.get("api") or None
    if api is not None and api not in APIS:
        raise Http404(f"no gang API {api}")
    try:
        g = find_gang(cluster, namespace, gang, api)
    except GangsUnavailable as exc:
        return render(
            request,
            "dashboard/gang.html",
            {"cluster": cluster, "nav": "pending", "unavailable": str(exc), "name": gang},
        )
    if g is None:
        raise Http404(f"no pod group {namespace}/{gang} with pending pods in {cluster.name}")
    context = {"cluster": cluster, "nav": "pending", "g": _row(g), "name": gang}
    return render(request, "dashboard/gang.html", context)


def gang_rows(cluster: Cluster) -> list[dict]:
    """The pending gangs as the list shows them; none when they cannot be worked out now."""
    try:
        return [_row(g) for g in pending_gangs(cluster)]
    except GangsUnavailable:
        return []


def _row(g: dict) -> dict:
    ns, _, name = g["name"].partition("/")
    lacks = None
    if g.get("minMember") is not None and g["status"] != "Scheduled":
        lacks = max(g["minMember"] - g["placed"], 0)
    return {
        **g,
        "namespace": ns,
        "short": name,
        "api_name": APIS.get(g.get("api") or "", g.get("api") or ""),
        "reason_list": sorted(g.get("reasons", {}).items(), key=lambda kv: (-kv[1], kv[0])),
        "domain_list": sorted(g.get("domains", {}).items(), key=lambda kv: (-kv[1], kv[0])),
        "released_list": sorted((g.get("released") or {}).items(), key=lambda kv: -kv[1]),
        "lacks": lacks,
    }
