"""The gang page: reached from the pending list, reads as a job's diagnosis, fits a phone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.support.gang_cluster import GATES, make_gang_cluster

from .conftest import log_in, serve

pytestmark = pytest.mark.browser

WIDE = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.fixture(scope="module")
def live_url(django_db_setup, django_db_blocker) -> Iterator[str]:
    """A server of its own: native gangs are groups only with the workload gates on."""
    yield from serve(SCHEDLAB_FEATURE_GATES=GATES)


@pytest.fixture
def gangs(transactional_db):
    return make_gang_cluster()


def test_from_the_pending_list_to_a_blocked_gang(page, gangs):
    log_in(page, "viewer", "/clusters/gangs/pending/")
    row = page.locator('#gang-list tr[data-gang="train/big"]')
    expect(row).to_contain_text("Unschedulable")
    with page.expect_navigation():
        row.get_by_role("link", name="train/big").click()
    summary = page.locator("#gang-summary")
    expect(summary).to_contain_text("of 4 fit")
    expect(summary).to_contain_text("Insufficient nvidia.com/gpu")
    expect(page.locator('[data-gang="minMember"]')).to_have_text("4")
    expect(page.locator('[data-gang="status"]')).to_have_text("Unschedulable")
    expect(page.locator('[data-gang="scheduled"]')).to_have_text("0")
    expect(page.locator("#gang-reasons")).to_contain_text("Insufficient nvidia.com/gpu")


def test_the_gang_page_fits_a_phone(phone, gangs):
    log_in(phone, "viewer", "/clusters/gangs/gangs/train/big/")
    expect(phone.locator("#gang-summary")).to_be_visible()
    wide = phone.evaluate(
        """[...document.querySelectorAll('body *')].filter(e => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 8).join(' ')"""
    )
    assert phone.evaluate(WIDE) <= 0, wide
    phone.goto("/clusters/gangs/gangs/")
    expect(phone.locator("#gang-list")).to_be_visible()
    assert phone.evaluate(WIDE) <= 0
