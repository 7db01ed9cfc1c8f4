"""At 390 px no page scrolls sideways; tables read as cards; the header wraps."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.profiles import create_profile, create_version
from dashboard.studies.services.runner import run_study_run
from dashboard.studies.services.studies import create_study
from tests.studies.traces import jsonl_trace
from tests.support.fixtures import BIN_PACKING_CONFIG

from .conftest import SCREENSHOTS, finished_dry_run, log_in

pytestmark = pytest.mark.browser

WIDE = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def _fits(phone, path: str) -> None:
    assert phone.goto(path).ok, path
    phone.wait_for_load_state("networkidle")
    overflow = phone.evaluate(WIDE)
    if overflow > 0:
        culprits = phone.evaluate(
            """() => Array.from(document.querySelectorAll('body *'))
              .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
              .slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)"""
        )
        raise AssertionError(f"{path} is {overflow}px too wide: {culprits}")


def test_every_page_fits_390_px(phone, demo):
    profile = create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile
    create_version(profile, document=BIN_PACKING_CONFIG.replace("MostAllocated", "LeastAllocated"))
    run = create_dry_run(demo)
    finished_dry_run(run)
    study = create_study(
        user=None, traces=[{"jsonl": jsonl_trace()}], policies=["default", "fgd"], seeds=[1]
    )
    for study_run in study.runs.all():
        run_study_run(study_run.pk)
    log_in(phone, "admin", "/")
    pages = [
        "/",
        "/clusters/demo/",
        "/clusters/demo/pending/",
        "/clusters/demo/pods/ml-training/gpt-finetune-worker-0/",
        "/clusters/demo/nodes/",
        "/profiles/?cluster=demo",
        f"/profiles/{profile.pk}/?cluster=demo",
        f"/profiles/{profile.pk}/diff/?a=1&b=2",
        "/dry-runs/?cluster=demo",
        f"/dry-runs/{run.pk}/",
        "/metrics/",
        f"/studies/{study.pk}/",
    ]
    for path in pages:
        _fits(phone, path)
    # and every page the main navigation reaches (pages added later included)
    phone.goto("/clusters/demo/")
    nav = {a.get_attribute("href").split("?")[0] for a in phone.locator("nav a").all()}
    for path in sorted(nav - {p.split("?")[0] for p in pages}):
        _fits(phone, path)


def test_the_pending_list_shows_its_messages_as_cards(phone, demo):
    log_in(phone, "viewer", "/clusters/demo/pending/")
    row = phone.locator('#pending tbody tr[data-key="ml-training/bad-request-16gpu"]')
    message = row.locator('[data-field="message"]')
    expect(message).to_be_visible()
    expect(message).to_have_attribute("data-label", "Scheduler message")
    box = message.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    # the header wraps instead of pushing the page wider
    assert phone.evaluate(WIDE) <= 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone.screenshot(path=str(SCREENSHOTS / "pending-phone.png"))
