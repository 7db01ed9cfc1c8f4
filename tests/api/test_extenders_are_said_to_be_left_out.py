"""A configuration's extenders are never called: validation and every dry-run answer say so."""

from __future__ import annotations

import yaml

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.dryruns.services.profiles import create_profile
from dashboard.dryruns.services.runner import run_dry_run
from tests.engine.builders import make_node, make_pod

HAMI = {
    "urlPrefix": "http://hami-scheduler.kube-system:443",
    "filterVerb": "filter",
    "bindVerb": "bind",
    "managedResources": [{"name": "nvidia.com/gpu", "ignoredByScheduler": True}],
}
WARNING = (
    "extender http://hami-scheduler.kube-system:443 (filter, bind; managedResources "
    "nvidia.com/gpu) is not called: Schedlab's answer shows what the profile's plugins "
    "decide without it"
)
HEAD = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
WITH_EXTENDER = yaml.safe_dump({**HEAD, "extenders": [HAMI]})
PLAIN = yaml.safe_dump(HEAD)
OBJECTS = [make_node("n1").cap(cpu=4, memory="8Gi").obj(), make_pod("p").req(cpu=1).obj()]


def validate(client, document: str) -> dict:
    r = client.post("/api/v1/profiles/validate/", {"document": document}, format="json")
    assert r.status_code == 200, r.content
    return r.json()


def test_validation_answers_the_warning_beside_the_errors(operator):
    assert validate(operator, WITH_EXTENDER) == {
        "valid": True,
        "errors": [],
        "error_count": 0,
        "warnings": [WARNING],
    }
    assert validate(operator, PLAIN)["warnings"] == []
    # an invalid document with extenders still says what would be left out
    bad = yaml.safe_dump({**HEAD, "parallelism": 0, "extenders": [HAMI]})
    answer = validate(operator, bad)
    assert not answer["valid"] and answer["warnings"] == [WARNING]
    # a document that does not parse has its errors, and nothing else to say
    assert validate(operator, "extenders: [")["warnings"] == []


def post_run(client, cluster, **config: object) -> dict:
    body = {"cluster": cluster.pk, "source": "snapshot", "snapshot": OBJECTS, **config}
    r = client.post("/api/v1/dry-runs/", body, format="json")
    assert r.status_code == 202, r.content
    return r.json()


def test_a_dry_run_of_an_inline_config_carries_it_from_creation_to_success(operator):
    cluster = ensure_snapshot_cluster("ext", "test")
    run = post_run(operator, cluster, inline_config=WITH_EXTENDER)
    assert run["warnings"] == [WARNING]
    assert list(run)[-1] == "warnings"
    run_dry_run(run["id"])
    done = operator.get(f"/api/v1/dry-runs/{run['id']}/").json()
    assert done["status"] == "succeeded"
    assert done["warnings"] == [WARNING] and done["summary"]["warnings"] == [WARNING]
    listed = operator.get("/api/v1/dry-runs/").json()["results"]
    assert [r["warnings"] for r in listed] == [[WARNING]]


def test_a_dry_run_of_a_profile_version_carries_it_and_others_do_not(operator):
    cluster = ensure_snapshot_cluster("ext", "test")
    version = create_profile(name="hami", document=WITH_EXTENDER, cluster=cluster)
    assert post_run(operator, cluster, profile_version=version.pk)["warnings"] == [WARNING]
    assert post_run(operator, cluster, inline_config=PLAIN)["warnings"] == []
    assert post_run(operator, cluster)["warnings"] == []


def test_the_schema_documents_the_field(operator):
    schemas = operator.get("/api/v1/schema/?format=json").json()["components"]["schemas"]
    for name in ("DryRun", "ValidationResult"):
        field = schemas[name]["properties"]["warnings"]
        assert field["type"] == "array" and field["items"]["type"] == "string", name
