"""A change the mirror writes shows up on an open page without a reload."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.cluster.kinds import KINDS_BY_KIND, to_row
from dashboard.cluster.services.cluster_state import Changes, apply_changes

from .conftest import log_in, record_frames, wait_for_frame

pytestmark = pytest.mark.browser


def _pending_pod(name: str) -> dict:
    requests = {"cpu": "1", "nvidia.com/gpu": "2"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {
            "schedulerName": "default-scheduler",
            "containers": [{"name": "c", "image": "x", "resources": {"requests": requests}}],
        },
        "status": {"phase": "Pending"},
    }


def test_a_new_pending_pod_appears_on_the_open_pending_list(page, demo):
    frames = record_frames(page)
    log_in(page, "viewer", "/clusters/demo/pending/")
    expect(page.locator("#pending")).to_be_visible()
    wait_for_frame(page, frames, '"hello"')  # the page's socket is subscribed
    page.evaluate("window.__sameDocument = true")

    # written as the mirror writes: one transaction, broadcast after commit
    spec = KINDS_BY_KIND["Pod"]
    changes = Changes()
    changes.upsert(spec, to_row(spec, demo.pk, _pending_pod("arrived-live")))
    apply_changes(demo.pk, changes)

    row = page.locator('#pending tbody tr[data-key="default/arrived-live"]')
    expect(row).to_be_visible()
    wait_for_frame(page, frames, "arrived-live")
    assert page.evaluate("window.__sameDocument === true")  # no reload happened
    assert not page.js_errors, page.js_errors
