"""A dry-run that moves running pods first (a defragmentation plan), then schedules."""

from __future__ import annotations

import json

from django.contrib.auth.models import Group, User
from django.test import Client

from dashboard.cluster.models import Node, Pod
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.results import read_results
from dashboard.dryruns.services.runner import run_dry_run
from scheduler_engine import build_cluster, simulate
from tests.engine.defrag.helpers import gpu_node, owned, pending


def _snapshot() -> list[dict]:
    # 8 GPUs free over four nodes; moving a and b off n0 frees it for the 8-GPU pod
    return [
        *(gpu_node(f"n{i}") for i in range(4)),
        owned("a", "n0", 2),
        owned("b", "n0", 2),
        owned("c", "n1", 6),
        owned("d", "n2", 6),
        owned("e", "n3", 4, kind=None),
        owned("f", "n3", 3, kind=None),
        pending(),
    ]


def _move_fix() -> list[dict]:
    (r,) = simulate(build_cluster(_snapshot()), explain=True, whatif=True).to_dict()["results"]
    return next(f for f in r["fixes"] if f["kind"] == "move")["moves"]


def _post(client, demo_cluster, **extra):
    body = {"cluster": demo_cluster.pk, "source": "snapshot", "snapshot": _snapshot(), **extra}
    return client.post("/api/v1/dry-runs/", body, format="json")


def test_the_move_fix_applied_in_a_dry_run_schedules_the_pod(operator, demo_cluster):
    plain = _post(operator, demo_cluster)
    assert plain.status_code == 202, plain.content
    assert run_dry_run(plain.json()["id"]) == DryRun.Status.SUCCEEDED
    before = {r["pod"]: r for r in read_results(DryRun.objects.get(pk=plain.json()["id"]), 0, 5)}
    assert before["default/train"]["status"] == "Unschedulable"

    moves = _move_fix()
    r = _post(operator, demo_cluster, moves=moves)
    assert r.status_code == 202, r.content
    assert r.json()["moves"] == moves
    assert run_dry_run(r.json()["id"]) == DryRun.Status.SUCCEEDED
    run = DryRun.objects.get(pk=r.json()["id"])
    (result,) = read_results(run, 0, 5)
    assert (result["pod"], result["status"], result["node"]) == ("default/train", "Scheduled", "n0")
    detail = operator.get(f"/api/v1/dry-runs/{run.pk}/").json()
    assert detail["summary"]["moves"] == moves


def test_bad_moves_are_named_and_nothing_is_stored(operator, demo_cluster):
    cases = [
        ("not a list", "moves"),
        ([{"pod": "default/a", "from": "n1", "to": "n2"}], "moves[0].from"),
        ([{"pod": "default/a", "from": "n0", "to": "n9"}], "moves[0].to"),
        ([{"pod": "default/zz", "from": "n0", "to": "n1"}], "moves[0].pod"),
        ([{"pod": "default/train", "from": "n0", "to": "n1"}], "moves[0].pod"),
        ([{"pod": "default/a", "from": "n0"}], "moves[0].to"),
        ([{"pod": "default/a", "from": "n0", "to": "n0"}], "moves[0].to"),
    ]
    for moves, field in cases:
        r = _post(operator, demo_cluster, moves=moves)
        assert r.status_code == 400, (moves, r.content)
        assert list(r.json()) == [field], (moves, r.json())
    assert not DryRun.objects.exists()


def test_the_schema_documents_moves(viewer, db):
    schema = viewer.get("/api/v1/schema/?format=json").json()
    field = schema["components"]["schemas"]["DryRunCreate"]["properties"]["moves"]
    assert "summary.moves" in field["description"]


def test_the_pod_page_form_takes_moves_and_the_run_page_lists_them(
    demo_cluster, django_capture_on_commit_callbacks
):
    user = User.objects.create(username="moves-operator")
    user.groups.add(Group.objects.get_or_create(name="operator")[0])
    client = Client()
    client.force_login(user)
    url = "/clusters/demo/pods/ml-training/bad-request-16gpu/"
    running = Pod.objects.filter(cluster=demo_cluster).exclude(node_name="").order_by("name")[0]
    target = (
        Node.objects.filter(cluster=demo_cluster)
        .exclude(name=running.node_name)
        .order_by("name")[0]
    )
    pod = f"{running.namespace}/{running.name}"
    moves = [{"pod": pod, "from": running.node_name, "to": target.name}]
    with django_capture_on_commit_callbacks(execute=False):
        client.post(url + "dry-run/", {"profile_version": "", "moves": json.dumps(moves)})
    run = DryRun.objects.get()
    assert run.moves == moves
    assert run_dry_run(run.pk) == DryRun.Status.SUCCEEDED
    page = client.get(f"/dry-runs/{run.pk}/").content.decode()
    assert 'id="moves-table"' in page and moves[0]["pod"] in page
