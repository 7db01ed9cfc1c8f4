"""Repeated scheduler events (events.k8s.io/v1 series) keep their count and last time.

kube-scheduler v1.36 records through events.k8s.io/v1: in the core view a
repeated FailedScheduling has ``count`` and ``lastTimestamp`` null and the
repetition in ``series``. The mirror stores ``series.count`` and
``series.lastObservedTime``; the pod page says "seen N times, last X ago".
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from dashboard.cluster.kinds import KINDS_BY_KIND
from dashboard.cluster.models import Event
from tests.support import objects as b
from tests.support.mirror import wait_until, wait_watching


def _series_event(name: str, *, pod_name: str, count: int | None, last: str | None) -> dict:
    """The core-v1 view of an events.k8s.io/v1 FailedScheduling, as the API server shows it."""
    obj = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": name,
            "namespace": "default",
            "creationTimestamp": "2025-01-01T00:00:00Z",
        },
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": pod_name},
        "reason": "FailedScheduling",
        "message": "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
        "type": "Warning",
        "count": None,
        "firstTimestamp": None,
        "lastTimestamp": None,
        "eventTime": "2025-01-01T00:00:00.000000Z",
        "action": "Scheduling",
        "reportingComponent": "default-scheduler",
        "reportingInstance": "default-scheduler-node-1",
    }
    if count is not None:
        obj["series"] = {"count": count, "lastObservedTime": last}
    return obj


@pytest.mark.parametrize(
    ("obj", "count", "last"),
    [
        (_series_event("a", pod_name="p", count=None, last=None), 1, "2025-01-01T00:00:00"),
        (
            _series_event("a", pod_name="p", count=7, last="2025-01-01T00:05:00.250000Z"),
            7,
            "2025-01-01T00:05:00.250000",
        ),
        (b.event("a", pod_name="p"), 2, "2025-01-01T00:01:00"),  # a core event with count
        ({**b.event("a", pod_name="p"), "count": 0, "lastTimestamp": None}, 1, None),
    ],
    ids=["single", "series", "core-count", "no-time"],
)
def test_columns_read_the_series(obj, count, last):
    columns = KINDS_BY_KIND["Event"].columns(obj)
    assert columns["count"] == count
    if last is None:
        assert columns["last_seen"] is None
    else:
        want = datetime.fromisoformat(last).replace(tzinfo=UTC)
        assert columns["last_seen"] == want


def test_the_mirror_follows_a_growing_series(kube, live_cluster, start_mirror):
    kube.apply(b.namespace("default"))
    kube.apply(b.node("cpu-0"))
    kube.apply(b.pod("trainer", gpus=8))
    now = datetime.now(UTC)
    first = (now - timedelta(minutes=3)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    kube.apply(_series_event("trainer.1", pod_name="trainer", count=None, last=None))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    wait_until(lambda: Event.objects.filter(cluster=live_cluster).exists(), 10, what="event")
    assert Event.objects.get(cluster=live_cluster).count == 1

    kube.apply(_series_event("trainer.1", pod_name="trainer", count=2, last=first))
    later = (now - timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    kube.apply(_series_event("trainer.1", pod_name="trainer", count=15, last=later))

    def grown() -> bool:
        return Event.objects.get(cluster=live_cluster).count == 15

    wait_until(grown, 10, what="series count 15")
    event = Event.objects.get(cluster=live_cluster)
    assert abs((event.last_seen - (now - timedelta(minutes=2))).total_seconds()) < 1
