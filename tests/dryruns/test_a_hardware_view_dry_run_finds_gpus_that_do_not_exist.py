"""The hardware-view dry-run: through the API and the editor's form, onto the result page."""

from __future__ import annotations

from django.contrib.auth.models import Group, User
from django.test import Client

from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.profiles import create_profile
from dashboard.dryruns.services.results import read_results
from dashboard.dryruns.services.runner import run_dry_run
from tests.support import gpus, objects
from tests.support.fixtures import BIN_PACKING_CONFIG


def _snapshot() -> list[dict]:
    # n1 advertises 8 GPUs, its hardware has 4 (GFD); n2 is honest with 4
    return [
        gpus.gpu_node("n1", gpus=8, gfd_count=4),
        gpus.gpu_node("n2", gpus=4),
        objects.pod("big", gpus=8),
        objects.pod("small", gpus=2),
    ]


def _run(operator, demo_cluster, **extra) -> DryRun:
    body = {
        "cluster": demo_cluster.pk,
        "source": "snapshot",
        "snapshot": _snapshot(),
        **extra,
    }
    r = operator.post("/api/v1/dry-runs/", body, format="json")
    assert r.status_code == 202, r.content
    assert run_dry_run(r.json()["id"]) == DryRun.Status.SUCCEEDED
    return DryRun.objects.get(pk=r.json()["id"])


def test_the_hardware_view_reports_placements_on_missing_gpus(operator, demo_cluster):
    plain = _run(operator, demo_cluster)
    run = _run(operator, demo_cluster, hardware_view=True)
    assert (plain.hardware_view, run.hardware_view) == (False, True)
    assert "hardwareView" not in plain.summary
    hw = operator.get(f"/api/v1/dry-runs/{run.pk}/").json()["summary"]["hardwareView"]
    assert hw["nodes"] == [{"node": "n1", "allocatable": 8, "hardware": 4}]
    [phantom] = hw["phantomPlacements"]
    assert (phantom["pod"], phantom["node"], phantom["missing"]) == ("default/big", "n1", 4)
    # the stored placements are the hardware view's: the 8-GPU pod fits nowhere
    placed = {r["pod"]: (r["status"], r["node"]) for r in read_results(run, 0, 10)}
    before = {r["pod"]: (r["status"], r["node"]) for r in read_results(plain, 0, 10)}
    assert before["default/big"] == ("Scheduled", "n1")
    assert placed["default/big"][0] == "Unschedulable"
    assert {m["pod"] for m in hw["moved"]} >= {"default/big"}


def test_a_bad_hardware_view_value_is_named(operator, demo_cluster):
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": demo_cluster.pk, "source": "mirror", "hardware_view": "maybe"},
        format="json",
    )
    assert r.status_code == 400 and list(r.json()) == ["hardware_view"]
    assert not DryRun.objects.exists()


def test_the_schema_documents_the_option(viewer, db):
    schema = viewer.get("/api/v1/schema/?format=json").json()
    field = schema["components"]["schemas"]["DryRunCreate"]["properties"]["hardware_view"]
    assert field["type"] == "boolean" and "phantomPlacements" in field["description"]


def test_the_editor_form_starts_one_and_the_page_shows_it(demo_cluster):
    user = User.objects.create(username="hw-operator")
    user.groups.add(Group.objects.get_or_create(name="operator")[0])
    client = Client()
    client.force_login(user)
    profile = create_profile(
        name="binpack", document=BIN_PACKING_CONFIG, cluster=demo_cluster
    ).profile
    editor = client.get(f"/profiles/{profile.pk}/?cluster=demo").content.decode()
    assert 'name="hardware_view"' in editor
    client.post(
        f"/profiles/{profile.pk}/versions/1/dry-run/", {"cluster": "demo", "hardware_view": "on"}
    )
    run = DryRun.objects.get()
    assert run.hardware_view is True
    assert run_dry_run(run.pk) == DryRun.Status.SUCCEEDED
    page = client.get(f"/dry-runs/{run.pk}/").content.decode()
    assert 'id="hardware-view"' in page
    # the demo's nodes that advertise other GPU counts than they have are listed, linked
    table = page[
        page.index('id="hardware-nodes"') : page.index(
            "</table>", page.index('id="hardware-nodes"')
        )
    ]
    assert 'href="/clusters/demo/gpus/' in table


def test_the_pod_page_form_starts_one_for_that_pod(
    demo_cluster, django_capture_on_commit_callbacks
):
    user = User.objects.create(username="hw-pod-operator")
    user.groups.add(Group.objects.get_or_create(name="operator")[0])
    client = Client()
    client.force_login(user)
    url = "/clusters/demo/pods/ml-training/bad-request-16gpu/"
    assert 'name="hardware_view"' in client.get(url).content.decode()
    with django_capture_on_commit_callbacks(execute=False):
        client.post(url + "dry-run/", {"profile_version": "", "hardware_view": "on"})
        client.post(url + "dry-run/", {"profile_version": ""})
    assert list(DryRun.objects.order_by("pk").values_list("hardware_view", flat=True)) == [
        True,
        False,
    ]
