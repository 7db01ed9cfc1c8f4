"""The Kubernetes client boundary: plain dicts in and out, our errors only."""

from __future__ import annotations

from .client import KubeClient, KubeSource, ListPage, WatchEvent, build_api_client
from .errors import (
    KubeApiError,
    KubeAuthError,
    KubeConfigError,
    KubeError,
    KubeGone,
    KubeNotFound,
    KubeUnreachable,
)

__all__ = [
    "KubeApiError",
    "KubeAuthError",
    "KubeClient",
    "KubeConfigError",
    "KubeError",
    "KubeGone",
    "KubeNotFound",
    "KubeSource",
    "KubeUnreachable",
    "ListPage",
    "WatchEvent",
    "build_api_client",
]
