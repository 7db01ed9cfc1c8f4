"""The API's permission: a view's role requirements checked against ``dashboard.roles``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import SAFE_METHODS, BasePermission

from dashboard.roles import OPERATOR, VIEWER, has_role

if TYPE_CHECKING:  # pragma: no cover
    from rest_framework.request import Request
    from rest_framework.views import APIView

__all__ = ["RolePermission"]


class RolePermission(BasePermission):
    """Reads need viewer; writes need the view's ``write_role`` or the action's role.

    A view may map action names to roles in ``action_roles``.
    """

    message = "your role does not allow this"

    def has_permission(self, request: Request, view: APIView) -> bool:
        action = getattr(view, "action", None)
        roles = getattr(view, "action_roles", {})
        if action in roles:
            return has_role(request.user, roles[action])
        if request.method in SAFE_METHODS:
            return has_role(request.user, VIEWER)
        return has_role(request.user, getattr(view, "write_role", OPERATOR))
