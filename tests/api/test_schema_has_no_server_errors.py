"""The OpenAPI schema is served, and Schemathesis finds no 5xx anywhere in it (bounded run)."""

from __future__ import annotations

import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings

from tests.support.fixtures import client_for

EXAMPLES_PER_OPERATION = 5


def test_schema_and_docs_are_served(viewer, db):
    assert viewer.get("/api/v1/schema/?format=json").status_code == 200
    assert viewer.get("/api/v1/docs/").status_code == 200
    assert viewer.get("/api/v1/redoc/").status_code == 200


def test_schemathesis_finds_no_server_error(demo_cluster):
    admin = client_for("admin")
    headers = {"Authorization": admin._credentials["HTTP_AUTHORIZATION"]}
    failures: list[str] = []
    # like Django's test client: keep the test's connection (and transaction) open
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        schema = schemathesis.openapi.from_wsgi(
            "/api/v1/schema/?format=json", get_wsgi_application(), headers=headers
        )
        checked = _run(schema, headers, failures)
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
    assert checked >= 15
    assert not failures, failures


def _run(schema, headers: dict[str, str], failures: list[str]) -> int:
    checked = 0
    for result in schema.get_all_operations():
        operation = result.ok()

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def run(case) -> None:
            response = case.call(headers=headers)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path}: {response.status_code}")

        run()
        checked += 1
    return checked
