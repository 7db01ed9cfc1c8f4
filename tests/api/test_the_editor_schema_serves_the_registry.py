"""GET /api/v1/profiles/schema/: the config's JSON Schema, plugins with their points, args."""

from __future__ import annotations

from scheduler_engine.config.schema import ARGS_SCHEMAS, PLUGIN_SET_FIELDS


def test_the_schema_lists_plugins_points_and_args(viewer):
    r = viewer.get("/api/v1/profiles/schema/")
    assert r.status_code == 200, r.content
    data = r.json()
    assert data["extensionPoints"] == list(PLUGIN_SET_FIELDS)
    assert data["plugins"]["NodeResourcesFit"] == sorted(
        ["preFilter", "filter", "preScore", "score", "placementScore"]
    )
    assert set(data["pluginArgs"]) == set(ARGS_SCHEMAS)
    fit = data["pluginArgs"]["NodeResourcesFit"]["properties"]
    assert fit["scoringStrategy"]["properties"]["type"] == {"type": "string"}
    profile = data["schema"]["properties"]["profiles"]["items"]["properties"]
    assert profile["percentageOfNodesToScore"]["type"] == "integer"
    assert data["schema"]["additionalProperties"] is False


def test_the_schema_needs_a_login(client):
    assert client.get("/api/v1/profiles/schema/").status_code in (401, 403)
