"""The profile editor: errors as you type (field and line), the knobs form rewrites the YAML."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns.services.profiles import create_profile
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import document_text, log_in, screenshot, set_document

pytestmark = pytest.mark.browser


def test_an_operator_sees_a_mistake_with_its_field_and_line(page, demo):
    profile = create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile
    log_in(page, "operator", f"/profiles/{profile.pk}/")
    expect(page.locator("#validation .valid")).to_be_visible()

    # line 3: a percentage above 100
    text = document_text(page).replace(
        "percentageOfNodesToScore: 50", "percentageOfNodesToScore: 150"
    )
    set_document(page, text)
    problem = page.locator("#problems .problem").first
    expect(problem.locator(".field")).to_have_text("document.percentageOfNodesToScore")
    expect(problem.locator(".msg")).to_contain_text("150")
    expect(problem.locator("button.line")).to_have_text("line 3")
    expect(page.locator("#gutter .bad")).to_have_text("3")
    expect(page.locator("#dirty")).to_be_visible()
    screenshot(page, "profile-editor-error", full=False)

    # a bad plugin name deeper down: the path and the line of the entry
    set_document(
        page,
        BIN_PACKING_CONFIG + "  plugins:\n    score:\n      enabled:\n      - name: NoSuchPlugin\n",
    )
    problem = page.locator("#problems .problem").first
    expect(problem.locator(".field")).to_contain_text("profiles[0].plugins.score.enabled[0]")
    expect(problem.locator("button.line")).to_have_text("line 18")

    # fixing it clears the message; the form follows the YAML
    set_document(page, BIN_PACKING_CONFIG)
    expect(page.locator("#validation .valid")).to_be_visible()
    expect(page.locator("#k-0-strategy")).to_have_value("MostAllocated")

    # a knob rewrites the YAML (through the server), which stays valid
    page.select_option("#k-0-strategy", "LeastAllocated")
    page.wait_for_function(
        "document.getElementById('document').value.includes('type: LeastAllocated')"
    )
    page.uncheck("#k-0-score-ImageLocality")
    page.wait_for_function(
        "document.getElementById('document').value.includes('- name: ImageLocality')"
    )
    expect(page.locator("#k-0-score-ImageLocality")).not_to_be_checked()
    expect(page.locator("#validation .valid")).to_be_visible()

    page.fill("#message", "spread again, no image locality")
    with page.expect_navigation():
        page.click("#save")
    expect(page.locator("h1")).to_contain_text("v2")
    assert profile.versions.get(number=2).message == "spread again, no image locality"
    screenshot(page, "profile-editor")
    assert not page.js_errors, page.js_errors
