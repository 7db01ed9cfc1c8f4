from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

urlpatterns = [
    path("admin/", admin.site.urls),
    # The REST API lands in a later issue; the schema endpoint is wired already.
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/", include("dashboard.dryruns.api.urls")),
    path("", include("dashboard.dryruns.urls")),
    path("", include("dashboard.urls")),
]
