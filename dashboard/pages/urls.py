"""The pages (namespace ``pages``): clusters, pod explanations, nodes, profiles, dry-runs, studies."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import include, path

from .views import applications, clusters, dryruns, gangs, gpus, profiles, studies

app_name = "pages"

pod_pages = [
    path("", clusters.pod_explanation, name="pod-explanation"),
    path("explanation/", clusters.pod_explanation_fragment, name="pod-explanation-fragment"),
    path("explanation/fit/", clusters.pod_explanation_fit, name="pod-explanation-fit"),
    path("dry-run/", clusters.pod_dry_run, name="pod-dry-run"),
]
cluster_pages = [
    path("", clusters.cluster_detail, name="cluster-detail"),
    path("overview.json", clusters.overview_json, name="overview-json"),
    path(
        "unschedulable-settings/",
        clusters.unschedulable_settings,
        name="unschedulable-settings",
    ),
    path("pending/", clusters.pending, name="pending"),
    path("pending/rows/", clusters.pending_rows, name="pending-rows"),
    path("gangs/", gangs.gang_list, name="gangs"),
    path("gangs/<str:namespace>/<str:gang>/", gangs.gang_detail, name="gang-detail"),
    path("pods/<str:namespace>/<str:pod>/", include(pod_pages)),
    path("nodes/", clusters.nodes, name="nodes"),
    path("nodes/rows/", clusters.nodes_rows, name="nodes-rows"),
    path("gpu-topology.json", clusters.gpu_topology_json, name="gpu-topology"),
    path("applications/", applications.application_history, name="applications"),
    path("applications/rollback/", applications.rollback, name="rollback"),
    path("gpus/", gpus.gpu_fleet, name="gpu-fleet"),
    path("gpus/body/", gpus.gpu_fleet_body, name="gpu-fleet-body"),
    path("gpus/inconsistencies/", gpus.gpu_inconsistencies, name="gpu-inconsistencies"),
    path("gpus/<str:node>/", gpus.gpu_node, name="gpu-node"),
    path("gpus/<str:node>/body/", gpus.gpu_node_body, name="gpu-node-body"),
]
profile_pages = [
    path("", profiles.profile_editor, name="profile-editor"),
    path("diff/", profiles.profile_diff, name="profile-diff"),
    path("versions/<int:number>/dry-run/", profiles.start_dry_run, name="profile-dry-run"),
    path("versions/<int:number>/apply/", profiles.apply_version, name="profile-apply"),
]
dry_run_pages = [
    path("", dryruns.dryrun_detail, name="dryrun-detail"),
    path("compare-with-active/", dryruns.compare_with_active, name="dryrun-compare-active"),
    path("compare/<int:other>/", dryruns.dryrun_compare, name="dryrun-compare"),
    path("cancel/", dryruns.cancel, name="dryrun-cancel"),
]

urlpatterns = [
    path("", clusters.cluster_list, name="cluster-list"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("switch/", clusters.switch_cluster, name="switch-cluster"),
    path("clusters/<slug:name>/", include(cluster_pages)),
    path("profiles/", profiles.profile_list, name="profile-list"),
    path("profiles/form/", profiles.profile_form, name="profile-form"),
    path("profiles/<int:pk>/", include(profile_pages)),
    path("dry-runs/", dryruns.dryrun_list, name="dryrun-list"),
    path("dry-runs/<int:pk>/", include(dry_run_pages)),
    path("studies/", studies.study_list, name="study-list"),
    path("studies/<int:pk>/", studies.study_detail, name="study-detail"),
    path("studies/<int:pk>/cancel/", studies.cancel, name="study-cancel"),
    path("metrics/", dryruns.metrics_glossary, name="metrics"),
    path("healthz", clusters.healthz, name="healthz"),
]
