"""A URL's format suffix (``.json``), which the router allows on every route, reaches
every handler as a keyword: it must answer as the URL without it does, never a 500."""

from __future__ import annotations

import inspect

import pytest

from dashboard.api.urls import router

HANDLERS = ("list", "retrieve", "create", "update", "partial_update", "destroy")


def _handlers() -> list:
    params = []
    for prefix, viewset, _ in router.registry:
        names = [a.__name__ for a in viewset.get_extra_actions()]
        names += [h for h in HANDLERS if hasattr(viewset, h)]
        params += [pytest.param(viewset, n, id=f"{prefix}.{n}") for n in names]
    return params


@pytest.mark.parametrize(("viewset", "name"), _handlers())
def test_every_handler_takes_the_url_keywords_it_does_not_name(viewset, name):
    params = inspect.signature(getattr(viewset, name)).parameters.values()
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params), name


@pytest.mark.django_db
def test_an_action_with_a_suffix_answers_as_without(viewer, demo_cluster):
    base = f"/api/v1/clusters/{demo_cluster.pk}"
    for path in ("gpus", "gangs", "gpus/a100-a-1"):
        plain = viewer.get(f"{base}/{path}/")
        suffixed = viewer.get(f"{base}/{path}.json")
        assert (suffixed.status_code, suffixed.json()) == (plain.status_code, plain.json()), path


@pytest.mark.django_db
def test_a_post_with_a_suffix_is_validated_as_without(operator):
    r = operator.post("/api/v1/profiles/validate.json", {}, format="json")
    assert r.status_code == 400
    assert "document" in r.json()
