"""A dry-run with ``cascade_depth``: the cascade in the run's summary and at its own endpoint."""

from __future__ import annotations

from django.test import override_settings

from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.runner import run_dry_run
from tests.engine.test_cascade_on_the_demo import demo_with_owners, workload


def _post(operator, demo_cluster, **extra):
    body = {
        "cluster": demo_cluster.pk,
        "source": "snapshot",
        "snapshot": demo_with_owners(),
        "workload": workload(),
        **extra,
    }
    return operator.post("/api/v1/dry-runs/", body, format="json")


def test_a_dry_run_reports_the_cascade_of_its_workload(operator, viewer, demo_cluster):
    r = _post(operator, demo_cluster, cascade_depth=5)
    assert r.status_code == 202, r.content
    run_id = r.json()["id"]
    assert r.json()["cascade_depth"] == 5
    assert run_dry_run(run_id) == DryRun.Status.SUCCEEDED
    detail = viewer.get(f"/api/v1/dry-runs/{run_id}/").json()
    cascade = detail["summary"]["cascade"]
    assert (cascade["depthLimit"], cascade["depth"], cascade["stoppedBy"]) == (5, 3, "end")
    assert [lv["priorityClasses"] for lv in cascade["levels"]][1:] == [
        {"training-low": 1},
        # notebook-alice, and a worker of the demo's bert-finetune gang (an ordinary
        # pod of the lowest priority without the workload gates) on the same node
        {"(none)": 1, "research-opportunistic": 1},
    ]
    served = viewer.get(f"/api/v1/dry-runs/{run_id}/cascade/")
    assert served.status_code == 200
    assert served.json() == cascade
    # the replacements are results like any other pod's
    results = viewer.get(f"/api/v1/dry-runs/{run_id}/results/?limit=1000").json()["results"]
    by_pod = {x["pod"]: x for x in results}
    sweep = cascade["levels"][1]["evictions"][0]
    assert by_pod[sweep["recreatedAs"]]["node"] == "a100-c-1"


def test_without_cascade_depth_there_is_no_cascade(operator, viewer, demo_cluster):
    r = _post(operator, demo_cluster)
    assert r.json()["cascade_depth"] == 0
    assert run_dry_run(r.json()["id"]) == DryRun.Status.SUCCEEDED
    run = DryRun.objects.get(pk=r.json()["id"])
    assert "cascade" not in run.summary
    missing = viewer.get(f"/api/v1/dry-runs/{run.pk}/cascade/")
    assert missing.status_code == 404
    assert "was not run with cascade_depth" in missing.json()["detail"]


def test_a_bad_depth_is_refused_naming_the_field(operator, demo_cluster):
    for bad in (-1, 21, "deep", 2.5):
        r = _post(operator, demo_cluster, cascade_depth=bad)
        assert r.status_code == 400, (bad, r.content)
        assert list(r.json()) == ["cascade_depth"]
    with override_settings(SCHEDLAB_CASCADE_MAX_DEPTH=3):
        r = _post(operator, demo_cluster, cascade_depth=4)
        assert r.status_code == 400
        assert r.json() == {
            "cascade_depth": ["must be between 0 and 3 (SCHEDLAB_CASCADE_MAX_DEPTH)"]
        }
    assert not DryRun.objects.exists()


def test_the_schema_documents_the_cascade(viewer, db):
    schema = viewer.get("/api/v1/schema/?format=json").json()
    field = schema["components"]["schemas"]["DryRunCreate"]["properties"]["cascade_depth"]
    assert field["type"] == "integer" and field["maximum"] == 20
    assert "summary.cascade" in field["description"]
    op = schema["paths"]["/api/v1/dry-runs/{id}/cascade/"]["get"]
    ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    cascade = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert set(cascade["properties"]) == {"depthLimit", "depth", "stoppedBy", "levels", "totals"}
    level = schema["components"]["schemas"]["CascadeLevel"]["properties"]
    assert {"evictions", "priorityClasses", "nowhereToGo", "pdbViolations"} <= set(level)
