"""A dropped live connection comes back by itself and catches up, without a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.cluster.kinds import KINDS_BY_KIND, to_row
from dashboard.cluster.services.cluster_state import Changes, apply_changes

from .conftest import log_in, record_frames, wait_for_frame
from .test_mirror_changes_reach_an_open_page import _pending_pod

pytestmark = pytest.mark.browser

# While window.__liveDown is set, new sockets go to a closed port: the server is away.
SERVER_AWAY = """() => {
  const Real = window.WebSocket;
  window.__liveDown = false;
  window.WebSocket = class extends Real {
    constructor(url, protocols) { super(window.__liveDown ? "ws://127.0.0.1:9/" : url, protocols); }
  };
}"""


def _write_pending_pod(cluster, name: str) -> None:
    """As the mirror writes: one transaction, broadcast after commit."""
    spec = KINDS_BY_KIND["Pod"]
    changes = Changes()
    changes.upsert(spec, to_row(spec, cluster.pk, _pending_pod(name)))
    apply_changes(cluster.pk, changes)


def test_the_pending_list_reconnects_and_shows_what_changed_meanwhile(page, demo):
    frames = record_frames(page)
    log_in(page, "viewer", "/clusters/demo/pending/")
    expect(page.locator("#pending")).to_be_visible()
    wait_for_frame(page, frames, '"hello"')
    page.evaluate("window.__sameDocument = true")
    page.evaluate(SERVER_AWAY)
    status = page.locator("#live-status")
    expect(status).to_be_hidden()

    # the connection drops and the server is away: the page says so and retries
    page.evaluate("window.__liveDown = true; Schedlab.live.connections[0].socket.close()")
    expect(status).to_have_text("Live updates paused — reconnecting…")
    assert page.evaluate("Schedlab.live.connections[0].socket.readyState") != 1

    # the mirror writes a new pending pod meanwhile: nobody can tell the page
    hellos = sum('"hello"' in f for f in frames)
    _write_pending_pod(demo, "arrived-offline")
    missed = page.locator('#pending tbody tr[data-key="default/arrived-offline"]')
    expect(missed).to_have_count(0)

    # the server is back: the next retry connects and the list catches up
    page.evaluate("window.__liveDown = false")
    expect(missed).to_be_visible(timeout=10_000)
    expect(status).to_be_hidden()
    assert sum('"hello"' in f for f in frames) == hellos + 1  # one new, subscribed socket
    assert page.evaluate("Schedlab.live.connections[0].socket.readyState") == 1

    # and live deltas flow again on the new socket
    _write_pending_pod(demo, "arrived-after")
    expect(page.locator('#pending tbody tr[data-key="default/arrived-after"]')).to_be_visible()

    # all without a reload
    assert page.evaluate("window.__sameDocument === true")
    assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    assert not page.js_errors, page.js_errors
