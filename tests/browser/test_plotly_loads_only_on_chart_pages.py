"""Plotly (3.5 MB before compression) is fetched by the pages that draw charts, and no others."""

from __future__ import annotations

import pytest

from .conftest import log_in

pytestmark = pytest.mark.browser

CHARTS = ["/clusters/demo/", "/clusters/demo/nodes/"]
NO_CHARTS = ["/", "/clusters/demo/pending/", "/profiles/", "/dry-runs/", "/metrics/"]


def test_plotly_loads_only_where_a_chart_is_drawn(page, demo):
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "plotly" in r.url else None)
    log_in(page, "viewer", "/")
    for path in NO_CHARTS:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        assert not fetched, (path, fetched)
    for path in CHARTS:
        page.goto(path)
        page.wait_for_load_state("networkidle")
        assert fetched, path
        fetched.clear()
