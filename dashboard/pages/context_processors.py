"""Template context every page needs: the user's role and the cluster switcher."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from dashboard.cluster.selectors import cluster_names
from dashboard.pages.views.forms import cascade_max_depth, deployment_gates
from dashboard.roles import ADMIN, OPERATOR, has_role, role_name

__all__ = ["navigation"]


def navigation(request: HttpRequest) -> dict[str, Any]:
    """``role``, ``can_operate``, ``can_admin`` and, lazily, the cluster names."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"role": "", "can_operate": False, "can_admin": False}
    return {
        "role": role_name(user),
        "can_operate": has_role(user, OPERATOR),
        "can_admin": has_role(user, ADMIN),
        # A callable: evaluated only by templates that show the switcher.
        "all_cluster_names": cluster_names,
        "cascade_max_depth": cascade_max_depth,
        "deployment_gates": deployment_gates,
    }
