"""Users for the one-machine demo: one per role, so every flow can be tried."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

__all__ = ["DEMO_ROLES", "ensure_demo_users"]

DEMO_ROLES = ("viewer", "operator", "admin")


@transaction.atomic
def ensure_demo_users(password: str) -> list[str]:
    """Create (or reset the password of) users ``viewer``, ``operator`` and ``admin``,
    each in the group of the same name; returns their names."""
    user_model = get_user_model()
    names = []
    for role in DEMO_ROLES:
        group, _ = Group.objects.get_or_create(name=role)
        user, _ = user_model.objects.get_or_create(username=role)
        user.set_password(password)
        user.is_staff = role == "admin"
        user.save()
        user.groups.set([group])
        names.append(role)
    return names
