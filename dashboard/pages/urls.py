"""The pages (namespace ``pages``): clusters, pod explanations, nodes, profiles, dry-runs."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from .views import clusters, dryruns, profiles

app_name = "pages"
urlpatterns = [
    path("", clusters.cluster_list, name="cluster-list"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("switch/", clusters.switch_cluster, name="switch-cluster"),
    path("clusters/<slug:name>/", clusters.cluster_detail, name="cluster-detail"),
    path("clusters/<slug:name>/overview.json", clusters.overview_json, name="overview-json"),
    path("clusters/<slug:name>/pending/", clusters.pending, name="pending"),
    path("clusters/<slug:name>/pending/rows/", clusters.pending_rows, name="pending-rows"),
    path(
        "clusters/<slug:name>/pods/<str:namespace>/<str:pod>/",
        clusters.pod_explanation,
        name="pod-explanation",
    ),
    path(
        "clusters/<slug:name>/pods/<str:namespace>/<str:pod>/explanation/",
        clusters.pod_explanation_fragment,
        name="pod-explanation-fragment",
    ),
    path(
        "clusters/<slug:name>/pods/<str:namespace>/<str:pod>/dry-run/",
        clusters.pod_dry_run,
        name="pod-dry-run",
    ),
    path("clusters/<slug:name>/nodes/", clusters.nodes, name="nodes"),
    path("clusters/<slug:name>/nodes/rows/", clusters.nodes_rows, name="nodes-rows"),
    path("clusters/<slug:name>/gpu-topology.json", clusters.gpu_topology_json, name="gpu-topology"),
    path("profiles/", profiles.profile_list, name="profile-list"),
    path("profiles/form/", profiles.profile_form, name="profile-form"),
    path("profiles/<int:pk>/", profiles.profile_editor, name="profile-editor"),
    path("profiles/<int:pk>/diff/", profiles.profile_diff, name="profile-diff"),
    path(
        "profiles/<int:pk>/versions/<int:number>/dry-run/",
        profiles.start_dry_run,
        name="profile-dry-run",
    ),
    path(
        "profiles/<int:pk>/versions/<int:number>/apply/",
        profiles.apply_version,
        name="profile-apply",
    ),
    path("dry-runs/", dryruns.dryrun_list, name="dryrun-list"),
    path("dry-runs/<int:pk>/", dryruns.dryrun_detail, name="dryrun-detail"),
    path(
        "dry-runs/<int:pk>/compare-with-active/",
        dryruns.compare_with_active,
        name="dryrun-compare-active",
    ),
    path("dry-runs/<int:pk>/compare/<int:other>/", dryruns.dryrun_compare, name="dryrun-compare"),
    path("healthz", clusters.healthz, name="healthz"),
]
