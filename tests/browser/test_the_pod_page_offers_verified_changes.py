"""A GPU pod no node tolerates: the page names the taint and the toleration, and a verified
change starts a dry-run in which the pod is scheduled."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun
from tests.support.fixtures import wait_for

from .conftest import log_in, screenshot

pytestmark = pytest.mark.browser

POD = "/clusters/demo/pods/ml-inference/no-toleration-gpu/"


def test_an_operator_dry_runs_the_pod_with_the_toleration_it_lacks(page, demo, worker):
    log_in(page, "operator", POD)
    nearest = page.locator("#nearest")
    expect(nearest).to_be_visible(timeout=30_000)
    first = nearest.locator("tbody tr").first
    expect(first).to_contain_text("TaintToleration: node(s) had untolerated taint(s)")
    expect(first.locator(".taint")).to_contain_text("nvidia.com/gpu=present:NoSchedule")
    expect(first.locator(".taint")).to_contain_text('"operator": "Equal"')
    fix = page.locator('#fixes li[data-kind="toleration"]')
    expect(fix).to_contain_text("Add the toleration(s) nvidia.com/gpu=present:NoSchedule")
    screenshot(page, "pod-verified-changes")
    with page.expect_navigation():
        fix.locator("button.fix-dry-run").click()
    run = DryRun.objects.get()
    wait_for(
        lambda: {"status": DryRun.objects.get(pk=run.pk).status},
        lambda d: d["status"] in DryRun.FINISHED,
        timeout=90,
    )
    page.reload()
    expect(page.locator("h1 .badge")).to_have_text("succeeded")
    placed = page.locator("#placements tbody tr", has_text="ml-inference/no-toleration-gpu")
    expect(placed).to_contain_text("Scheduled")
    pod = next(
        o
        for o in codec.unpack(run.snapshot)
        if o.get("kind") == "Pod" and o["metadata"]["name"] == "no-toleration-gpu"
    )
    assert pod["spec"]["tolerations"][-1]["key"] == "nvidia.com/gpu"
