"""A pending pod the engine would place now: the pages say why it waits and what to do."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import log_in, screenshot

pytestmark = pytest.mark.browser


def test_the_pending_list_leads_to_the_reasons(page, demo):
    log_in(page, "viewer", "/clusters/demo/pending/")
    row = page.locator('#pending tbody tr[data-key="web/frontend-6"]')
    expect(row.locator('[data-field="message"]')).to_contain_text(
        "the engine would schedule it now"
    )
    with page.expect_navigation():
        row.locator("text=why is it still pending?").click()
    why = page.locator("#why-pending")
    expect(why).to_be_visible()
    # the demo's pods were never tried (no condition, no event) and it is a snapshot
    expect(why.locator('[data-reason="no-attempt"]')).to_contain_text("no PodScheduled")
    expect(why.locator('[data-reason="no-attempt"]')).to_contain_text("What to do:")
    expect(why.locator('[data-reason="snapshot"]')).to_contain_text("imported snapshot")
    screenshot(page, "why-pending")
    # a pod the engine cannot place gets no such section
    page.goto("/clusters/demo/pods/ml-training/bad-request-16gpu/")
    expect(page.locator("#engine-message")).to_contain_text("0/20 nodes are available")
    expect(page.locator("#why-pending")).to_have_count(0)
