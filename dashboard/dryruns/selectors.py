"""Reads of profiles and dry-runs for the API; reading dry-runs first reaps lost ones."""

from __future__ import annotations

from django.db.models import QuerySet

from dashboard.cluster.models import Cluster

from .models import Application, DryRun, Profile, ProfileVersion
from .tasks import reap

__all__ = [
    "active_application",
    "active_document",
    "applications",
    "dry_runs",
    "latest_succeeded_run",
    "profile_versions",
    "profiles",
]


def profiles() -> QuerySet[Profile]:
    return Profile.objects.select_related("cluster").all()


def profile_versions() -> QuerySet[ProfileVersion]:
    return ProfileVersion.objects.select_related("profile", "author").all()


def dry_runs() -> QuerySet[DryRun]:
    reap()
    return DryRun.objects.select_related("cluster", "profile_version__profile").defer("snapshot")


def applications(cluster: Cluster) -> QuerySet[Application]:
    return Application.objects.filter(cluster=cluster).select_related(
        "version__profile", "applied_by"
    )


def active_application(cluster: Cluster) -> Application | None:
    """The latest application whose ConfigMap write (if one was needed) succeeded.

    None when nothing was ever applied, or when the latest application undid
    the first one (back to the cluster's own scheduler configuration).
    """
    app = (
        applications(cluster)
        .exclude(configmap_status__in=Application.INACTIVE)
        .order_by("-id")
        .first()
    )
    return app if app is not None and app.version_id is not None else None


def active_document(cluster: Cluster) -> str | None:
    app = active_application(cluster)
    return app.version.document if app is not None else None


def latest_succeeded_run(cluster: Cluster, version: ProfileVersion) -> DryRun | None:
    """The newest successful dry-run of ``version`` on ``cluster`` (what an apply rests on)."""
    return (
        dry_runs()
        .filter(cluster=cluster, profile_version=version, status=DryRun.Status.SUCCEEDED)
        .order_by("-finished_at", "-id")
        .first()
    )
