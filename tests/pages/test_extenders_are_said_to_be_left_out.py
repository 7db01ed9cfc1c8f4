"""The profile editor and the dry-run page say that a configuration's extenders are not called."""

from __future__ import annotations

import html

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.profiles import create_profile
from dashboard.dryruns.services.runner import run_dry_run
from tests.api.test_extenders_are_said_to_be_left_out import OBJECTS, PLAIN, WARNING, WITH_EXTENDER
from tests.pages.conftest import login_as

SHOWN = f'<li class="warning">{html.escape(WARNING)}</li>'
EMPTY = '<ul id="warnings" class="warnings" aria-live="polite"></ul>'


def test_the_editor_and_the_run_page_show_the_warning(db):
    cluster = ensure_snapshot_cluster("ext", "test")
    import_objects(cluster, OBJECTS)
    profile = create_profile(name="hami", document=WITH_EXTENDER, cluster=cluster).profile
    client = login_as("operator")
    assert SHOWN in client.get(f"/profiles/{profile.pk}/?cluster=ext").content.decode()
    r = client.post(f"/profiles/{profile.pk}/versions/1/dry-run/", {"cluster": "ext"})
    assert r.status_code == 302
    run = DryRun.objects.get()
    assert SHOWN in client.get(f"/dry-runs/{run.pk}/").content.decode()  # queued
    run_dry_run(run.pk)
    page = client.get(f"/dry-runs/{run.pk}/").content.decode()
    assert "succeeded" in page and SHOWN in page


def test_pages_of_a_configuration_without_extenders_show_none(db):
    cluster = ensure_snapshot_cluster("ext", "test")
    profile = create_profile(name="plain", document=PLAIN, cluster=cluster).profile
    client = login_as("viewer")
    page = client.get(f"/profiles/{profile.pk}/?cluster=ext").content.decode()
    assert EMPTY in page and 'class="warning"' not in page
