"""Websocket routes: live cluster deltas and dry-run progress."""

from __future__ import annotations

from django.urls import path

from .consumers import ClusterConsumer, DryRunConsumer

websocket_urlpatterns = [
    path("ws/clusters/<slug:name>/", ClusterConsumer.as_asgi()),
    path("ws/dry-runs/<int:pk>/", DryRunConsumer.as_asgi()),
]
