"""The main flow with the keyboard alone: log in, the nav, pending pods, an explanation."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.cluster.kinds import KINDS_BY_KIND, to_row
from dashboard.cluster.models import Node
from dashboard.cluster.services.cluster_state import Changes, apply_changes

from .conftest import PASSWORD, make_user

pytestmark = pytest.mark.browser

# What has the focus, and does it show? (:focus-visible gives an outline or a ring)
FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const s = getComputedStyle(el);
  const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0;
  return {
    tag: el.tagName.toLowerCase(),
    text: (el.innerText || el.value || "").trim().slice(0, 80),
    href: el.getAttribute("href") || "",
    inRow: !!el.closest("tr[data-key]"),
    group: !!el.closest(".reason-group"),
    visible: el.matches(":focus-visible") && (outline || s.boxShadow !== "none"),
    shown: el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().bottom > 0,
  };
}"""


def tab_until(page, wanted, limit: int = 80, key: str = "Tab") -> dict:
    """Press Tab until wanted(focus) holds; every stop on the way must show its focus."""
    seen = []
    for _ in range(limit):
        page.keyboard.press(key)
        focus = page.evaluate(FOCUS)
        assert focus is not None, f"focus fell back to the page after {seen[-3:]}"
        assert focus["visible"], f"focus not visible on {focus}"
        assert focus["shown"], f"focus on something hidden: {focus}"
        seen.append(focus)
        if wanted(focus):
            return focus
    raise AssertionError(f"not reached with {key} in {limit} presses; stops: {seen}")


def test_a_viewer_logs_in_and_opens_an_explanation_with_the_keyboard(page, demo):
    make_user("viewer")
    page.goto("/login/?next=/clusters/demo/")
    # the username field has the focus (autofocus lands after load: wait for it,
    # or the first keystroke goes to the page); type, Tab, type, Enter
    expect(page.get_by_label("Username")).to_be_focused()
    page.keyboard.type("viewer-browser")
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator(".user .username")).to_have_text("viewer-browser")

    # the first Tab stop is the skip link, shown when focused
    first = tab_until(page, lambda f: True, limit=1)
    assert first["href"] == "#main" and "Skip" in first["text"]

    # through the nav to "Pending pods"
    tab_until(page, lambda f: f["text"] == "Pending pods")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("#pending")).to_be_visible()

    # skip the header and the filters: skip link, Enter, then Tab into the rows
    tab_until(page, lambda f: f["href"] == "#main", limit=1)
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    tab_until(page, lambda f: f["inRow"] and f["text"] == "ml-training/bad-request-16gpu")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("#engine-message")).to_contain_text("0/20 nodes are available")

    # a group of rejected nodes opens with Enter and closes with Space on its <summary>
    group = page.locator("details.reason-group").first
    expect(group).not_to_have_attribute("open", "")
    tab_until(page, lambda f: f["tag"] == "summary" and f["group"])
    page.keyboard.press("Enter")
    expect(group).to_have_attribute("open", "")
    expect(group.locator("tbody tr").first).to_be_visible()

    # a node changes: the explanation is asked again and swapped in; what the
    # keyboard user opened and focused stays open and focused
    page.evaluate("document.querySelector('#explanation section').dataset.stale = '1'")
    node = Node.objects.filter(cluster=demo).first()
    obj = {**node.obj, "metadata": {**node.obj["metadata"], "resourceVersion": "999999"}}
    obj["metadata"]["labels"] = {**obj["metadata"].get("labels", {}), "touched": "yes"}
    changes = Changes()
    changes.upsert(KINDS_BY_KIND["Node"], to_row(KINDS_BY_KIND["Node"], demo.pk, obj))
    apply_changes(demo.pk, changes)
    expect(page.locator("#explanation section[data-stale]")).to_have_count(0)
    expect(page.locator("#engine-message")).to_contain_text("0/20 nodes are available")
    group = page.locator("details.reason-group").first
    expect(group).to_have_attribute("open", "")
    focus = page.evaluate(FOCUS)
    assert focus and focus["tag"] == "summary" and focus["group"] and focus["visible"], focus

    page.keyboard.press("Space")
    expect(group).not_to_have_attribute("open", "")

    # and back to the list with the keyboard (Shift+Tab up to the "← Pending pods" link)
    tab_until(page, lambda f: f["text"] == "← Pending pods", key="Shift+Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    expect(page.locator("#pending")).to_be_visible()
    assert not page.js_errors, page.js_errors
