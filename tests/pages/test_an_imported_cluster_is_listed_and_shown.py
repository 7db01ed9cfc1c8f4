from __future__ import annotations

from dashboard.cluster.services.snapshots import import_snapshot
from tests.support.fixtures import SMALL_CLUSTER


def test_cluster_list_and_detail_show_the_imported_cluster(db, admin_client):
    import_snapshot(SMALL_CLUSTER, "small")
    assert b"small" in admin_client.get("/").content
    page = admin_client.get("/clusters/small/").content.decode()
    assert 'data-stat="nodes">2<' in page
    pending = admin_client.get("/clusters/small/pending/").content.decode()
    assert 'data-key="ml/trainer-1"' in pending  # the pending pod


def test_unknown_cluster_is_404(db, admin_client):
    assert admin_client.get("/clusters/nope/").status_code == 404
