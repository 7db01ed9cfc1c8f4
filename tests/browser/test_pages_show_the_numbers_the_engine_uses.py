"""Priorities, preemption and GPU figures on the pages are the engine's own numbers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from scheduler_engine.cluster import load_cluster

from .conftest import DEMO, log_in

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def engine_demo() -> dict:
    """The engine's CLI on the demo snapshot: what every page number is checked against."""
    out = subprocess.run(
        [sys.executable, "-m", "scheduler_engine", "simulate", "--snapshot", str(DEMO)],
        capture_output=True,
        text=True,
        check=True,
    )
    results = {r["pod"]: r for r in json.loads(out.stdout)["results"]}
    priorities = {p.key: p.priority for p in load_cluster(DEMO).pods}
    return {"results": results, "priorities": priorities}


def test_the_pending_list_shows_each_pods_resolved_priority(page, demo, engine_demo):
    log_in(page, "viewer", "/clusters/demo/pending/")
    rows = page.locator("#pending tbody tr[data-key]")
    expect(rows.first).to_be_visible()
    shown = {
        r.get_attribute("data-key"): r.locator('[data-field="priority"]').inner_text()
        for r in rows.all()
    }
    assert shown, "no pending rows"
    for key, text in shown.items():
        assert text == str(engine_demo["priorities"][key]), (key, text)
    # the demo's classes carry values, and the column shows them
    assert shown["ml-training/gpt-finetune-worker-0"] == "100000"

    # the priority filter offers the resolved values and filters on them
    page.select_option("#f-priority", "100000")
    with page.expect_navigation():
        page.click("form.filters button[type=submit]")
    keys = [r.get_attribute("data-key") for r in rows.all()]
    want = sorted(k for k, v in shown.items() if v == "100000")
    assert sorted(keys) == want


def test_a_scheduled_preemptor_says_where_it_went_and_whom_it_evicted(page, demo, engine_demo):
    result = engine_demo["results"]["ml-training/gpt-finetune-worker-0"]
    assert result["status"] == "Scheduled" and result["victims"]
    log_in(page, "viewer", "/clusters/demo/pods/ml-training/gpt-finetune-worker-0/")
    prio = engine_demo["priorities"]
    expect(page.locator("#pod-priority")).to_have_text(
        str(prio["ml-training/gpt-finetune-worker-0"])
    )
    summary = page.locator("#preemption-summary")
    expect(summary).to_contain_text(f"placed on {result['node']}")
    expect(summary).not_to_contain_text("None")
    victims = page.locator("#victims tbody tr")
    expect(victims).to_have_count(len(result["victims"]))
    for i, victim in enumerate(result["victims"]):
        row = victims.nth(i)
        expect(row.locator("td").first).to_have_text(victim)
        expect(row.locator("td").nth(2)).to_contain_text(str(prio[victim]))
    expect(page.locator("#explanation")).not_to_contain_text("None")


def test_the_gpu_heatmap_has_axes_a_legend_and_more_free_reads_darker(page, demo):
    log_in(page, "viewer", "/clusters/demo/nodes/")
    heat = page.locator("#gpu-heatmap")
    expect(heat.locator(".main-svg").first).to_be_visible()
    expect(heat.locator(".xtitle")).to_contain_text("most free GPUs first")
    expect(heat.locator(".ytitle")).to_contain_text("node pool / zone")
    expect(heat.locator(".colorbar .cbtitle")).to_contain_text("free GPUs")
    expect(page.locator("#gpu-heatmap-legend")).to_contain_text("darker green means more free")
    # the colour scale: luminance falls as the value rises (more free = more ink)
    scale = page.evaluate("document.getElementById('gpu-heatmap').data[0].colorscale")

    def luminance(hex_colour: str) -> float:
        r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    lums = [luminance(c) for _, c in scale]
    assert lums == sorted(lums, reverse=True) and lums[0] > lums[-1]
