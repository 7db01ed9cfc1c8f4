"""The profile editor is CodeMirror 6: YAML highlighting, inline markers, completion, merge view."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns.services.profiles import create_profile, create_version
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import document_text, log_in, screenshot, set_document

pytestmark = pytest.mark.browser


@pytest.fixture
def profile(demo):
    return create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile


def _line(page, n: int):
    return page.locator("#cm-document .cm-line").nth(n - 1)


def test_typing_marks_the_mistake_at_its_line_and_completes_names(page, profile):
    log_in(page, "operator", f"/profiles/{profile.pk}/?cluster=demo")
    editor = page.locator("#cm-document")
    expect(editor).to_be_visible()
    expect(page.locator("#document")).to_be_hidden()  # kept in the form, in sync
    # YAML highlighting: keys and values are styled spans
    expect(_line(page, 1).locator("span").first).to_be_visible()

    # type a mistake at the end of line 3 (percentageOfNodesToScore: 50 → 500)
    _line(page, 3).click()
    page.keyboard.press("End")
    page.keyboard.type("0")
    expect(page.locator("#problems .problem .field").first).to_have_text(
        "document.percentageOfNodesToScore"
    )
    marker = page.locator("#cm-document .cm-gutter-lint .cm-lint-marker-error")
    expect(marker).to_have_count(1)
    gutter_line = page.evaluate(
        """() => {
          const m = document.querySelector('#cm-document .cm-lint-marker-error');
          const el = m.closest('.cm-gutterElement');
          const line = document.querySelectorAll('#cm-document .cm-line')[2];
          return Math.abs(el.getBoundingClientRect().top - line.getBoundingClientRect().top) < 4;
        }"""
    )
    assert gutter_line, "the marker is not on line 3"
    expect(page.locator("#cm-document .cm-lintRange-error")).to_be_visible()
    assert "percentageOfNodesToScore: 500" in document_text(page)
    screenshot(page, "profile-editor-codemirror", full=False)  # (takes the focus away)
    _line(page, 3).click()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    expect(page.locator("#validation .valid")).to_be_visible()
    expect(marker).to_have_count(0)

    # completion: a plugin name under plugins.score.enabled (typed on a new last line)
    set_document(page, BIN_PACKING_CONFIG + "  plugins:\n    score:\n      enabled:\n")
    page.locator("#cm-document .cm-content").focus()
    page.keyboard.press("Control+End")
    page.keyboard.type("      - name: NodeResourcesBal")
    page.keyboard.press("Control+Space")
    option = page.locator(".cm-tooltip-autocomplete li").first
    expect(option).to_contain_text("NodeResourcesBalancedAllocation")
    # CodeMirror ignores Enter for 75 ms after a completion list opens (interactionDelay)
    page.wait_for_timeout(150)
    page.keyboard.press("Enter")
    expect(page.locator("#cm-document")).to_contain_text("- name: NodeResourcesBalancedAllocation")
    expect(page.locator("#validation .valid")).to_be_visible()
    assert document_text(page).rstrip().endswith("- name: NodeResourcesBalancedAllocation")


def test_completion_offers_a_plugins_args(page, profile):
    log_in(page, "operator", f"/profiles/{profile.pk}/")
    expect(page.locator("#cm-document")).to_be_visible()
    set_document(
        page,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n"
        "  - name: NodeResourcesFit\n    args:\n      ",
    )
    page.locator("#cm-document .cm-content").focus()
    page.keyboard.press("Control+End")
    page.keyboard.type("scor")
    page.keyboard.press("Control+Space")
    expect(page.locator(".cm-tooltip-autocomplete")).to_contain_text("scoringStrategy")


def test_the_editor_lets_the_keyboard_go_on(page, profile):
    log_in(page, "operator", f"/profiles/{profile.pk}/?cluster=demo")
    content = page.locator("#cm-document .cm-content")
    content.focus()
    page.keyboard.press("Tab")  # Tab is not trapped: focus moves on to the next control
    assert not page.evaluate("document.activeElement.closest('#cm-document')")


def test_the_version_diff_is_side_by_side(page, profile):
    create_version(profile, document=BIN_PACKING_CONFIG.replace("MostAllocated", "LeastAllocated"))
    log_in(page, "viewer", f"/profiles/{profile.pk}/diff/?a=1&b=2")
    merge = page.locator("#merge .cm-mergeView")
    expect(merge).to_be_visible()
    expect(merge.locator(".cm-merge-a .cm-changedLine")).to_contain_text("MostAllocated")
    expect(merge.locator(".cm-merge-b .cm-changedLine")).to_contain_text("LeastAllocated")
    expect(page.locator("pre#diff")).to_be_hidden()
    screenshot(page, "profile-diff")
