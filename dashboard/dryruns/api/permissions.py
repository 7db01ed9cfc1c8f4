"""Roles are Django groups: viewer < operator < admin (superusers are admins)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.permissions import SAFE_METHODS, BasePermission

if TYPE_CHECKING:  # pragma: no cover
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
    from rest_framework.request import Request
    from rest_framework.views import APIView

__all__ = ["ADMIN", "OPERATOR", "ROLES", "VIEWER", "RolePermission", "role_of"]

VIEWER, OPERATOR, ADMIN = "viewer", "operator", "admin"
ROLES = (VIEWER, OPERATOR, ADMIN)
_RANK = {VIEWER: 1, OPERATOR: 2, ADMIN: 3}


def role_of(user: AbstractBaseUser | AnonymousUser | None) -> int:
    if not user or not user.is_authenticated:
        return 0
    if user.is_superuser:
        return _RANK[ADMIN]
    names = getattr(user, "_schedlab_groups", None)
    if names is None:
        names = set(user.groups.values_list("name", flat=True))
        user._schedlab_groups = names
    return max((_RANK[n] for n in names if n in _RANK), default=0)


def has_role(user: AbstractBaseUser | AnonymousUser | None, role: str) -> bool:
    return role_of(user) >= _RANK[role]


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
