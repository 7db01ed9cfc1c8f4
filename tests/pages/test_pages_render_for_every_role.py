from __future__ import annotations

import pytest

PAGES = [
    "/",
    "/clusters/demo/",
    "/clusters/demo/overview.json",
    "/clusters/demo/pending/",
    "/clusters/demo/pending/rows/",
    "/clusters/demo/gangs/",
    "/clusters/demo/nodes/",
    "/clusters/demo/nodes/rows/",
    "/clusters/demo/gpu-topology.json",
    "/clusters/demo/pods/ml-training/bad-request-16gpu/",
    "/clusters/demo/pods/ml-training/bad-request-16gpu/explanation/",
]


@pytest.mark.parametrize("url", PAGES)
def test_each_page_renders_for_each_role(demo, role_client, url):
    response = role_client.get(url)
    assert response.status_code == 200, response.content[:500]
    assert len(response.content) < 1_000_000


@pytest.mark.parametrize("url", PAGES)
def test_each_page_requires_a_login(demo, client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_the_layout_shows_navigation_role_and_a_skip_link(demo, viewer):
    page = viewer.get("/clusters/demo/").content.decode()
    assert 'href="#main"' in page and "Skip to content" in page
    for label in ("Overview", "Pending pods", "Nodes &amp; GPUs"):
        assert label in page
    assert 'class="role role-viewer"' in page
    assert 'name="csrfmiddlewaretoken"' in page  # the logout form


def test_plotly_is_served_from_the_package(viewer):
    response = viewer.get("/static/plotly/plotly.min.js")
    assert response.status_code == 200
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert b"plotly" in body[:2000].lower()


def test_login_page_logs_a_user_in(db, client):
    from django.contrib.auth.models import User

    User.objects.create_user("alice", password="s3cret-pass")
    assert client.get("/login/").status_code == 200
    response = client.post("/login/", {"username": "alice", "password": "s3cret-pass"})
    assert response.status_code == 302
    assert client.get("/").status_code == 200
    assert client.post("/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_the_cluster_switcher_keeps_the_page(demo, viewer):
    response = viewer.get("/switch/", {"cluster": "demo", "page": "nodes"})
    assert response.status_code == 302 and response["Location"] == "/clusters/demo/nodes/"
    assert viewer.get("/switch/", {"cluster": "nope"}).status_code == 404
