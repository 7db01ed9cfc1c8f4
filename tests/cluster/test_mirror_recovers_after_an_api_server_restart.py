"""The mirror against an API server that shuts down and comes back (issue 10, item 9).

With production backoff (0.5 s doubling to 30 s) the per-kind waits grow while
the server is down; the readiness probe wakes every kind as soon as /readyz
answers again, so the mirror watches again within 5 s of the server's return.
While the server shuts down (/readyz 500, watches still open) the row says
so, and while it is down the error is one short line per cause.
"""

from __future__ import annotations

import dataclasses
import time

from dashboard.cluster.kinds import KINDS
from dashboard.cluster.mirror.health import MAX_ERROR_CHARS
from dashboard.cluster.models import Cluster, Pod
from tests.support import objects as b
from tests.support.mirror import FAST, wait_until, wait_watching

PRODUCTION_BACKOFF = dataclasses.replace(
    FAST, backoff_base=0.5, backoff_max=30.0, probe_fast=0.5, probe_slow=0.5
)


def _row(cluster: Cluster) -> Cluster:
    return Cluster.objects.get(pk=cluster.pk)


def test_it_says_the_server_is_shutting_down_while_watches_stay_open(
    kube, live_cluster, start_mirror
):
    kube.apply(b.pod("p"))
    start_mirror(live_cluster, PRODUCTION_BACKOFF)
    wait_watching(live_cluster)
    kube.shutting_down = True
    wait_until(lambda: not _row(live_cluster).connected, 5, what="not connected")
    row = _row(live_cluster)
    assert row.mirror_status == "error" and "API server not ready" in row.last_error
    kube.shutting_down = False
    wait_watching(live_cluster, timeout=5)


def test_it_recovers_within_5_seconds_of_the_servers_return(kube, live_cluster, start_mirror):
    kube.apply(b.pod("before"))
    start_mirror(live_cluster, PRODUCTION_BACKOFF)
    wait_watching(live_cluster)

    kube.stop()

    def down() -> bool:
        row = _row(live_cluster)
        return not row.connected and "connection refused" in row.last_error

    wait_until(down, 10, what="the error row")
    time.sleep(12)  # long enough for every kind's backoff to grow to several seconds
    summary = f"{len(KINDS)} kinds: unreachable: connection refused"
    # Each kind marks itself failed on its own retry, so wait for the last one.
    wait_until(lambda: summary in _row(live_cluster).last_error, 20, what=summary)
    row = _row(live_cluster)
    assert len(row.last_error) <= MAX_ERROR_CHARS

    kube.apply(b.pod("while-down"))
    kube.start()
    back = time.monotonic()
    wait_watching(live_cluster, timeout=5)
    wait_until(
        lambda: Pod.objects.filter(cluster=live_cluster, name="while-down").exists(),
        5,
        what="the pod created while the mirror was away",
    )
    took = time.monotonic() - back
    assert took < 5, took
    assert _row(live_cluster).last_error == ""
    print(f"mirror watching again {took:.2f} s after the API server came back")
