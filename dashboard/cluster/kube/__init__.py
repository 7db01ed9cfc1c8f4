"""The Kubernetes client boundary: plain dicts in and out, our errors only."""

from __future__ import annotations

from . import errors
from .client import KubeClient, KubeSource, ListPage, WatchEvent, build_api_client
from .errors import *  # noqa: F403

__all__ = ["KubeClient", "KubeSource", "ListPage", "WatchEvent", "build_api_client"]
__all__ += errors.__all__
