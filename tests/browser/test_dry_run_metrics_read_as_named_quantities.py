"""Dry-run and compare pages: human metric names, units, definitions, verdicts for placement only."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.metrics import METRICS
from dashboard.dryruns.services.profiles import create_profile
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import finished_dry_run, log_in, screenshot

pytestmark = pytest.mark.browser


def test_metrics_have_names_units_definitions_and_counts_that_add_up(page, demo):
    run = finished_dry_run(create_dry_run(demo))
    log_in(page, "viewer", f"/dry-runs/{run.pk}/")
    table = page.locator("#metrics")
    expect(table).to_be_visible()
    pending = table.locator('[data-metric="podsPending"]')
    expect(pending.locator(".metric-name")).to_have_text("Pods pending")
    expect(pending.locator(".unit")).to_have_text("(pods)")
    assert (
        pending.locator(".metric-name").get_attribute("title") == METRICS["podsPending"].definition
    )
    stranding = table.locator('[data-metric="gpuStrandingSize"]')
    expect(stranding.locator(".metric-name")).to_have_text("Smallest pending GPU request")
    expect(stranding.locator("td").last).to_have_text("—")  # an input: no verdict
    gpu = table.locator('[data-metric="gpuAllocation"] td').nth(1)
    expect(gpu).to_contain_text("%")
    # no raw camelCase name is shown as a metric's name
    names = table.locator(".metric-name").all_inner_texts()
    assert names and all(" " in n or n[0].isupper() for n in names), names

    # "Pods pending" (victims waiting again included) vs the list of pods left pending
    after = run.metrics["after"]["podsPending"]
    if after != run.pending_count:
        expect(page.locator("#pending-note")).to_contain_text(
            f"also counts the {run.victim_count} pod"
        )
        assert after == run.pending_count + run.victim_count
    # the glossary page lists every metric with its definition
    page.click("text=the metrics page")
    for key, m in METRICS.items():
        expect(page.locator(f"#metric-{key}")).to_contain_text(m.label)


def test_timing_gets_no_verdict_on_the_compare_page(page, demo):
    profile = create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile
    base = finished_dry_run(create_dry_run(demo))
    edited = finished_dry_run(create_dry_run(demo, profile_version=profile.versions.first()))
    log_in(page, "viewer", f"/dry-runs/{edited.pk}/compare/{base.pk}/")
    deltas = page.locator("#deltas")
    expect(deltas).to_be_visible()
    speed = deltas.locator('[data-metric="podsPerSecond"]')
    expect(speed.locator(".metric-name")).to_have_text("Engine speed")
    expect(speed.locator(".unit")).to_have_text("(pods/s)")
    expect(speed.locator("td").last).to_have_text("—")
    for row in deltas.locator("tbody tr").all():
        verdict = row.locator("td").last.inner_text()
        assert verdict in ("better", "worse", "same", "—")
    expect(page.locator('[data-count="same"] .label')).to_have_text("pods placed the same")
    cards = page.locator("#compare-counts .card .value").all_inner_texts()
    assert sum(int(c) for c in cards) == edited.result_count
    screenshot(page, "dry-run-compare")
