"""Dry-run from the editor: progress arrives over the websocket; results; compare; apply."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from dashboard.cluster.services.snapshots import import_objects
from dashboard.dryruns.models import Application, DryRun
from dashboard.dryruns.services.profiles import create_profile
from scheduler_engine.documents import read_objects
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import DEMO, log_in, record_frames, screenshot, wait_for_frame

pytestmark = pytest.mark.browser

# Enough small pods beside the demo's own that the run lasts a couple of
# seconds: several progress messages, and the page is open before it ends.
FILLERS = 300


def _filler(i: int) -> dict:
    requests = {"cpu": "20m", "memory": "16Mi"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"filler-{i}", "namespace": "batch", "uid": f"filler-{i}"},
        "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}]},
        "status": {"phase": "Pending"},
    }


@pytest.fixture
def busy_demo(demo):
    import_objects(demo, read_objects(DEMO) + [_filler(i) for i in range(FILLERS)])
    return demo


def test_an_admin_dry_runs_a_profile_compares_it_and_applies_it(page, busy_demo, worker):
    profile = create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=busy_demo).profile
    frames = record_frames(page)
    log_in(page, "admin", f"/profiles/{profile.pk}/?cluster=demo")
    # no dry-run yet: the guard says so, and only an explicit force would apply
    expect(page.locator("#apply-form .error")).to_contain_text("No successful dry-run")
    expect(page.locator("#force")).to_be_enabled()

    with page.expect_navigation():
        page.click("#start-dry-run")
    panel = page.locator("#run-panel")
    expect(panel).to_be_visible()
    run_id = int(panel.get_attribute("data-run-id"))
    # progress events appended by the socket handler, then the final state
    expect(panel.locator(".run-event").first).to_be_visible(timeout=30_000)
    expect(page.locator("#run-status")).to_have_text("succeeded", timeout=60_000)
    frame = json.loads(wait_for_frame(page, frames, '"dryrun.progress"'))
    assert frame["id"] == run_id
    statuses = [json.loads(f).get("status") for f in frames if "dryrun.progress" in f]
    assert "succeeded" in statuses and len(statuses) >= 2, statuses
    screenshot(page, "profile-dry-run")

    # the results page: metrics, pending pods with explanations, the preemption graph
    page.goto(f"/dry-runs/{run_id}/")
    expect(page.locator('#metrics [data-metric="podsPending"]')).to_contain_text("Pods pending")
    expect(page.locator("#preemption-graph .main-svg").first).to_be_visible()
    expect(page.locator("#preemptions")).to_contain_text("ml-training/gpt-finetune-worker-0")
    page.locator(".pending-result summary").first.click()
    expect(page.locator(".pending-result .upstream-message").first).to_contain_text(
        "nodes are available"
    )
    screenshot(page, "dry-run")

    # compare with the active profile (none yet: upstream defaults), same frozen state
    with page.expect_navigation():
        page.click("#compare-active")
    expect(page.locator('#deltas [data-metric="podsPending"]')).to_contain_text(
        "Pods pending", timeout=60_000
    )
    expect(page.locator("#changes")).to_be_visible()
    screenshot(page, "compare")
    baseline = DryRun.objects.exclude(pk=run_id).get()
    assert baseline.snapshot_sha256 == DryRun.objects.get(pk=run_id).snapshot_sha256

    # apply, justified by the dry-run
    page.goto(f"/profiles/{profile.pk}/?cluster=demo")
    expect(page.locator("#apply-form .ok")).to_contain_text(f"#{run_id}")
    with page.expect_navigation():
        page.click("#apply")
    # the confirmation: what changes (from the cluster's own config) and the dry-run
    expect(page.locator("#confirm-dry-run")).to_contain_text(f"dry-run #{run_id}")
    expect(page.locator("#diff .diff-add").first).to_be_visible()
    assert not Application.objects.exists()
    with page.expect_navigation():
        page.click("#confirm")
    expect(page.locator(".message.success")).to_contain_text(f"justified by dry-run {run_id}")
    app = Application.objects.get()
    assert app.dry_run_id == run_id and not app.forced
    assert not page.js_errors, page.js_errors
