"""The profile editor and dry-run pages, through Django's test client (no browser)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group, User

from dashboard.dryruns.models import Application, DryRun
from dashboard.dryruns.services.profiles import create_profile
from dashboard.dryruns.services.runner import run_dry_run
from tests.support.fixtures import BIN_PACKING_CONFIG, DEFAULT_CONFIG


def login(client, role: str) -> User:
    user, _ = User.objects.get_or_create(username=f"{role}-page-user")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    client.force_login(user)
    return user


@pytest.fixture
def profile(demo):
    return create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile


def test_pages_need_a_login(client, profile):
    r = client.get(f"/profiles/{profile.pk}/")
    assert r.status_code == 302 and "/login/" in r["Location"]


def test_the_editor_shows_the_latest_version_and_its_knobs(client, profile):
    login(client, "viewer")
    page = client.get(f"/profiles/{profile.pk}/").content.decode()
    assert "MostAllocated" in page and 'id="knobs-data"' in page
    assert "Save as v2" not in page  # viewers cannot save


def test_saving_an_invalid_document_shows_the_field_and_keeps_the_text(client, profile):
    login(client, "operator")
    bad = DEFAULT_CONFIG + "percentageOfNodesToScore: 120\n"
    r = client.post(f"/profiles/{profile.pk}/", {"document": bad, "message": "x"})
    assert r.status_code == 400
    page = r.content.decode()
    assert "document.percentageOfNodesToScore" in page and "120" in page
    assert profile.versions.count() == 1


def test_saving_makes_a_new_version(client, profile):
    login(client, "operator")
    r = client.post(f"/profiles/{profile.pk}/", {"document": DEFAULT_CONFIG, "message": "back"})
    assert r.status_code == 302 and "v=2" in r["Location"]
    assert profile.versions.get(number=2).message == "back"
    diff = client.get(f"/profiles/{profile.pk}/diff/?a=1&b=2").content.decode()
    assert "MostAllocated" in diff and "diff-del" in diff


def test_viewers_cannot_save_or_start_dry_runs(client, profile, demo):
    login(client, "viewer")
    assert client.post(f"/profiles/{profile.pk}/", {"document": DEFAULT_CONFIG}).status_code == 403
    r = client.post(f"/profiles/{profile.pk}/versions/1/dry-run/", {"cluster": "demo"})
    assert r.status_code == 403


def test_the_form_writes_knob_changes_into_the_yaml(client, profile):
    login(client, "viewer")
    knobs = client.post(
        "/profiles/form/", {"document": DEFAULT_CONFIG}, content_type="application/json"
    ).json()["knobs"]
    knobs["percentageOfNodesToScore"] = 40
    score = knobs["profiles"][0]["points"]["score"]
    next(r for r in score if r["name"] == "ImageLocality")["enabled"] = False
    next(r for r in score if r["name"] == "NodeAffinity")["weight"] = 9
    r = client.post(
        "/profiles/form/",
        {"document": DEFAULT_CONFIG, "knobs": knobs},
        content_type="application/json",
    ).json()
    assert r["changed"]
    assert "percentageOfNodesToScore: 40" in r["document"]
    assert "- name: ImageLocality" in r["document"]
    rows = {x["name"]: x for x in r["knobs"]["profiles"][0]["points"]["score"]}
    assert rows["NodeAffinity"]["weight"] == 9 and not rows["ImageLocality"]["enabled"]


def test_the_form_names_the_field_of_a_bad_document(client, db):
    login(client, "viewer")
    r = client.post(
        "/profiles/form/",
        {"document": DEFAULT_CONFIG + "parallelism: -1\n"},
        content_type="application/json",
    )
    assert r.status_code == 400
    assert any(e["field"] == "document.parallelism" for e in r.json()["errors"])


def test_apply_needs_a_dry_run_unless_an_admin_forces_it(client, profile, demo):
    login(client, "admin")
    url = f"/profiles/{profile.pk}/versions/1/apply/"
    client.post(url, {"cluster": "demo"})
    assert not Application.objects.exists()
    client.post(url, {"cluster": "demo", "force": "on"})
    app = Application.objects.get()
    assert app.forced and app.applied_by.username == "admin-page-user"


def test_operators_cannot_apply(client, profile, demo):
    login(client, "operator")
    r = client.post(f"/profiles/{profile.pk}/versions/1/apply/", {"cluster": "demo"})
    assert r.status_code == 403


def test_a_dry_run_page_shows_metrics_pending_pods_and_the_preemption_graph(client, profile, demo):
    user = login(client, "operator")
    r = client.post(f"/profiles/{profile.pk}/versions/1/dry-run/", {"cluster": "demo"})
    assert r.status_code == 302 and "run=" in r["Location"]
    run = DryRun.objects.get()
    assert run.created_by == user and run.explain
    run_dry_run(run.pk)  # in-process: this test is about the page, not the worker
    page = client.get(f"/dry-runs/{run.pk}/").content.decode()
    assert 'id="metrics"' in page and "podsPending" in page
    assert "preemption-figure" in page
    figure = json.loads(
        page.split('id="preemption-figure" type="application/json">')[1].split("<")[0]
    )
    names = {t.get("name") for t in figure["data"]}
    assert any(n and "(" in n for n in names)  # priority classes with their values
    assert "0/20 nodes are available" in page  # a pending pod's message
    assert client.get("/dry-runs/").status_code == 200


def test_compare_with_active_runs_the_baseline_on_the_same_state(client, profile, demo):
    login(client, "operator")
    client.post(f"/profiles/{profile.pk}/versions/1/dry-run/", {"cluster": "demo"})
    run = DryRun.objects.get()
    run_dry_run(run.pk)
    r = client.post(f"/dry-runs/{run.pk}/compare-with-active/")
    assert r.status_code == 302
    baseline = DryRun.objects.exclude(pk=run.pk).get()
    assert baseline.snapshot_sha256 == run.snapshot_sha256 and baseline.profile_version is None
    waiting = client.get(r["Location"]).content.decode()
    assert "Waiting for 1 run" in waiting
    run_dry_run(baseline.pk)
    page = client.get(r["Location"]).content.decode()
    assert 'id="deltas"' in page and "podsPending" in page and 'id="changes"' in page
    # asking again reuses the baseline
    client.post(f"/dry-runs/{run.pk}/compare-with-active/")
    assert DryRun.objects.count() == 2
