"""Log in, then the cluster pages: overview, pending pods, a pod's explanation, nodes."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import log_in, screenshot

pytestmark = pytest.mark.browser


def test_pages_ask_for_a_login_first(page, demo):
    page.goto("/clusters/demo/")
    expect(page.locator("#id_username")).to_be_visible()
    screenshot(page, "login", full=False)


def test_a_viewer_logs_in_and_opens_a_pending_pods_explanation(page, demo):
    log_in(page, "viewer", "/clusters/demo/")
    expect(page.locator(".user .username")).to_have_text("viewer-browser")
    expect(page.locator("h1")).to_contain_text("demo")
    screenshot(page, "overview")

    assert page.goto("/clusters/demo/pending/").ok
    row = page.locator('#pending tbody tr[data-key="web/frontend-6"]')
    expect(row).to_be_visible()
    screenshot(page, "pending")

    with page.expect_navigation():
        row.locator("a").first.click()
    expect(page.locator("#engine-message")).to_contain_text("Successfully assigned")
    # the stacked bar chart of each plugin's weighted score, drawn by Plotly
    expect(page.locator("#score-chart .main-svg").first).to_be_visible()
    expect(page.locator("#score-chart .barlayer .trace").first).to_be_attached()
    screenshot(page, "pod-explanation")

    page.goto("/clusters/demo/pods/ml-training/bad-request-16gpu/")
    expect(page.locator("#engine-message")).to_contain_text("0/20 nodes are available")

    assert page.goto("/clusters/demo/nodes/").ok
    expect(page.locator("h1")).to_be_visible()
    # the GPU figures and heatmap arrive as JSON after the page
    expect(page.locator("#gpu-heatmap .main-svg").first).to_be_visible()
    expect(page.locator("#gpu-sizes tbody tr")).to_have_count(4)
    expect(page.locator('[data-topo="gpuNodes"]')).to_have_text("9")
    page.wait_for_load_state("networkidle")
    screenshot(page, "nodes")
    assert not page.js_errors, page.js_errors
