"""The overview lists pending pods nobody will schedule; an operator declares what serves them."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support.orphan_cluster import EXPECTED, make_orphan_cluster

from .conftest import log_in, screenshot

pytestmark = pytest.mark.browser


@pytest.fixture
def orphans(transactional_db):
    return make_orphan_cluster()


def test_each_orphan_shows_with_its_reason_and_a_declaration_clears_it(page, orphans):
    log_in(page, "operator", "/clusters/orphans/")
    table = page.locator("#unschedulable-table")
    for pod, (reason, value) in EXPECTED.items():
        row = table.locator("tbody tr", has=page.get_by_role("link", name=pod, exact=True))
        expect(row).to_contain_text(reason)
        expect(row).to_contain_text(value)
    expect(table.locator("tbody tr")).to_have_count(len(EXPECTED))
    expect(table).not_to_contain_text("ml/queued")  # Kueue's gate is known by default
    # declare Volcano: its pod is served, the others stay
    page.fill("#declared-schedulers", "volcano")
    with page.expect_navigation():
        page.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("Declarations saved.")
    expect(table.locator('tbody tr[data-reason="UnknownScheduler"]')).to_have_count(0)
    expect(table.locator("tbody tr")).to_have_count(len(EXPECTED) - 1)
    expect(page.locator("#unschedulable")).to_contain_text("volcano (declared)")
    page.locator("#unschedulable").scroll_into_view_if_needed()
    screenshot(page, "unschedulable")
    # a name the API server would refuse is not saved, and the field is named
    page.fill("#declared-schedulers", "Volcano!")
    with page.expect_navigation():
        page.get_by_role("button", name="Save").click()
    expect(page.locator(".messages")).to_contain_text("declaredSchedulers[0]")
    expect(page.locator("#declared-schedulers")).to_have_value("volcano")
    # each pod links to its explanation page
    with page.expect_navigation():
        table.get_by_role("link", name="ml/held").click()
    expect(page).to_have_url(f"{page.url.split('/clusters/')[0]}/clusters/orphans/pods/ml/held/")


def test_a_viewer_sees_the_declarations_but_no_form(page, orphans):
    log_in(page, "viewer", "/clusters/orphans/")
    expect(page.locator("#unschedulable-table tbody tr")).to_have_count(len(EXPECTED))
    expect(page.locator("#declared-schedulers")).to_have_count(0)
    expect(page.locator("#unschedulable-declarations")).to_contain_text("kueue.x-k8s.io/admission")
