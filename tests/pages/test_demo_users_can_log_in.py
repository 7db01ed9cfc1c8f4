from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from dashboard.roles import role_of


@pytest.mark.django_db
@override_settings(DEBUG=True)
@pytest.mark.parametrize(("name", "rank"), [("viewer", 1), ("operator", 2), ("admin", 3)])
def test_each_demo_user_has_its_role_and_can_log_in(client, django_user_model, name, rank):
    call_command("demo_users", "--password", "pw-1")
    call_command("demo_users", "--password", "pw-2")  # idempotent: resets the password
    user = django_user_model.objects.get(username=name)
    assert role_of(user) == rank
    assert client.login(username=name, password="pw-2")


@pytest.mark.django_db
@override_settings(DEBUG=False)
def test_demo_users_refuse_production_settings():
    with pytest.raises(CommandError, match="DEBUG"):
        call_command("demo_users")
