"""GPU pages: the fleet (whole free nodes and NVLink domains), one node's GPU topology,
and the resource-view inconsistencies the overview lists.

Every page needs a login (any role may look). The ``*_body`` fragments are what
live.js re-fetches when claims, slices, pods, nodes or topologies change.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse

from dashboard.cluster.models import Cluster
from dashboard.explain import hardware
from dashboard.pages.templatetags.dashboard_extras import gib, millicores
from scheduler_engine.hardware_view import CLAIM_OF_MISSING_POD, NodeGpuView

# what the GPU views read: a change of any of these re-fetches the fragments
LIVE_KINDS = "nodes,pods,resourceclaims,resourceslices,noderesourcetopologies"


def _cluster(name: str) -> Cluster:
    return get_object_or_404(Cluster, name=name)


def _map(cluster: Cluster, fleet: hardware.Fleet) -> list[dict[str, str]]:
    """The fleet map's cells, shaped here: a thousand nodes stay cheap to render."""
    base = reverse("pages:gpu-node", args=[cluster.name, "NODE"]).removesuffix("NODE/")
    cells = []
    for n in fleet.nodes:
        state = "free" if n.used == 0 else "full" if n.free == 0 else "part"
        notes = " (device-plugin count)" if n.count_only else ""
        notes += ", cordoned" if n.unschedulable else ""
        if n.inconsistencies:
            s = "y" if n.inconsistencies == 1 else "ies"
            notes += f", {n.inconsistencies} inconsistenc{s}"
        cells.append(
            {
                "cls": f"fleet-{state}" + (" fleet-inconsistent" if n.inconsistencies else ""),
                "href": f"{base}{quote(n.node)}/",
                "title": f"{n.node}: {n.free} of {n.gpus} GPUs free{notes}",
                "free": str(n.free),
                "hidden": f" of {n.gpus} free on {n.node}",
            }
        )
    return cells


def _fleet_context(cluster: Cluster) -> dict[str, Any]:
    fleet = hardware.fleet(cluster)
    return {
        "map": _map(cluster, fleet),
        "cluster": cluster,
        "fleet": fleet,
        "whole_nodes": fleet.whole_free_nodes,
        "whole_domains": fleet.whole_free_domains,
        "products": fleet.by_product(),
        "whole_gpus": hardware.WHOLE_NODE_GPUS,
        "live_kinds": LIVE_KINDS,
    }


@login_required
def gpu_fleet(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _cluster(name)
    context = {**_fleet_context(cluster), "nav": "nodes"}
    return render(request, "dashboard/gpu_fleet.html", context)


@login_required
def gpu_fleet_body(request: HttpRequest, name: str) -> HttpResponse:
    return render(request, "dashboard/_gpu_fleet_body.html", _fleet_context(_cluster(name)))


def _claims(view: NodeGpuView) -> list[dict[str, Any]]:
    """The claims holding this node's devices: claim, devices, pods, in first-device order."""
    out: dict[str, dict[str, Any]] = {}
    for g in view.gpus:
        if g.claim:
            c = out.setdefault(g.claim, {"claim": g.claim, "devices": [], "pods": g.pods})
            c["devices"].append(g.name)
    return list(out.values())


def _zones(view: NodeGpuView) -> list[dict[str, Any]]:
    """NUMA zones' resources in display units (cores, GiB, counts)."""
    rows = []
    for z in view.zones:
        resources = []
        for name, values in z.resources.items():
            if name == "cpu":
                shown = [millicores(v) for v in values]
            elif name == "memory" or name.startswith("hugepages-"):
                shown = [f"{gib(v)} GiB" for v in values]
            else:
                shown = [str(v) for v in values]
            resources.append({"name": name, "values": shown})
        rows.append({"name": z.name, "resources": resources})
    return rows


def _node_context(cluster: Cluster, node: str) -> dict[str, Any]:
    view = hardware.node_view(cluster, node)
    if view is None:
        raise Http404(f"node {node} of cluster {cluster.name} has no GPUs (or does not exist)")
    missing = {
        p
        for i in view.inconsistencies
        if i.kind == CLAIM_OF_MISSING_POD
        for p in i.details.get("pods", ())
    }
    free = sum(
        1 for g in view.gpus if g.type != "mig" and not g.in_use and not _any_used(view, g.name)
    )
    return {
        "cluster": cluster,
        "view": view,
        "groups": hardware.layout(view),
        "claims": _claims(view),
        "zones": _zones(view),
        "missing_pods": missing,
        "whole_gpus": sum(1 for g in view.gpus if g.type != "mig"),
        "free_gpus": free,
        "inconsistencies": [{"node": view.node, **i.to_dict()} for i in view.inconsistencies],
        "live_kinds": LIVE_KINDS,
    }


def _any_used(view: NodeGpuView, parent: str) -> bool:
    return any(g.in_use for g in view.gpus if g.mig_parent == parent)


@login_required
def gpu_node(request: HttpRequest, name: str, node: str) -> HttpResponse:
    cluster = _cluster(name)
    context = {**_node_context(cluster, node), "nav": "nodes"}
    return render(request, "dashboard/gpu_node.html", context)


@login_required
def gpu_node_body(request: HttpRequest, name: str, node: str) -> HttpResponse:
    return render(request, "dashboard/_gpu_node_body.html", _node_context(_cluster(name), node))


@login_required
def gpu_inconsistencies(request: HttpRequest, name: str) -> HttpResponse:
    cluster = _cluster(name)
    context = {"cluster": cluster, "inconsistencies": hardware.inconsistencies(cluster)}
    return render(request, "dashboard/_gpu_inconsistencies.html", context)
