"""The dry-run, profile and study lists show 50 rows a page and link the next and previous
pages; the dry-run and profile lists keep their cluster filter in those links."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.dryruns.models import DryRun, Profile
from dashboard.studies.models import Study

from .conftest import login_as


def _dry_runs(n: int) -> None:
    cluster = ensure_snapshot_cluster("lists", "test")
    DryRun.objects.bulk_create(DryRun(cluster=cluster, snapshot=b"") for _ in range(n))


def _profiles(n: int) -> None:
    cluster = ensure_snapshot_cluster("lists", "test")
    Profile.objects.bulk_create(Profile(cluster=cluster, name=f"p-{i:02d}") for i in range(n))


def _studies(n: int) -> None:
    Study.objects.bulk_create(Study(name=f"s-{i}", spec={}) for i in range(n))


LISTS = {
    # list: (make n rows, URL name, query, the pager's label, its two links' words)
    "dry-runs": (_dry_runs, "pages:dryrun-list", "?cluster=lists", "Dry-run", "← newer", "older →"),
    "profiles": (
        _profiles,
        "pages:profile-list",
        "?cluster=lists",
        "Profile",
        "← previous",
        "next →",
    ),
    "studies": (_studies, "pages:study-list", "", "Study", "← newer", "older →"),
}


@pytest.mark.parametrize("which", LISTS)
def test_a_list_of_51_links_its_two_pages(db, which):
    make, url_name, query, label, previous, following = LISTS[which]
    make(51)
    client = login_as("viewer")
    url = reverse(url_name) + query
    first = client.get(url).content.decode()
    second = client.get(url + ("&" if query else "?") + "page=2").content.decode()
    kept = query.replace("?", "&")
    assert f'<nav class="pager" aria-label="{label} pages">' in first
    assert "page 1 of 2" in first and "page 2 of 2" in second
    assert f'<a href="?page=2{kept}">{following}</a>' in first and previous not in first
    assert f'<a href="?page=1{kept}">{previous}</a>' in second and following not in second


def test_a_short_list_has_no_page_links(db):
    _studies(3)
    page = login_as("viewer").get(reverse("pages:study-list")).content.decode()
    assert 'class="pager"' not in page
