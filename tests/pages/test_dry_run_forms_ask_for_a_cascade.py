"""The editor's and the pod page's dry-run forms take a cascade depth; the run page shows it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import override_settings

from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.profiles import create_profile
from dashboard.dryruns.services.runner import run_dry_run
from tests.support.fixtures import BIN_PACKING_CONFIG

POD = "/clusters/demo/pods/ml-training/gpt-finetune-worker-0/"


def login(client, role: str) -> None:
    user, _ = User.objects.get_or_create(username=f"{role}-cascade-user")
    user.groups.add(Group.objects.get_or_create(name=role)[0])
    client.force_login(user)


@pytest.fixture
def profile(demo):
    return create_profile(name="binpack", document=BIN_PACKING_CONFIG, cluster=demo).profile


def test_the_editor_form_starts_a_run_that_follows_the_cascade(client, profile, demo):
    login(client, "operator")
    editor = client.get(f"/profiles/{profile.pk}/?cluster=demo").content.decode()
    assert 'name="cascade_depth"' in editor and 'max="10"' in editor
    r = client.post(
        f"/profiles/{profile.pk}/versions/1/dry-run/", {"cluster": "demo", "cascade_depth": "4"}
    )
    assert r.status_code == 302
    run = DryRun.objects.get()
    assert run.cascade_depth == 4
    run_dry_run(run.pk)
    run.refresh_from_db()
    # the demo's pending gpt-finetune evicts experiment-7, a bare pod: one depth, nothing back
    cascade = run.summary["cascade"]
    assert (cascade["depth"], cascade["totals"]["notRecreated"]) == (1, 1)
    page = client.get(f"/dry-runs/{run.pk}/").content.decode()
    assert 'id="cascade-figure"' in page and 'id="cascade-levels"' in page
    assert "ml-training/experiment-7-worker-0" in page


def test_the_pod_page_form_asks_for_a_depth(client, demo, django_capture_on_commit_callbacks):
    login(client, "operator")
    assert 'name="cascade_depth"' in client.get(POD).content.decode()
    with django_capture_on_commit_callbacks(execute=False):
        r = client.post(POD + "dry-run/", {"profile_version": "", "cascade_depth": "3"})
    assert r.status_code == 302
    assert DryRun.objects.get().cascade_depth == 3


@pytest.mark.parametrize("bad", ["-1", "two", "1.5", "99999999"])
def test_a_bad_depth_is_a_form_error_naming_the_field(client, profile, demo, bad):
    login(client, "operator")
    for url, body in (
        (f"/profiles/{profile.pk}/versions/1/dry-run/", {"cluster": "demo"}),
        (POD + "dry-run/", {"profile_version": ""}),
    ):
        r = client.post(url, {**body, "cascade_depth": bad}, follow=True)
        assert r.status_code == 200
        assert "cascade_depth: " in r.content.decode(), (url, bad)
    assert not DryRun.objects.exists()


def test_a_depth_past_the_setting_names_the_setting(client, profile, demo):
    login(client, "operator")
    with override_settings(SCHEDLAB_CASCADE_MAX_DEPTH=2):
        r = client.post(
            f"/profiles/{profile.pk}/versions/1/dry-run/",
            {"cluster": "demo", "cascade_depth": "3"},
            follow=True,
        )
    assert "SCHEDLAB_CASCADE_MAX_DEPTH" in r.content.decode()
    assert not DryRun.objects.exists()
