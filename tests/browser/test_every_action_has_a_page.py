"""Apply (confirmed, with its diff and dry-run), the history, rollback to no profile, cancel, admin."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns.models import Application, DryRun
from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.profiles import apply_version, create_profile, create_version
from dashboard.roles import ensure_demo_users
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import finished_dry_run, log_in, screenshot

pytestmark = pytest.mark.browser

SPREAD = BIN_PACKING_CONFIG.replace("MostAllocated", "LeastAllocated")


def test_apply_history_and_rollback_down_to_no_profile(page, demo):
    v1 = create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo)
    v2 = create_version(v1.profile, document=SPREAD, message="spread")
    run1 = create_dry_run(demo, profile_version=v1)
    apply_version(demo, v1, dry_run=finished_dry_run(run1))
    apply_version(demo, v2, force=True)

    log_in(page, "admin", "/clusters/demo/applications/")
    expect(page.locator("#active-now")).to_contain_text("binpack v2")
    rows = page.locator("#applications tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("forced, none")
    expect(rows.nth(1)).to_contain_text(f"#{run1.pk}")
    expect(rows.nth(1)).to_contain_text("not written (no apply target)")
    screenshot(page, "apply-history")

    # roll back v2 → v1: the confirmation shows the diff and v1's dry-run
    page.click("#rollback")
    expect(page.locator("#confirm-title")).to_contain_text("Roll back demo")
    expect(page.locator("#confirm-dry-run")).to_contain_text(f"dry-run #{run1.pk}")
    expect(page.locator("#diff .diff-del")).to_contain_text(["type: LeastAllocated"])
    expect(page.locator("#diff .diff-add")).to_contain_text(["type: MostAllocated"])
    screenshot(page, "rollback-confirm")
    assert Application.objects.count() == 2  # nothing happens before the confirmation
    with page.expect_navigation():
        page.click("#confirm")
    expect(page.locator(".message.success")).to_contain_text("now runs binpack v1")
    expect(page.locator("#active-now")).to_contain_text("binpack v1")

    # and once more: the first apply is undone, back to the cluster's own config
    expect(page.locator("#rollback")).to_contain_text("no profile")
    page.click("#rollback")
    expect(page.locator("#confirm-what")).to_contain_text("undoes the first apply")
    with page.expect_navigation():
        page.click("#confirm")
    expect(page.locator("#active-now")).to_contain_text("no profile")
    latest = Application.objects.order_by("-id").first()
    assert latest.version is None and latest.applied_by.username == "admin-browser"
    expect(page.locator("#rollback")).to_have_count(0)


def test_an_operator_cancels_a_queued_dry_run(page, demo):
    # a queued run no worker takes (the suite's worker would finish a real one first)
    run = DryRun.objects.create(
        cluster=demo, snapshot=b"", snapshot_sha256="0" * 64, status=DryRun.Status.QUEUED
    )
    log_in(page, "operator", f"/dry-runs/{run.pk}/")
    with page.expect_navigation():
        page.click("#cancel-run")
    expect(page.locator(".message.success")).to_contain_text(f"Dry-run #{run.pk} cancelled")
    expect(page.locator("h1 .badge")).to_have_text("cancelled")
    assert DryRun.objects.get(pk=run.pk).status == DryRun.Status.CANCELLED


def test_the_admin_role_sees_the_models_in_django_admin(page, demo):
    ensure_demo_users("browser-test-password")
    page.goto("/admin/login/?next=/admin/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "browser-test-password")
    with page.expect_navigation():
        page.click("input[type=submit]")
    expect(page.locator("#content-main")).to_contain_text("Clusters")
    expect(page.locator("#content-main")).to_contain_text("Apply targets")
    expect(page.locator("#content-main")).to_contain_text("Applications")
    page.goto("/admin/dryruns/applytarget/add/")
    expect(page.locator("#applytarget_form")).to_be_visible()
