"""A dry-run's progress is ``100 * pods_done / pods_total``, and pods_done never passes pods_total.

A preempting pod is tried again in a later round. Before, each retry counted
as one more pod done: the run reported 3 and 4 pods done of 2 (150%, 200%)
over the websocket and in its row, and a percentage past 100 on the page.
"""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.test import Client

from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services import runner
from tests.engine.builders import make_node, make_pod


def _preempting_snapshot() -> list[dict]:
    return [
        make_node("n1").cap(cpu="2", memory="4Gi").obj(),
        make_pod("low").priority(10).req(cpu="2").node("n1").obj(),
        make_pod("high").priority(1000).req(cpu="1").obj(),
        make_pod("other").priority(10).req(cpu="4").obj(),
    ]


def test_progress_messages_rows_and_pages_agree(demo_cluster, operator, monkeypatch):
    run = DryRun.objects.create(cluster=demo_cluster, snapshot=codec.pack(_preempting_snapshot()))
    page = Client()
    watcher = User.objects.create(username="watcher")
    watcher.groups.add(Group.objects.get_or_create(name="viewer")[0])
    page.force_login(watcher)
    sent: list[tuple[dict, dict, str]] = []

    def publish(run_id: int, **fields) -> None:
        if fields["status"] == "running" and "podsDone" in fields:
            # what the API and the page show at that moment
            api = operator.get(f"/api/v1/dry-runs/{run_id}/").json()
            sent.append((fields, api, page.get(f"/dry-runs/{run_id}/").content.decode()))

    monkeypatch.setattr(runner, "_publish", publish)
    assert runner.run_dry_run(run.pk) == "succeeded"
    assert sent
    for msg, api, html in sent:
        done, total = msg["podsDone"], msg["podsTotal"]
        assert 0 <= done <= total, msg
        assert msg["progress"] == round(100 * done / total, 1), msg
        assert (api["progress"], api["pods_done"], api["pods_total"]) == (
            msg["progress"],
            done,
            total,
        )
        assert f"{done} / {total} pods" in html
        assert f'value="{round(msg["progress"])}"' in html
    assert sent[-1][0]["podsDone"] == sent[-1][0]["podsTotal"] == 2
    body = operator.get(f"/api/v1/dry-runs/{run.pk}/").json()
    assert (body["progress"], body["pods_done"], body["pods_total"]) == (100.0, 2, 2)
