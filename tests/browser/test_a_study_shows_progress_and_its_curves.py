"""A study on the real worker: its page follows the runs over the websocket, then draws the curves."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from dashboard.studies.services.studies import NODES_TO_SCORE, create_study
from tests.studies.traces import jsonl_trace

from .conftest import log_in, record_frames, screenshot, wait_for_frame

pytestmark = pytest.mark.browser


def test_a_nodes_to_score_study_reports_progress_then_its_tradeoff(page, transactional_db, worker):
    frames = record_frames(page)
    log_in(page, "viewer", "/studies/")
    study = create_study(
        user=None,
        name="tradeoff",
        preset=NODES_TO_SCORE,
        traces=[{"name": "made", "jsonl": jsonl_trace(nodes=50, pods=800)}],
        seeds=[1],
    )
    page.goto(f"/studies/{study.pk}/")
    frame = json.loads(wait_for_frame(page, frames, '"study.progress"', timeout=60))
    assert frame["id"] == study.pk and frame["runsTotal"] == 7
    expect(page.locator("#study-status")).to_have_text("succeeded", timeout=90_000)
    expect(page.locator("#study-runs-done")).to_have_text("7")
    expect(page.locator("#study-curves .main-svg").first).to_be_visible()
    expect(page.locator("#study-tradeoff .main-svg").first).to_be_visible()
    expect(page.locator("#study-groups tbody tr")).to_have_count(7)
    expect(page.locator("#export-csv")).to_have_attribute(
        "href", f"/api/v1/studies/{study.pk}/export/?type=csv"
    )
    screenshot(page, "study")
    page.goto("/studies/")
    expect(page.locator("#studies tbody tr").first).to_contain_text("tradeoff")
