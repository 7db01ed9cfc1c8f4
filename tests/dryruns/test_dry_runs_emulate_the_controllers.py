"""Dry-runs stand in for kube-controller-manager: claims from templates, Immediate PVCs bound."""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.results import read_results
from dashboard.dryruns.services.runner import run_dry_run
from tests.engine.test_controllers import dra_cluster, template_pod


def test_a_template_claim_is_made_and_the_run_says_so(demo_cluster):
    run = create_dry_run(
        demo_cluster,
        source=DryRun.Source.SNAPSHOT,
        snapshot=[*dra_cluster(), template_pod()],
    )
    assert run_dry_run(run.pk) == DryRun.Status.SUCCEEDED
    run = DryRun.objects.get(pk=run.pk)
    [r] = read_results(run, 0, run.result_count)
    assert r["status"] == "Scheduled" and r["node"] == "gpu"
    [made] = run.summary["controllers"]["resourceClaims"]
    assert made["pod"] == "default/train" and made["claim"].startswith("default/train-gpu-")
    user = User.objects.create(username="page-viewer")
    user.groups.add(Group.objects.get_or_create(name="viewer")[0])
    client = Client()
    client.force_login(user)
    page = client.get(reverse("pages:dryrun-detail", args=[run.pk])).content.decode()
    assert "Emulated controllers" in page and made["claim"] in page
