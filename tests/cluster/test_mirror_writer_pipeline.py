"""The writer builds the next batch while its database thread stores the last one."""

from __future__ import annotations

import threading
import time

from django.db import OperationalError

from dashboard.cluster.mirror import MirrorOptions
from dashboard.cluster.models import Pod
from dashboard.cluster.services import cluster_state, pgcopy
from tests.support import objects as b
from tests.support.mirror import FAST, wait_until, wait_watching


def _options(page_size: int) -> MirrorOptions:
    """FAST with bigger pages: the COPY path, several batches in flight."""
    fields = {f: getattr(FAST, f) for f in MirrorOptions.__dataclass_fields__}
    return MirrorOptions(**{**fields, "page_size": page_size})


def _stored(cluster) -> dict[str, str]:
    return dict(Pod.objects.filter(cluster=cluster).values_list("name", "node_name"))


def test_failed_writes_are_retried_in_order(kube, live_cluster, start_mirror, monkeypatch):
    n = pgcopy.COPY_THRESHOLD * 3
    for i in range(n):
        kube.apply(b.pod(f"p{i}"))
    real = cluster_state.apply_changes
    failures = {"left": 3}
    lock = threading.Lock()

    def flaky(cluster_id, changes):
        with lock:
            if failures["left"]:
                failures["left"] -= 1
                raise OperationalError("the database went away")
        return real(cluster_id, changes)

    monkeypatch.setattr("dashboard.cluster.mirror.writer.apply_changes", flaky)
    start_mirror(live_cluster, _options(250))
    wait_watching(live_cluster, timeout=30)
    wait_until(lambda: len(_stored(live_cluster)) == n, timeout=30, what="every pod stored")

    # Later events win over the listed versions, deletes are applied.
    kube.apply(b.pod("p0", node="n1"))
    kube.delete("Pod", "p1", namespace="default")
    wait_until(
        lambda: _stored(live_cluster).get("p0") == "n1" and "p1" not in _stored(live_cluster),
        what="watch events after the list",
    )
    assert failures["left"] == 0
    assert len(_stored(live_cluster)) == n - 1


def test_a_relist_removes_what_disappeared_while_batches_were_in_flight(
    kube, live_cluster, start_mirror
):
    n = pgcopy.COPY_THRESHOLD * 2
    for i in range(n):
        kube.apply(b.pod(f"p{i}"))
    start_mirror(live_cluster, _options(100))
    wait_until(lambda: len(_stored(live_cluster)) == n, timeout=30, what="initial sync")

    kube.stop()
    for i in range(0, n, 2):
        kube.delete("Pod", f"p{i}", namespace="default")
    kube.compact()
    kube.start()

    wait_until(
        lambda: set(_stored(live_cluster)) == {f"p{i}" for i in range(1, n, 2)},
        timeout=30,
        what="deletes reconciled",
    )


def test_watching_is_shown_only_once_every_list_is_stored(
    kube, live_cluster, start_mirror, monkeypatch
):
    """A slow database: the informers list and watch long before their rows are stored.

    The cluster must say "syncing" until then, or a page (or a test) trusting
    "watching" reads an empty mirror.
    """
    for i in range(5):
        kube.apply(b.pod(f"p{i}"))
    real = cluster_state.apply_changes

    def slow(cluster_id, changes):
        time.sleep(1.5)
        return real(cluster_id, changes)

    monkeypatch.setattr("dashboard.cluster.mirror.writer.apply_changes", slow)
    start_mirror(live_cluster)
    wait_watching(live_cluster, timeout=30)
    assert len(_stored(live_cluster)) == 5
