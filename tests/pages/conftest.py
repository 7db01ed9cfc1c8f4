"""Fixtures of the page tests: logged-in clients per role, the demo cluster, the kube server."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from dashboard.cluster.models import Cluster
from dashboard.cluster.services.snapshots import import_snapshot
from tests.support.fixtures import DEMO
from tests.support.mirror import kube, kubeconfig, live_cluster, start_mirror  # noqa: F401

ROLES = ("viewer", "operator", "admin")


def login_as(role: str | None) -> Client:
    client = Client()
    user, _ = User.objects.get_or_create(username=f"page-{role or 'norole'}")
    if role is not None:
        group, _ = Group.objects.get_or_create(name=role)
        user.groups.add(group)
    client.force_login(user)
    return client


@pytest.fixture
def demo(db) -> Cluster:
    import_snapshot(DEMO, "demo")
    return Cluster.objects.get(name="demo")


@pytest.fixture(params=ROLES)
def role_client(request, db) -> Client:
    return login_as(request.param)


@pytest.fixture
def viewer(db) -> Client:
    return login_as("viewer")


@pytest.fixture
def operator(db) -> Client:
    return login_as("operator")
