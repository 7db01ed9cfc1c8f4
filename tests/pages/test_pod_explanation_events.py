"""The pod page's Events table: mirrored scheduler events beside the engine's, differences marked."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

from dashboard.cluster.models import Event

URL = "/clusters/demo/pods/ml-training/bad-request-16gpu/explanation/"


def _event(demo, name: str, message: str, minutes: int) -> Event:
    obj = {
        "type": "Warning",
        "reason": "FailedScheduling",
        "message": message,
        "source": {"component": "default-scheduler"},
    }
    return Event.objects.create(
        cluster=demo,
        namespace="ml-training",
        name=name,
        obj=obj,
        reason="FailedScheduling",
        message=message,
        involved_kind="Pod",
        involved_namespace="ml-training",
        involved_name="bad-request-16gpu",
        count=3,
        last_seen=datetime.now(UTC) - timedelta(minutes=minutes),
    )


def _rows(fragment: str) -> list[str]:
    table = fragment.split('<table id="events">')[1].split("</table>")[0]
    return re.findall(r'<tr class="([^"]*)">', table)


def test_the_engines_event_alone_without_mirrored_events(demo, viewer):
    fragment = viewer.get(URL).content.decode()
    assert _rows(fragment) == ["event-engine"]
    engine_message = fragment.split('id="engine-message">')[1].split("<")[0]
    table = fragment.split('<table id="events">')[1]
    assert "FailedScheduling" in table and engine_message in table and "default-scheduler" in table


def test_mirrored_events_come_first_and_differences_are_marked(demo, viewer):
    engine_message = viewer.get(URL).content.decode().split('id="engine-message">')[1].split("<")[0]
    _event(demo, "e-old", "0/3 nodes are available: 3 Insufficient cpu.", minutes=30)
    fragment = viewer.get(URL).content.decode()
    assert _rows(fragment) == ["event-cluster event-differs", "event-engine event-differs"]
    assert "(x3)" in fragment and "≠ differs" in fragment
    # the same text on both sides: nothing to mark for it
    _event(demo, "e-new", html.unescape(engine_message), minutes=1)
    fragment = viewer.get(URL).content.decode()
    assert _rows(fragment) == [
        "event-cluster event-differs",
        "event-cluster",
        "event-engine",
    ]


def test_a_gated_pod_has_no_event_and_says_what_holds_it_back(demo, viewer):
    fragment = viewer.get(
        "/clusters/demo/pods/ml-training/queued-job-0/explanation/"
    ).content.decode()
    assert "Skipped" in fragment and 'id="no-events"' in fragment
    assert "Scheduling is blocked due to non-empty scheduling gates" in fragment
    assert "SchedulingGates holds it back" in fragment and "kueue.x-k8s.io/admission" in fragment
