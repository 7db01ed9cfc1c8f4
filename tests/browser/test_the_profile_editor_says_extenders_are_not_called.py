"""The profile editor says, as you type, that a configuration's extenders are not called."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns.services.profiles import create_profile
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import log_in, set_document

pytestmark = pytest.mark.browser

EXTENDERS = (
    "extenders:\n- urlPrefix: http://hami-scheduler:443\n  filterVerb: filter\n"
    "  managedResources:\n  - name: nvidia.com/gpu\n    ignoredByScheduler: true\n"
)


def test_typing_an_extender_shows_the_warning_and_removing_it_clears_it(page, demo):
    profile = create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile
    log_in(page, "operator", f"/profiles/{profile.pk}/")
    expect(page.locator("#validation .valid")).to_be_visible()
    expect(page.locator("#warnings .warning")).to_have_count(0)

    set_document(page, BIN_PACKING_CONFIG + EXTENDERS)
    expect(page.locator("#warnings .warning")).to_have_text(
        "extender http://hami-scheduler:443 (filter; managedResources nvidia.com/gpu) is not "
        "called: Schedlab's answer shows what the profile's plugins decide without it"
    )
    expect(page.locator("#validation .valid")).to_be_visible()

    set_document(page, BIN_PACKING_CONFIG)
    expect(page.locator("#warnings .warning")).to_have_count(0)
    assert not page.js_errors, page.js_errors
