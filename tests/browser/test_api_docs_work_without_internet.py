"""Swagger UI and ReDoc render with every request off this machine blocked."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from .conftest import log_in

pytestmark = pytest.mark.browser


def _offline(page) -> list[str]:
    """Abort every request to another host; returns what was blocked."""
    blocked: list[str] = []

    def route(r):
        host = urlparse(r.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return blocked


def test_swagger_ui_renders_offline(page, demo):
    blocked = _offline(page)
    log_in(page, "viewer", "/api/v1/docs/")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Schedlab API")
    expect(page.locator(".swagger-ui .opblock").first).to_be_visible()
    assert not blocked, blocked


# ReDoc's bundle shows a "by Redocly" badge whose image it loads from its CDN and
# hides when that fails; everything else is served here.
REDOC_BADGE = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@pytest.mark.console_errors_expected
def test_redoc_renders_offline(page, demo):
    blocked = _offline(page)
    log_in(page, "viewer", "/api/v1/redoc/")
    expect(page.locator("h1").first).to_contain_text("Schedlab API")
    expect(page.locator("[data-section-id]").first).to_be_attached()
    assert set(blocked) <= {REDOC_BADGE}, blocked
    assert not page.js_errors, page.js_errors
    others = [e for e in page.console_errors if REDOC_BADGE not in e]
    assert not others, others
