"""The dry-run page draws the preemption cascade as a layered Plotly graph, one column a depth."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.dryruns import create_dry_run
from tests.engine.test_cascade_on_the_demo import demo_with_owners, workload

from .conftest import SCREENSHOTS, finished_dry_run, log_in

pytestmark = pytest.mark.browser


def test_the_cascade_graph_renders_with_a_column_per_depth(page, demo):
    run = finished_dry_run(
        create_dry_run(
            demo,
            source=DryRun.Source.SNAPSHOT,
            snapshot=demo_with_owners(),
            workload=workload(),
            cascade_depth=5,
        )
    )
    assert run.summary["cascade"]["depth"] == 3
    plotly: list[str] = []
    page.on("request", lambda r: plotly.append(r.url) if "plotly" in r.url else None)
    log_in(page, "viewer", f"/dry-runs/{run.pk}/")
    graph = page.locator("#cascade-graph")
    expect(graph).to_have_attribute("data-rendered", "1")
    expect(graph.locator(".main-svg").first).to_be_visible()
    assert plotly, "the page draws a chart: Plotly must load"
    # a column title per depth, the pods named, the legend says what became of them
    for title in ("preemptors", "depth 1", "depth 2", "depth 3"):
        expect(graph.locator(".annotation-text", has_text=title)).to_have_count(1)
    expect(graph).to_contain_text("kube-system/gpu-validator")
    expect(graph).to_contain_text("ml-training/notebook-alice")
    expect(graph.locator(".legendtext", has_text="recreated and placed again")).to_be_visible()
    expect(graph.locator(".legendtext", has_text="not recreated")).to_be_visible()
    # the same, readable without the chart: a row per depth
    rows = page.locator("#cascade-levels tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(1)).to_contain_text("training-low: 1")
    expect(page.locator("#cascade")).to_contain_text("the chain ends there")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator("#cascade").screenshot(path=str(SCREENSHOTS / "dry-run-cascade.png"))


def test_a_run_without_cascade_has_no_cascade_section(page, demo):
    run = finished_dry_run(create_dry_run(demo))
    log_in(page, "viewer", f"/dry-runs/{run.pk}/")
    expect(page.locator("#metrics")).to_be_visible()
    expect(page.locator("#cascade")).to_have_count(0)
