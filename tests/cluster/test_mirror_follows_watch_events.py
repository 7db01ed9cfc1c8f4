from __future__ import annotations

from dashboard.cluster.models import Cluster, Event, Node, Pod
from tests.support import objects as b
from tests.support.mirror import wait_until, wait_watching


def _pod(cluster, name, namespace="default"):
    return Pod.objects.filter(cluster=cluster, namespace=namespace, name=name).first()


def test_it_applies_added_modified_and_deleted_events(kube, live_cluster, start_mirror):
    kube.apply(b.node("n1", gpus=8))
    kube.apply(b.pod("a"))
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    kube.apply(b.pod("b", gpus=2))
    wait_until(lambda: _pod(live_cluster, "b") is not None, what="ADDED b")
    kube.apply(b.pod("a", node="n1"))  # bound by the scheduler
    wait_until(lambda: _pod(live_cluster, "a").node_name == "n1", what="MODIFIED a")
    kube.delete("Pod", "b", "default")
    wait_until(lambda: _pod(live_cluster, "b") is None, what="DELETED b")

    a = _pod(live_cluster, "a")
    assert (a.phase, a.pending_since) == ("Running", None)
    assert Pod.objects.filter(cluster=live_cluster).count() == 1


def test_it_watches_failed_scheduling_events_only(kube, live_cluster, start_mirror):
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    kube.apply(b.event("x.1", pod_name="x", reason="Scheduled"))
    kube.apply(b.event("y.1", pod_name="y"))
    wait_until(lambda: Event.objects.filter(cluster=live_cluster, name="y.1").exists())
    assert not Event.objects.filter(cluster=live_cluster, name="x.1").exists()


def test_bookmarks_keep_the_resource_version_fresh(kube, live_cluster, start_mirror):
    kube.apply(b.node("n1"))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    # Changes to other kinds move the server's resourceVersion; node watchers
    # learn it only from bookmarks.
    for i in range(3):
        kube.apply(b.pod(f"p{i}"))
    latest = str(kube.store.rv)
    wait_until(
        lambda: Cluster.objects.get(pk=live_cluster.pk).resource_versions.get("nodes") == latest,
        what="node watch bookmark",
    )
    assert Node.objects.filter(cluster=live_cluster).count() == 1


def test_it_records_last_event_time_and_lag(kube, live_cluster, start_mirror):
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    kube.apply(b.pod("late"))
    wait_until(lambda: Cluster.objects.get(pk=live_cluster.pk).lag_seconds is not None)
    cluster = Cluster.objects.get(pk=live_cluster.pk)
    assert cluster.last_event_at is not None
    assert 0 <= cluster.lag_seconds < 5
