"""The new-profile name's pattern compiles; YAML syntax errors are marked in the gutter."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns.services.profiles import create_profile
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import log_in, set_document

pytestmark = pytest.mark.browser


def test_the_profile_name_pattern_is_a_valid_regex(page, demo):
    log_in(page, "operator", "/profiles/?cluster=demo")
    name = page.locator("#np-name")
    name.fill("gpu-binpack_2")
    assert name.evaluate("el => el.validity.valid")
    name.fill("no spaces")
    assert name.evaluate("el => el.validity.patternMismatch")
    # the console check of the page fixture fails the test on an invalid pattern


def test_a_yaml_syntax_error_is_marked_at_its_line(page, demo):
    profile = create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile
    log_in(page, "operator", f"/profiles/{profile.pk}/")
    expect(page.locator("#validation .valid")).to_be_visible()
    lines = BIN_PACKING_CONFIG.splitlines()
    lines[3] = lines[3] + " ]"  # line 4: a stray bracket
    set_document(page, "\n".join(lines) + "\n")
    problem = page.locator("#problems .problem").first
    expect(problem.locator(".msg")).to_contain_text("not valid YAML (line 4")
    expect(problem.locator("button.line")).to_have_text("line 4")
    expect(page.locator("#gutter .bad")).to_have_text("4")
