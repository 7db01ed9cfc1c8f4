"""The versioned REST API: one router, the OpenAPI schema and its docs."""

from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from . import studies, views

app_name = "api"
router = DefaultRouter()
router.register("clusters", views.ClusterViewSet, basename="cluster")
router.register("nodes", views.NodeViewSet, basename="node")
router.register("pods", views.PodViewSet, basename="pod")
router.register("profiles", views.ProfileViewSet, basename="profile")
router.register("profile-versions", views.ProfileVersionViewSet, basename="profile-version")
router.register("dry-runs", views.DryRunViewSet, basename="dry-run")
router.register("studies", studies.StudyViewSet, basename="study")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(api_version="v1"), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
    path("", include(router.urls)),
]
