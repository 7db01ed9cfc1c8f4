"""Our errors for everything that can go wrong talking to a cluster.

The mirror and the pages only see these; ``kubernetes.client`` exceptions
never leave ``dashboard.cluster.kube``.
"""

from __future__ import annotations

__all__ = [
    "KubeApiError",
    "KubeAuthError",
    "KubeConfigError",
    "KubeError",
    "KubeGone",
    "KubeNotFound",
    "KubeUnreachable",
]


class KubeError(Exception):
    """Base class; ``status`` is a short word for the cluster's health column."""

    status = "error"


class KubeConfigError(KubeError):
    """The kubeconfig is missing, unreadable, or has no such context."""

    status = "bad kubeconfig"


class KubeUnreachable(KubeError):
    """Connection refused, reset, timed out or dropped mid-stream."""

    status = "unreachable"


class KubeAuthError(KubeError):
    """401/403: credentials expired or lack the rights to list/watch."""

    status = "unauthorized"


class KubeGone(KubeError):
    """410 Gone: the resourceVersion (or continue token) is too old; relist."""

    status = "expired"


class KubeApiError(KubeError):
    """Any other non-2xx answer, or a body that is not what the API sends."""

    def __init__(self, message: str, code: int = 0) -> None:
        super().__init__(message)
        self.code = code


class KubeNotFound(KubeApiError):
    """404 for a collection: the API server does not serve this kind (e.g. no DRA)."""

    status = "not available"

    def __init__(self, message: str) -> None:
        super().__init__(message, 404)
