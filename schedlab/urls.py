"""Root URLs: admin, the REST API under ``api/v1/``, the pages."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("dashboard.api.urls")),
    path("", include("dashboard.pages.urls")),
]

# JSON for unknown paths under /api/, the usual pages elsewhere
handler404 = "dashboard.api.handlers.not_found"
handler500 = "dashboard.api.handlers.server_error"
