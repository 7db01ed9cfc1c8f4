"""Roles, shared by the pages, the REST API and the websockets.

A role is a Django group: ``viewer`` < ``operator`` < ``admin``; superusers
are admins. Viewers read, operators edit profiles and start dry-runs, admins
apply profiles (and may force an apply without a dry-run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction

if TYPE_CHECKING:  # pragma: no cover
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

__all__ = [
    "ADMIN",
    "OPERATOR",
    "ROLES",
    "VIEWER",
    "ensure_demo_users",
    "grant_admin_permissions",
    "has_role",
    "role_name",
    "role_of",
]

VIEWER, OPERATOR, ADMIN = "viewer", "operator", "admin"
ROLES = (VIEWER, OPERATOR, ADMIN)
_RANK = {VIEWER: 1, OPERATOR: 2, ADMIN: 3}
_NAMES = {0: "", 1: VIEWER, 2: OPERATOR, 3: ADMIN}


def role_of(user: AbstractBaseUser | AnonymousUser | None) -> int:
    """The user's rank: 0 without a role, then 1 viewer, 2 operator, 3 admin."""
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


def role_name(user: AbstractBaseUser | AnonymousUser | None) -> str:
    """``viewer``, ``operator``, ``admin``, or ``""`` for users without a role."""
    return _NAMES[role_of(user)]


# What the admin role may do in Django admin (/admin/): see every mirrored and
# dry-run model, and manage where applying a profile writes its ConfigMap.
# Applications are history: written by the apply service only, never by hand.
ADMIN_VIEWS = ("dashboard", "dryruns")  # app labels: dashboard.cluster is "dashboard"
ADMIN_CHANGES = {
    "dryruns": ("add_applytarget", "change_applytarget", "delete_applytarget"),
    "dashboard": ("change_cluster",),
}


def grant_admin_permissions() -> int:
    """Give the ``admin`` group its model permissions (idempotent); returns how many it has."""
    group, _ = Group.objects.get_or_create(name=ADMIN)
    views = Permission.objects.filter(
        content_type__app_label__in=ADMIN_VIEWS, codename__startswith="view_"
    )
    changes = [
        p
        for app, codenames in ADMIN_CHANGES.items()
        for p in Permission.objects.filter(content_type__app_label=app, codename__in=codenames)
    ]
    group.permissions.add(*views, *changes)
    return group.permissions.count()


@transaction.atomic
def ensure_demo_users(password: str) -> list[str]:
    """Create (or reset the password of) users ``viewer``, ``operator`` and ``admin``,
    each in the group of the same name; returns their names."""
    user_model = get_user_model()
    names = []
    for role in ROLES:
        group, _ = Group.objects.get_or_create(name=role)
        user, _ = user_model.objects.get_or_create(username=role)
        user.set_password(password)
        user.is_staff = role == ADMIN
        user.save()
        user.groups.set([group])
        names.append(role)
    grant_admin_permissions()
    return names
