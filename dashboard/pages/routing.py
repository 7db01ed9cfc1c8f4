"""Websocket routes: live cluster deltas, dry-run and study progress."""

from __future__ import annotations

from django.urls import path

from .consumers import ClusterConsumer, DryRunConsumer, StudyConsumer

websocket_urlpatterns = [
    path("ws/clusters/<slug:name>/", ClusterConsumer.as_asgi()),
    path("ws/dry-runs/<int:pk>/", DryRunConsumer.as_asgi()),
    path("ws/studies/<int:pk>/", StudyConsumer.as_asgi()),
]
