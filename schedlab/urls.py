"""Root URLs: admin, the REST API under ``api/v1/``, the dry-run and dashboard pages."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

urlpatterns = [
    path("admin/", admin.site.urls),
    # the first, unversioned schema URL; the API documents itself at api/v1/schema/
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/", include("dashboard.dryruns.api.urls")),
    path("", include("dashboard.dryruns.urls")),
    path("", include("dashboard.urls")),
]
