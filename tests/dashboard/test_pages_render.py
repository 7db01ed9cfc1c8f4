from __future__ import annotations

from pathlib import Path

from dashboard.services.snapshots import import_snapshot

FIXTURE = Path(__file__).parent / "fixtures" / "small-cluster.yaml"


def test_cluster_list_and_detail_show_the_imported_cluster(db, client):
    import_snapshot(FIXTURE, "small")
    assert b"small" in client.get("/").content
    page = client.get("/clusters/small/").content.decode()
    assert "2 nodes, 16 allocatable GPUs" in page
    assert 'data-key="ml/trainer-1"' in page  # the pending pod


def test_unknown_cluster_is_404(db, client):
    assert client.get("/clusters/nope/").status_code == 404
