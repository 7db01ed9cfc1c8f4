"""The pending gangs: listed on the pending page, each diagnosed on its own page."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings

from dashboard.explain import live
from tests.support.gang_cluster import GATES, make_gang_cluster

from .conftest import login_as


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def gangs(db):
    live.forget()
    yield make_gang_cluster()
    live.forget()


@override_settings(SCHEDLAB_FEATURE_GATES=GATES)
def test_the_pending_list_links_each_gang_to_its_diagnosis(gangs):
    viewer = login_as("viewer")
    pending = viewer.get("/clusters/gangs/pending/").content.decode()
    assert 'id="gangs-h"' in pending
    link = "/clusters/gangs/gangs/train/big/?api=scheduling.k8s.io/v1alpha2"
    assert f'href="{link}"' in pending.replace("%2F", "/")
    page = viewer.get(link)
    assert page.status_code == 200
    text = _text(page.content.decode())
    summary = re.search(r'id="gang-summary"><strong>([^<]+)<', page.content.decode()).group(1)
    assert summary.startswith(("0 of 4 fit", "1 of 4 fit", "2 of 4 fit"))
    assert "blocked" in summary and "Insufficient nvidia.com/gpu" in summary
    assert "needed at once (quorum)" in text and "Insufficient nvidia.com/gpu" in text
    listing = _text(viewer.get("/clusters/gangs/gangs/").content.decode())
    assert "train/fits" in listing and "train/big" in listing


def test_without_the_gates_there_is_no_gang_and_unknown_ones_are_404(gangs):
    viewer = login_as("viewer")
    assert 'id="gangs-h"' not in viewer.get("/clusters/gangs/pending/").content.decode()
    assert 'id="no-gangs"' in viewer.get("/clusters/gangs/gangs/").content.decode()
    assert viewer.get("/clusters/gangs/gangs/train/big/").status_code == 404
    assert viewer.get("/clusters/gangs/gangs/train/big/?api=nope").status_code == 404


def test_gang_pages_need_a_login(client, gangs):
    assert client.get("/clusters/gangs/gangs/").status_code == 302
