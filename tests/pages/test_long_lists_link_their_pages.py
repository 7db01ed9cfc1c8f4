"""The dry-run, profile and study lists show 50 rows a page and link the next and previous
pages; the dry-run and profile lists keep their cluster filter in those links."""

from __future__ import annotations

from django.urls import reverse

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.dryruns.models import DryRun, Profile
from dashboard.studies.models import Study

from .conftest import login_as


def _links(client, url: str) -> tuple[str, str]:
    first = client.get(url).content.decode()
    second = client.get(url + ("&" if "?" in url else "?") + "page=2").content.decode()
    return first, second


def test_the_dry_run_list_links_its_pages_within_a_cluster(db):
    cluster = ensure_snapshot_cluster("lists", "test")
    DryRun.objects.bulk_create(DryRun(cluster=cluster, snapshot=b"") for _ in range(51))
    first, second = _links(login_as("viewer"), reverse("pages:dryrun-list") + "?cluster=lists")
    assert '<nav class="pager" aria-label="Dry-run pages">' in first
    assert '<a href="?page=2&cluster=lists">older →</a>' in first
    assert "← newer" not in first
    assert "page 1 of 2" in first
    assert '<a href="?page=1&cluster=lists">← newer</a>' in second
    assert "older →" not in second


def test_the_profile_list_links_its_pages_within_a_cluster(db):
    cluster = ensure_snapshot_cluster("lists", "test")
    Profile.objects.bulk_create(Profile(cluster=cluster, name=f"p-{i:02d}") for i in range(51))
    first, second = _links(login_as("viewer"), reverse("pages:profile-list") + "?cluster=lists")
    assert '<nav class="pager" aria-label="Profile pages">' in first
    assert '<a href="?page=2&cluster=lists">next →</a>' in first
    assert '<a href="?page=1&cluster=lists">← previous</a>' in second
    assert "page 2 of 2" in second


def test_the_study_list_links_its_pages(db):
    Study.objects.bulk_create(Study(name=f"s-{i}", spec={}) for i in range(51))
    first, second = _links(login_as("viewer"), reverse("pages:study-list"))
    assert '<nav class="pager" aria-label="Study pages">' in first
    assert '<a href="?page=2">older →</a>' in first
    assert '<a href="?page=1">← newer</a>' in second


def test_a_short_list_has_no_page_links(db):
    Study.objects.bulk_create(Study(name=f"s-{i}", spec={}) for i in range(3))
    page = login_as("viewer").get(reverse("pages:study-list")).content.decode()
    assert 'class="pager"' not in page
