"""The pod page, the compare page and the apply confirmation say that extenders are not called."""

from __future__ import annotations

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.profiles import apply_version, create_profile
from dashboard.dryruns.services.runner import run_dry_run
from dashboard.explain import live
from tests.api.test_extenders_are_said_to_be_left_out import OBJECTS, PLAIN, WITH_EXTENDER
from tests.api.test_live_answers_say_extenders_are_not_called import finished_runs
from tests.pages.conftest import login_as
from tests.pages.test_extenders_are_said_to_be_left_out import EMPTY, SHOWN


def test_the_pod_page_shows_the_active_profiles_extenders(db):
    live.forget()
    cluster = ensure_snapshot_cluster("ext", "test")
    import_objects(cluster, OBJECTS)
    client = login_as("viewer")
    url = "/clusters/ext/pods/default/p/explanation/"
    before = client.get(url).content.decode()
    assert EMPTY in before and 'class="warning"' not in before
    apply_version(cluster, create_profile(name="hami", document=WITH_EXTENDER), force=True)
    assert SHOWN in client.get(url).content.decode()


def test_the_compare_page_shows_either_runs_extenders_once(db):
    plain, edited, default = finished_runs(ensure_snapshot_cluster("ext", "test"))
    client = login_as("viewer")
    page = client.get(f"/dry-runs/{edited.pk}/compare/{plain.pk}/").content.decode()
    assert "Placement changes" in page and page.count(SHOWN) == 1
    both = client.get(f"/dry-runs/{edited.pk}/compare/{edited.pk}/").content.decode()
    assert both.count(SHOWN) == 1
    page = client.get(f"/dry-runs/{plain.pk}/compare/{default.pk}/").content.decode()
    assert EMPTY in page and 'class="warning"' not in page


def test_the_apply_confirmation_says_the_scheduler_will_call_them(db):
    cluster = ensure_snapshot_cluster("ext", "test")
    hami = create_profile(name="hami", document=WITH_EXTENDER, cluster=cluster)
    run = create_dry_run(cluster, profile_version=hami, source="snapshot", snapshot=OBJECTS)
    run_dry_run(run.pk)
    client = login_as("admin")
    page = client.get(f"/profiles/{hami.profile_id}/versions/1/apply/?cluster=ext")
    text = page.content.decode()
    assert page.status_code == 200 and 'id="confirm-extenders"' in text and SHOWN in text
    assert f"ext's scheduler calls its extenders; dry-run #{run.pk}, like every dry-run" in text
    plain = create_profile(name="plain", document=PLAIN, cluster=cluster)
    text = client.get(f"/profiles/{plain.profile_id}/versions/1/apply/?cluster=ext").content
    assert b"confirm-extenders" not in text and b'class="warning"' not in text
    # a rollback back to it says the same
    apply_version(cluster, hami, force=True)
    apply_version(cluster, plain, force=True)
    text = client.get("/clusters/ext/applications/rollback/").content.decode()
    assert 'id="confirm-extenders"' in text and SHOWN in text
