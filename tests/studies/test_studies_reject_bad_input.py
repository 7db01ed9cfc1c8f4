"""Bad studies are refused with a 400 naming the field; roles as in the rest of the API."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from dashboard.studies.models import Study

from .traces import jsonl_trace, openb_trace


def _post(client, **body):
    body.setdefault("traces", [{"name": "t", "jsonl": jsonl_trace()}])
    return client.post("/api/v1/studies/", body, format="json")


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"policies": ["best-fit", "tetris"]}, "policies", "tetris"),
        ({"traces": []}, "traces", ""),
        ({"traces": [{"jsonl": "{not json\n"}]}, "traces[0]", "not JSON"),
        ({"traces": [{"name": "x"}]}, "traces", "jsonl"),
        ({"traces": [{"jsonl": jsonl_trace(), "cluster": "c"}]}, "traces", "one of"),
        ({"traces": [{"cluster": "nowhere"}]}, "traces[0]", "nowhere"),
        ({"traces": [{"jsonl": jsonl_trace(), "days": 3}]}, "traces", "only with cluster"),
        ({"percentages": [5, 101]}, "percentages", "100"),
        ({"seeds": [-1]}, "seeds", "0"),
        ({"mode": "fast"}, "mode", "fast"),
        ({"inflate": 0}, "inflate", ""),
        ({"profile_versions": [999999]}, "profile_versions[0]", "999999"),
        ({"preset": "everything"}, "preset", "everything"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(operator, body, field, words):
    r = _post(operator, **body)
    assert r.status_code == 400, r.content
    errors = r.json()
    assert field in errors, errors
    assert words in json.dumps(errors[field]), errors
    assert Study.objects.count() == 0


def test_an_openb_trace_with_a_negative_value_names_line_and_column(operator):
    nodes_csv, pods_csv = openb_trace()
    lines = pods_csv.splitlines()
    cols = lines[2].split(",")
    cols[1] = "-5"
    lines[2] = ",".join(cols)
    r = _post(operator, traces=[{"nodes_csv": nodes_csv, "pods_csv": "\n".join(lines) + "\n"}])
    assert r.status_code == 400, r.content
    message = r.json()["traces[0]"][0]
    assert "podsCsv" not in message and "pods_csv" in message
    assert "line 3" in message and "cpu_milli" in message


@override_settings(SCHEDLAB_STUDY_MAX_RUNS=10)
def test_more_runs_than_the_cap_is_refused_naming_runs(operator):
    r = _post(operator, policies=["default", "fgd"], seeds=[1, 2, 3], percentages=[50, 100])
    assert r.status_code == 400
    assert "12 runs" in r.json()["runs"][0] and "SCHEDLAB_STUDY_MAX_RUNS" in r.json()["runs"][0]
    assert (
        _post(operator, policies=["fgd"], seeds=[1, 2], percentages=[5, 50, 100]).status_code == 202
    )


def test_viewers_read_and_operators_start_and_cancel(operator, viewer, admin):
    assert _post(viewer).status_code == 403
    r = _post(operator, preset="nodes-to-score")
    assert r.status_code == 202, r.content
    pk = r.json()["id"]
    assert r.json()["percentages"] == [5, 10, 20, 30, 50, 75, 100]
    assert r.json()["configs"] == ["default"] and r.json()["runs_total"] == 7
    assert viewer.get(f"/api/v1/studies/{pk}/").status_code == 200
    assert viewer.get("/api/v1/studies/").json()["results"][0]["id"] == pk
    assert viewer.post(f"/api/v1/studies/{pk}/cancel/").status_code == 403
    assert operator.post(f"/api/v1/studies/{pk}/cancel/").status_code == 202
    assert viewer.get(f"/api/v1/studies/{pk}/").json()["status"] == "cancelled"
    assert viewer.get(f"/api/v1/studies/{pk}/export/?type=xml").status_code == 400
    anonymous = operator.__class__()
    assert anonymous.get(f"/api/v1/studies/{pk}/").status_code in (401, 403)
