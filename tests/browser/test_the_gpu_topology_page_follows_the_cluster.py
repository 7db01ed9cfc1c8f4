"""The GPU topology page: cells recolour live as claims are allocated and pods go;
the GPU pages fit a phone; screenshots for the README."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.cluster.kinds import KINDS_BY_KIND, to_row
from dashboard.cluster.services.cluster_state import Changes, apply_changes
from tests.support import gpus

from .conftest import log_in, record_frames, screenshot, wait_for_frame

pytestmark = pytest.mark.browser

WIDE = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


def _write(cluster_id: int, upserts=(), deletes=()) -> None:
    """As the mirror writes: one transaction, broadcast after commit."""
    changes = Changes()
    for obj in upserts:
        spec = KINDS_BY_KIND[obj["kind"]]
        changes.upsert(spec, to_row(spec, cluster_id, obj))
    for kind, key in deletes:
        changes.delete(KINDS_BY_KIND[kind], key)
    apply_changes(cluster_id, changes)


def test_cells_follow_claims_and_pods_without_a_reload(page, demo):
    frames = record_frames(page)
    log_in(page, "viewer", "/clusters/demo/gpus/dra-gpu-1/")
    cells = page.locator("#gpu-node .gpu-cells > li")
    expect(cells).to_have_count(8)
    expect(page.locator('#gpu-node li[data-state="used"]')).to_have_count(6)
    wait_for_frame(page, frames, '"hello"')
    page.evaluate("window.__sameDocument = true")

    # a claim is allocated GPU 6 for a new pod
    claim = gpus.allocated_claim("render-live", "dra-gpu-1", ["gpu-6"], pod="render-live-0")
    claim["metadata"]["namespace"] = "ml-inference"
    holder = gpus.claim_pod("render-live-0", "dra-gpu-1", "render-live", namespace="ml-inference")
    claim["status"]["reservedFor"][0]["uid"] = holder["metadata"]["uid"]
    _write(demo.pk, [claim, holder])
    gpu6 = page.locator('#gpu-node li[data-gpu="gpu-6"]')
    expect(gpu6).to_have_attribute("data-state", "used")
    expect(gpu6.locator("a", has_text="pod ml-inference/render-live-0")).to_be_visible()
    screenshot(page, "gpu-node")

    # the stream's pod goes while its claim still holds six GPUs: flagged, no reload
    _write(demo.pk, deletes=[("Pod", ("ml-inference", "viz-stream-0"))])
    expect(page.locator('#gpu-node tr[data-kind="claim-of-missing-pod"]')).to_be_visible()
    expect(page.locator("#gpu-node .gpu-holder .bad")).to_have_count(6)
    assert page.evaluate("window.__sameDocument === true")

    # the link opens the holder's page
    with page.expect_navigation():
        gpu6.locator("a", has_text="pod ml-inference/render-live-0").click()
    assert page.url.endswith("/clusters/demo/pods/ml-inference/render-live-0/")


def test_the_fleet_links_each_node_to_its_topology(page, demo):
    log_in(page, "viewer", "/clusters/demo/gpus/")
    expect(page.locator("#fleet-map li")).to_have_count(11)
    screenshot(page, "gpu-fleet")
    with page.expect_navigation():
        page.locator('#fleet-map a[title^="dra-gpu-2:"]').click()
    expect(page.locator('#gpu-node li[data-gpu="gpu-6"] .gpu-parts li')).to_have_count(2)


def test_the_overview_lists_the_inconsistencies_after_the_page(page, demo):
    log_in(page, "viewer", "/clusters/demo/")
    rows = page.locator("#gpu-views tr[data-kind]")
    expect(rows.first).to_be_visible()
    assert rows.count() >= 4
    expect(
        page.locator('#gpu-views a[href="/clusters/demo/gpus/dra-gpu-2/"]').first
    ).to_be_visible()


def test_the_gpu_pages_fit_a_phone(phone, demo):
    log_in(phone, "viewer", "/clusters/demo/gpus/dra-gpu-2/")
    for path in (
        "/clusters/demo/gpus/dra-gpu-2/",
        "/clusters/demo/gpus/a100-c-2/",
        "/clusters/demo/gpus/h100-b-1/",
        "/clusters/demo/gpus/",
        "/clusters/demo/",
    ):
        assert phone.goto(path).ok, path
        phone.wait_for_load_state("networkidle")
        overflow = phone.evaluate(WIDE)
        assert overflow <= 0, (
            path,
            overflow,
            phone.evaluate(
                """() => Array.from(document.querySelectorAll('body *'))
                .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
                .slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className)"""
            ),
        )
