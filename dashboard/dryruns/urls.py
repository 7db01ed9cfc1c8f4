"""Pages of the profile editor and the dry-runs (namespace ``dryruns``)."""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "dryruns"
urlpatterns = [
    path("profiles/", views.profile_list, name="profile-list"),
    path("profiles/form/", views.profile_form, name="profile-form"),
    path("profiles/<int:pk>/", views.profile_editor, name="profile-editor"),
    path("profiles/<int:pk>/diff/", views.profile_diff, name="profile-diff"),
    path(
        "profiles/<int:pk>/versions/<int:number>/dry-run/",
        views.start_dry_run,
        name="profile-dry-run",
    ),
    path(
        "profiles/<int:pk>/versions/<int:number>/apply/",
        views.apply_version,
        name="profile-apply",
    ),
    path("dry-runs/", views.dryrun_list, name="dryrun-list"),
    path("dry-runs/<int:pk>/", views.dryrun_detail, name="dryrun-detail"),
    path(
        "dry-runs/<int:pk>/compare-with-active/",
        views.compare_with_active,
        name="dryrun-compare-active",
    ),
    path("dry-runs/<int:pk>/compare/<int:other>/", views.dryrun_compare, name="dryrun-compare"),
]
