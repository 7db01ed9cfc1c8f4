"""Pages of the mirrored clusters (namespace ``dashboard``), login and logout."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from .views import clusters as views

app_name = "dashboard"
urlpatterns = [
    path("", views.cluster_list, name="cluster-list"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("switch/", views.switch_cluster, name="switch-cluster"),
    path("clusters/<slug:name>/", views.cluster_detail, name="cluster-detail"),
    path("clusters/<slug:name>/overview.json", views.overview_json, name="overview-json"),
    path("clusters/<slug:name>/pending/", views.pending, name="pending"),
    path("clusters/<slug:name>/pending/rows/", views.pending_rows, name="pending-rows"),
    path(
        "clusters/<slug:name>/pods/<str:namespace>/<str:pod>/",
        views.pod_explanation,
        name="pod-explanation",
    ),
    path(
        "clusters/<slug:name>/pods/<str:namespace>/<str:pod>/explanation/",
        views.pod_explanation_fragment,
        name="pod-explanation-fragment",
    ),
    path(
        "clusters/<slug:name>/pods/<str:namespace>/<str:pod>/dry-run/",
        views.pod_dry_run,
        name="pod-dry-run",
    ),
    path("clusters/<slug:name>/nodes/", views.nodes, name="nodes"),
    path("clusters/<slug:name>/nodes/rows/", views.nodes_rows, name="nodes-rows"),
    path("clusters/<slug:name>/gpu-topology.json", views.gpu_topology_json, name="gpu-topology"),
    path("healthz", views.healthz, name="healthz"),
]
