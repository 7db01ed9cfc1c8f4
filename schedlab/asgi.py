"""ASGI entry point: HTTP through Django, websockets through Channels, probes in front."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "schedlab.settings.dev")
# Django must be set up before the consumers (and their models) are imported.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from dashboard.pages.routing import websocket_urlpatterns  # noqa: E402

from .access_log import AccessLog  # noqa: E402
from .health import HealthEndpoints  # noqa: E402

router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
application = HealthEndpoints(AccessLog(router) if settings.SCHEDLAB_ACCESS_LOG else router)
