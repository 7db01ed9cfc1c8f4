"""A run's status changes on every page that shows it, without a reload."""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from dashboard.cluster.services import broadcast
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.profiles import create_profile
from dashboard.dryruns.services.runner import dry_run_group
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import log_in

pytestmark = pytest.mark.browser


def _running(demo, version) -> DryRun:
    return DryRun.objects.create(
        cluster=demo,
        profile_version=version,
        snapshot=b"",
        snapshot_sha256="0" * 64,
        status=DryRun.Status.RUNNING,
        pods_total=10,
    )


def _finish(run: DryRun) -> None:
    """What the worker does at the end of a run: save, then broadcast."""
    DryRun.objects.filter(pk=run.pk).update(
        status=DryRun.Status.SUCCEEDED, progress=100.0, finished_at=timezone.now()
    )
    broadcast.publish(
        [dry_run_group(run.pk)],
        {"type": "dryrun.progress", "id": run.pk, "status": "succeeded", "progress": 100},
    )


@pytest.mark.parametrize("where", ["list", "editor"])
def test_a_finished_run_stops_saying_running(page, demo, where):
    profile = create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile
    run = _running(demo, profile.versions.first())
    url = "/dry-runs/?cluster=demo" if where == "list" else f"/profiles/{profile.pk}/?cluster=demo"
    log_in(page, "operator", url)
    badge = page.locator(f'[data-run-status="{run.pk}"]')
    expect(badge).to_have_text("running")
    expect(badge).to_have_attribute("data-connected", "1")
    _finish(run)
    expect(badge).to_have_text("succeeded")
    expect(badge).to_have_class("badge status-succeeded")
