"""Root URLs: admin, the REST API under ``api/v1/``, the pages."""

from __future__ import annotations

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView


class FaviconView(RedirectView):
    """The icon's (hashed, in production) static URL, looked up per request, not at import."""

    permanent = False

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("dashboard/favicon.svg")


urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("dashboard.api.urls")),
    # pages that name no icon (Django admin, the API docs): browsers still ask
    path("favicon.ico", FaviconView.as_view()),
    path("", include("dashboard.pages.urls")),
]

# JSON for unknown paths under /api/, the usual pages elsewhere
handler404 = "dashboard.api.handlers.not_found"
handler500 = "dashboard.api.handlers.server_error"
