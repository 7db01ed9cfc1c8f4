"""The profile editor starts a dry-run with lagging schedulers; its page lists the refusals."""

from __future__ import annotations

import pytest

from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.profiles import create_profile
from dashboard.dryruns.services.runner import run_dry_run
from tests.support.orphan_cluster import TWO_SCHEDULERS, make_collision_cluster

from .conftest import login_as


@pytest.fixture
def two(db):
    cluster = make_collision_cluster()
    return create_profile(name="two", document=TWO_SCHEDULERS, cluster=cluster).profile


def test_a_lagging_dry_run_lists_what_the_kubelet_refuses(two):
    client = login_as("operator")
    editor = client.get(f"/profiles/{two.pk}/?cluster=collide").content.decode()
    assert 'name="scheduler_lag"' in editor
    r = client.post(
        f"/profiles/{two.pk}/versions/1/dry-run/", {"cluster": "collide", "scheduler_lag": "3"}
    )
    assert r.status_code == 302 and "run=" in r["Location"]
    run = DryRun.objects.get()
    assert run.scheduler_lag == 3
    run_dry_run(run.pk)  # in-process: this test is about the page
    page = client.get(f"/dry-runs/{run.pk}/").content.decode()
    section = page.split('id="collisions"')[1].split("</section>")[0]
    assert "1 placement the kubelet would refuse: 1 OutOfnvidia.com/gpu" in section
    assert 'data-pod="default/infer"' in section and "batch-scheduler" in section
    assert "requested: 6, used: 6, capacity: 8" in section
    assert "<code>default/train</code>" in section  # the pod its scheduler did not know of


def test_a_lag_that_is_not_a_number_starts_nothing(two):
    client = login_as("operator")
    r = client.post(
        f"/profiles/{two.pk}/versions/1/dry-run/",
        {"cluster": "collide", "scheduler_lag": "soon"},
        follow=True,
    )
    assert "scheduler_lag: must be a whole number" in r.content.decode()
    assert not DryRun.objects.exists()
