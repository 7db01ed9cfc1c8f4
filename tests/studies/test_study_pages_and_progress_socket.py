"""The results page draws what the runs measured; progress reaches websocket clients."""

from __future__ import annotations

import asyncio
import json
import statistics
from datetime import timedelta

from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.utils import timezone

from dashboard.cluster.kinds import KINDS_BY_KEY, object_row
from dashboard.cluster.services.cluster_state import Changes, apply_changes
from dashboard.cluster.services.clusters import ensure_live_cluster
from dashboard.studies.models import Study, StudyRun
from dashboard.studies.services.runner import publish, run_study_run
from dashboard.studies.services.studies import NODES_TO_SCORE, cancel_study, create_study
from schedlab.asgi import application
from scheduler_engine.replay.trace import gpu_node_object
from tests.pages.conftest import login_as
from tests.support import objects as b

from .traces import jsonl_trace

PODS, NODES = KINDS_BY_KEY["pods"], KINDS_BY_KEY["nodes"]


def _figure(html: str) -> dict:
    start = html.index('<script id="study-figure" type="application/json">') + len(
        '<script id="study-figure" type="application/json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_the_nodes_to_score_study_page_shows_both_curves_and_the_tradeoff(db):
    study = create_study(
        user=None,
        preset=NODES_TO_SCORE,
        traces=[{"name": "tiny", "jsonl": jsonl_trace(nodes=6, pods=60)}],
        seeds=[1, 2],
        percentages=[10, 50, 100],
    )
    viewer = login_as("viewer")
    page = viewer.get(f"/studies/{study.pk}/")
    assert page.status_code == 200
    assert b'id="study-figure"' not in page.content  # nothing ran yet
    assert b"0</span> of 6 runs finished" in page.content
    for run in StudyRun.objects.filter(study=study).order_by("index"):
        assert run_study_run(run.pk) == "succeeded"
    study.refresh_from_db()
    assert study.status == "succeeded" and study.runs_done == 6
    html = viewer.get(f"/studies/{study.pk}/").content.decode()
    fig = _figure(html)
    assert [g["percentage"] for g in fig["groups"]] == [10, 50, 100]
    assert all(g["seeds"] == 2 and g["arrived"] for g in fig["groups"])
    runs = list(StudyRun.objects.filter(study=study, percentage=100))
    at100 = [r.summary["unallocatedGpuPercentAt100"] for r in runs]
    at100 = [v for v in at100 if v is not None]  # None: a seed's curve never reached 100%
    expected = round(statistics.median(at100), 4) if at100 else None
    assert fig["groups"][2]["unallocatedAt100"] == expected
    [series] = fig["nodesToScore"]
    assert series["percentage"] == [10, 50, 100] and len(series["podsPerSecond"]) == 3
    assert 'id="study-curves"' in html and 'id="study-tradeoff"' in html
    assert "cancel-study" not in html  # finished, and a viewer
    assert b"#%d" % study.pk in viewer.get("/studies/").content


def test_operators_cancel_from_the_page_and_viewers_cannot(db):
    study = create_study(user=None, traces=[{"jsonl": jsonl_trace()}], seeds=[1, 2])
    assert login_as("viewer").post(f"/studies/{study.pk}/cancel/").status_code == 403
    operator = login_as("operator")
    assert b'id="cancel-study"' in operator.get(f"/studies/{study.pk}/").content
    r = operator.post(f"/studies/{study.pk}/cancel/")
    assert r.status_code == 302
    study.refresh_from_db()
    assert study.status == "cancelled" and study.runs_done == 2
    assert set(study.runs.values_list("status", flat=True)) == {"cancelled"}
    # a cancelled run that a worker picks up later is not run
    assert run_study_run(study.runs.first().pk) is None


def test_progress_reaches_a_viewers_socket_and_anonymous_ones_are_refused(transactional_db):
    study = Study.objects.create(name="s", spec={"configs": []}, runs_total=3, runs_done=1)
    client = login_as("viewer")
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    headers = [(b"cookie", f"{settings.SESSION_COOKIE_NAME}={session}".encode())]

    async def run():
        anon = WebsocketCommunicator(application, f"/ws/studies/{study.pk}/")
        refused = await anon.connect()
        await anon.disconnect()
        missing = WebsocketCommunicator(application, "/ws/studies/999999/", headers=headers)
        absent = await missing.connect()
        await missing.disconnect()
        ws = WebsocketCommunicator(application, f"/ws/studies/{study.pk}/", headers=headers)
        connected, _ = await ws.connect()
        assert connected
        hello = await ws.receive_json_from(timeout=5)
        publish(study, None)
        message = await ws.receive_json_from(timeout=5)
        await ws.disconnect()
        return refused, absent, hello, message

    refused, absent, hello, message = asyncio.run(run())
    assert refused == (False, 4401) and absent == (False, 4404)
    assert hello == {"type": "hello", "study": study.pk, "serverTime": hello["serverTime"]}
    assert message["type"] == "study.progress" and message["runsDone"] == 1
    assert message["runsTotal"] == 3 and message["status"] == "queued"


def test_cancelling_twice_is_refused(db):
    study = create_study(user=None, traces=[{"jsonl": jsonl_trace()}])
    cancel_study(study)
    r = login_as("operator").post(f"/studies/{study.pk}/cancel/", follow=True)
    assert b"has finished already" in r.content


def test_a_study_replays_a_mirrored_clusters_history(db):
    c = ensure_live_cluster("hist")
    changes = Changes()
    changes.upsert(NODES, object_row(NODES, c.pk, gpu_node_object("n1", 8000, 16384, 2, "")))
    apply_changes(c.pk, changes)
    changes = Changes()
    for i in range(3):
        p = b.pod(f"p{i}", cpu="1")
        p["metadata"]["creationTimestamp"] = f"2026-11-30T10:00:0{i}Z"
        p["metadata"]["uid"] = f"uid-{i}"
        changes.upsert(PODS, object_row(PODS, c.pk, p))
    apply_changes(c.pk, changes)
    study = create_study(user=None, traces=[{"cluster": "hist", "days": 3650}], mode="time")
    trace = study.traces.get()
    assert (trace.name, trace.nodes, trace.pods) == ("hist", 1, 3)
    assert run_study_run(study.runs.get().pk) == "succeeded"
    s = study.runs.get().summary
    assert (s["pods"], s["placed"], s["mode"]) == (3, 3, "time")


def test_a_run_whose_worker_was_lost_is_run_again_and_a_live_one_is_left_alone(db, settings):
    settings.SCHEDLAB_STUDY_STALE_SECONDS = 60.0
    study = create_study(user=None, traces=[{"jsonl": jsonl_trace()}], seeds=[1, 2])
    lost, alive = study.runs.order_by("index")
    now = timezone.now()
    StudyRun.objects.filter(pk=lost.pk).update(
        status="running", worker="gone:1", heartbeat_at=now - timedelta(seconds=61)
    )
    StudyRun.objects.filter(pk=alive.pk).update(status="running", worker="x:2", heartbeat_at=now)
    assert run_study_run(alive.pk) is None
    assert run_study_run(lost.pk) == "succeeded"
    lost.refresh_from_db()
    assert lost.worker != "gone:1" and lost.summary["pods"] > 0
