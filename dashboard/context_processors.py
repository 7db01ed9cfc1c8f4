"""Template context every page needs: the user's role and the cluster switcher."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from dashboard.dryruns.api.permissions import ADMIN, OPERATOR, VIEWER, role_of

__all__ = ["navigation", "role_name"]

_NAMES = {0: "", 1: VIEWER, 2: OPERATOR, 3: ADMIN}


def role_name(user: Any) -> str:
    """``viewer``, ``operator``, ``admin``, or ``""`` for users without a role."""
    return _NAMES[role_of(user)]


def navigation(request: HttpRequest) -> dict[str, Any]:
    """``role``, ``can_operate``, ``can_admin`` and, lazily, the cluster names."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"role": "", "can_operate": False, "can_admin": False}
    rank = role_of(user)

    def cluster_names() -> list[str]:
        from dashboard.selectors import cluster_names as names

        return names()

    return {
        "role": _NAMES[rank],
        "can_operate": rank >= 2,
        "can_admin": rank >= 3,
        # A callable: evaluated only by templates that show the switcher.
        "all_cluster_names": cluster_names,
    }
