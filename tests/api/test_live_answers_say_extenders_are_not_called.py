"""The active profile's extenders are never called: explanations, applies and compares say so
too."""

from __future__ import annotations

from dashboard.cluster.models import Cluster
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.dryruns import create_dry_run
from dashboard.dryruns.services.profiles import apply_version, create_profile
from dashboard.dryruns.services.runner import run_dry_run
from dashboard.explain import live
from tests.api.test_extenders_are_said_to_be_left_out import OBJECTS, PLAIN, WARNING, WITH_EXTENDER
from tests.engine.builders import make_pod

BOUND = make_pod("bound").req(cpu=1).node("n1").obj()


def explain(client, cluster, pod: str, include: str = "") -> dict:
    url = f"/api/v1/clusters/{cluster.pk}/pods/default/{pod}/explanation/"
    r = client.get(url + (f"?include={include}" if include else ""))
    assert r.status_code == 200, r.content
    return r.json()


def test_an_explanation_with_the_active_profiles_extenders_ends_with_the_warning(viewer):
    live.forget()
    cluster = ensure_snapshot_cluster("ext", "test")
    import_objects(cluster, [*OBJECTS, BOUND])
    assert "warnings" not in explain(viewer, cluster, "p")  # upstream's defaults
    apply_version(cluster, create_profile(name="hami", document=WITH_EXTENDER), force=True)
    for include in ("", "nodes,whatif"):
        body = explain(viewer, cluster, "p", include)
        assert body["status"] == "Scheduled" and body["warnings"] == [WARNING]
        assert list(body)[-1] == "warnings"
    # a bound pod is answered without the engine: nothing was left out
    assert "warnings" not in explain(viewer, cluster, "bound")
    apply_version(cluster, create_profile(name="plain", document=PLAIN), force=True)
    assert "warnings" not in explain(viewer, cluster, "p")


def test_an_apply_and_a_rollback_answer_what_the_scheduler_now_calls(admin):
    cluster = ensure_snapshot_cluster("ext", "test")
    hami = create_profile(name="hami", document=WITH_EXTENDER)
    plain = create_profile(name="plain", document=PLAIN)

    def apply(version) -> dict:
        body = {"cluster": cluster.pk, "force": True}
        r = admin.post(f"/api/v1/profile-versions/{version.pk}/apply/", body, format="json")
        assert r.status_code == 201, r.content
        return r.json()

    applied = apply(hami)
    assert applied["warnings"] == [WARNING] and list(applied)[-1] == "warnings"
    assert apply(plain)["warnings"] == []
    r = admin.post(f"/api/v1/clusters/{cluster.pk}/rollback/")
    assert r.status_code == 201 and r.json()["warnings"] == [WARNING]  # hami is back
    # the history lists applications as before
    history = admin.get(f"/api/v1/clusters/{cluster.pk}/applications/").json()["results"]
    assert history and all("warnings" not in a for a in history)


def finished_runs(cluster: Cluster) -> list[DryRun]:
    """Finished dry-runs on the cluster of a configuration without extenders, of one with HAMi's
    and of upstream's defaults."""
    hami = create_profile(name="hami", document=WITH_EXTENDER, cluster=cluster)
    runs = [
        create_dry_run(cluster, source="snapshot", snapshot=OBJECTS, **config)
        for config in ({"inline_config": PLAIN}, {"profile_version": hami}, {})
    ]
    for run in runs:
        run_dry_run(run.pk)
    return runs


def test_a_compare_answers_either_runs_extenders_once(viewer):
    plain, edited, default = finished_runs(ensure_snapshot_cluster("ext", "test"))

    def compare(a, b) -> dict:
        r = viewer.get(f"/api/v1/dry-runs/{a.pk}/compare/?other={b.pk}")
        assert r.status_code == 200, r.content
        return r.json()

    for a, b in ((edited, plain), (plain, edited), (edited, edited)):
        body = compare(a, b)
        assert body["warnings"] == [WARNING] and list(body)[-1] == "warnings"
    assert compare(plain, default)["warnings"] == []


def test_the_schema_documents_the_fields(viewer):
    schemas = viewer.get("/api/v1/schema/?format=json").json()["components"]["schemas"]
    for name in ("Explanation", "Applied", "Compare"):
        field = schemas[name]["properties"]["warnings"]
        assert field["type"] == "array" and field["items"]["type"] == "string", name
    assert "warnings" not in schemas["Application"]["properties"]
