"""The OpenAPI schema is served, and Schemathesis finds nothing wrong with the API (bounded).

Every operation is exercised with schema-valid (positive) and schema-violating
(negative) requests under all of Schemathesis's checks (no 5xx, status codes,
content types, response schemas and headers documented, invalid data refused,
...), then the stateful phase follows the links the schema allows. Bounded:
EXAMPLES_PER_OPERATION examples per operation and mode, STATEFUL_STEPS
steps; the test prints how long it took.
"""

from __future__ import annotations

import re
import time

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.failures import FailureGroup
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.support.fixtures import client_for

EXAMPLES_PER_OPERATION = 8
STATEFUL_EXAMPLES = 6
STATEFUL_STEPS = 6


def test_schema_and_docs_are_served(viewer, db):
    assert viewer.get("/api/v1/schema/?format=json").status_code == 200
    assert viewer.get("/api/v1/docs/").status_code == 200
    assert viewer.get("/api/v1/redoc/").status_code == 200


@pytest.fixture
def api_schema(demo_cluster):
    admin = client_for("admin")
    headers = {"Authorization": admin._credentials["HTTP_AUTHORIZATION"]}
    # like Django's test client: keep the test's connection (and transaction) open
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        schema = schemathesis.openapi.from_wsgi(
            "/api/v1/schema/?format=json", get_wsgi_application(), headers=headers
        )
        yield schema, headers
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


_SETTINGS = settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    database=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)


def test_schemathesis_finds_nothing_wrong(api_schema):
    schema, headers = api_schema
    started = time.perf_counter()
    failures: list[str] = []
    checked = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _exercise(operation, mode, headers, failures)
        checked += 1
    took = time.perf_counter() - started
    print(f"schemathesis: {checked} operations, 2 modes, {took:.1f} s")
    assert checked >= 15
    summary = sorted(
        {f.split(":")[0] + " " + " ".join(re.findall(r"- (ST\d+ [^\n]*)", f)) for f in failures}
    )
    assert not failures, (
        "\n".join(summary) + "\n\n" + "\n\n".join(failures[:3]) + f"\n\n({len(failures)} failures)"
    )


def _exercise(operation, mode, headers: dict[str, str], failures: list[str]) -> None:
    @_SETTINGS
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case) -> None:
        response = case.call(headers=headers)
        try:
            case.validate_response(response, headers=headers, **_checks_for(case, mode))
        except FailureGroup as exc:
            failures.append(f"{mode.value} {case.method} {case.formatted_path}: {exc}")
        _check_400_names_a_field(case, response, failures)

    try:
        run()
    except Unsatisfiable:
        # an operation without parameters or body (GET profiles/schema/) has nothing
        # to make invalid; every positive case still runs
        if mode is not GenerationMode.NEGATIVE:
            raise


_PATH_OBJECTS = {
    "clusters": "cluster",
    "profiles": "profile",
    "profile-versions": "version",
    "dry-runs": "dry_run",
}


def _links(machine) -> int:
    transitions = getattr(machine, "_transitions", None)
    if transitions is None:
        return 0
    return sum(len(t.outgoing) for t in transitions.operations.values())


def _checks_for(case, mode) -> dict:
    """All checks; schema-valid bodies that name objects which do not exist or carry
    documents that are not valid configurations/snapshots are 400 on purpose, so
    for write operations the 400 must name a field of the body instead
    (_check_400_names_a_field) of counting as "valid data rejected"."""
    if mode == GenerationMode.POSITIVE and case.method in ("POST", "PUT", "PATCH"):
        return {"excluded_checks": [positive_data_acceptance]}
    return {}


def _check_400_names_a_field(case, response, failures: list[str]) -> None:
    if response.status_code != 400:
        return
    body = response.json()
    assert isinstance(body, dict) and body, response.text
    known = set()
    for param in case.operation.iter_parameters():
        known.add(param.name)
    if case.operation.body:
        for alternative in case.operation.body:
            known |= set((alternative.definition.get("schema") or {}).get("properties") or {})
    schema = case.operation.definition.raw.get("requestBody", {})
    for content in schema.get("content", {}).values():
        ref = content.get("schema", {}).get("$ref", "")
        if ref:
            name = ref.rsplit("/", 1)[-1]
            components = case.operation.schema.raw_schema["components"]["schemas"]
            known |= set(components.get(name, {}).get("properties") or {})
    known |= {"body", "detail", "non_field_errors", "id"}
    # the object of the path, named as the body would name it (rollback: "cluster")
    known |= {_PATH_OBJECTS.get(part, "") for part in case.path.split("/")}
    for key in body:
        head = re.split(r"[.\[]", key, maxsplit=1)[0]
        if head not in known:
            failures.append(f"{case.method} {case.formatted_path}: 400 names {key!r}, not a field")


def test_schemathesis_stateful_links_hold(api_schema):
    schema, headers = api_schema
    started = time.perf_counter()
    failures: list[str] = []
    machine = schema.as_state_machine()

    class Machine(machine):  # type: ignore[misc,valid-type]
        def get_call_kwargs(self, case):
            return {"headers": headers}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            # the checks that replay a request (ignored_auth, ...) need to know the credentials
            case.validate_response(
                response,
                additional_checks=additional_checks,
                headers=headers,
                transport_kwargs=kwargs or None,
                recorder=self.recorder,
                **_checks_for(case, GenerationMode.POSITIVE),
            )
            _check_400_names_a_field(case, response, failures)

    Machine.run(
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=STATEFUL_STEPS,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
    )
    print(f"schemathesis stateful: {_links(machine)} links, {time.perf_counter() - started:.1f} s")
    assert not failures, failures
