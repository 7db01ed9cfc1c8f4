"""A dry-run says which kube-scheduler feature gates it runs with; bad gates are 400s naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.cluster.services.snapshots import import_objects
from dashboard.dryruns import codec
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.profiles import create_profile
from dashboard.dryruns.services.runner import run_dry_run
from scheduler_engine.config import FEATURE_GATES
from tests.support.fixtures import poll_dry_run
from tests.support.gang_cluster import member, native_group, zone_node

GANG = {"GenericWorkload": True, "GangScheduling": True}


def big_gang() -> list[dict[str, Any]]:
    """Two 8-GPU nodes and a gang of four 8-GPU workers that needs all four at once."""
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "train"}},
        zone_node("a1", "a", 8),
        zone_node("b1", "b", 8),
        native_group("big", 4),
        *(member(f"big-{i}", "big", 8) for i in range(4)),
    ]


def post(client, cluster, **extra: Any):
    body = {"cluster": cluster.pk, "source": "snapshot", "snapshot": big_gang(), **extra}
    return client.post("/api/v1/dry-runs/", body, format="json")


@pytest.mark.parametrize(
    ("gates", "says"),
    [
        ({"Gangs": True}, "unrecognized feature gate: Gangs"),
        ({"GangScheduling": "yes", "GenericWorkload": True}, "invalid value of GangScheduling"),
        ({"GenericWorkload": 1}, "invalid value of GenericWorkload"),
        ({"GangScheduling": True}, "depends on GenericWorkload, which is disabled"),
        ({"WorkloadAwarePreemption": True, "GenericWorkload": True}, "depends on GangScheduling"),
        (["GangScheduling"], "must be an object of gate names"),
        ("GenericWorkload=yes", "invalid value of GenericWorkload=yes"),
        ("GenericWorkload", "missing bool value for GenericWorkload"),
        ("Gangs=true", "unrecognized feature gate: Gangs"),
        (
            {"DynamicResourceAllocation": False},
            "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true",
        ),
        ("DynamicResourceAllocation=false", "feature is locked to true"),
    ],
)
def test_a_bad_gate_is_a_400_naming_feature_gates(operator, gates, says):
    cluster = ensure_snapshot_cluster("gates", "test")
    r = post(operator, cluster, feature_gates=gates)
    assert r.status_code == 400, r.content
    errors = r.json()
    assert list(errors) == ["feature_gates"], errors
    assert says in errors["feature_gates"][0]
    assert not DryRun.objects.exists()


def test_the_run_records_every_gates_value_over_the_deployments(operator, settings):
    settings.SCHEDLAB_FEATURE_GATES = "GenericWorkload=true"
    cluster = ensure_snapshot_cluster("gates", "test")
    r = post(operator, cluster, feature_gates="GangScheduling=true")
    assert r.status_code == 202, r.content
    assert r.json()["feature_gates"] == {**FEATURE_GATES, **GANG}
    # none given: the deployment's, recorded as they were when the run was made
    r = post(operator, cluster)
    assert r.json()["feature_gates"] == {**FEATURE_GATES, "GenericWorkload": True}
    schema = operator.get("/api/v1/schema/?format=json").json()
    field = schema["components"]["schemas"]["DryRunCreate"]["properties"]["feature_gates"]
    assert set(field["properties"]) == set(FEATURE_GATES)


def _gang(client, run_id: int) -> tuple[int, list[dict[str, Any]]]:
    done = poll_dry_run(client, run_id)
    assert done["status"] == "succeeded", done
    return done["pods_placed"], done["summary"].get("gangs", [])


def test_the_gang_result_differs_with_and_without_gang_scheduling(worker, operator):
    cluster = ensure_snapshot_cluster("gates", "test")
    runs = {
        "off": post(operator, cluster),
        "generic": post(operator, cluster, feature_gates={"GenericWorkload": True}),
        "gang": post(operator, cluster, feature_gates=GANG),
    }
    out = {k: _gang(operator, r.json()["id"]) for k, r in runs.items()}
    # pod by pod, and a group cycle without the GangScheduling plugin: half the job starts
    assert out["off"] == (2, [])
    placed, (g,) = out["generic"]
    assert (placed, g["status"], g["scheduled"]) == (2, "Scheduled", 2)
    # GangScheduling: all or nothing, and the members that fit say why they wait
    placed, (g,) = out["gang"]
    assert (placed, g["status"], g["scheduled"], g["placed"]) == (0, "Unschedulable", 0, 2)
    assert g["summary"].endswith("needs 4, lacks 2")
    rows = operator.get(f"/api/v1/dry-runs/{runs['gang'].json()['id']}/results/").json()
    messages = {r["pod"]: r["message"] for r in rows["results"]}
    assert messages["train/big-0"].startswith(
        "pod group is unschedulable, waiting for minCount pods from a gang to be scheduled"
    )


def _login(client) -> None:
    user, _ = User.objects.get_or_create(username="operator-gates-user")
    user.groups.add(Group.objects.get_or_create(name="operator")[0])
    client.force_login(user)


def test_the_editor_form_takes_gates_and_the_run_page_shows_them(client, db):
    cluster = ensure_snapshot_cluster("gates", "test")
    import_objects(cluster, big_gang())
    doc = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    profile = create_profile(name="plain", document=doc, cluster=cluster).profile
    _login(client)
    url = f"/profiles/{profile.pk}/versions/1/dry-run/"
    assert (
        'name="feature_gates"'
        in client.get(f"/profiles/{profile.pk}/?cluster=gates").content.decode()
    )
    r = client.post(url, {"cluster": "gates", "feature_gates": "GangScheduling=true"}, follow=True)
    assert (
        "feature_gates: feature gate GangScheduling is enabled but depends on" in r.content.decode()
    )
    assert not DryRun.objects.exists()
    r = client.post(
        url, {"cluster": "gates", "feature_gates": "GenericWorkload=true,GangScheduling=true"}
    )
    assert r.status_code == 302
    run = DryRun.objects.get()
    run_dry_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.pods_placed) == ("succeeded", 0)
    page = client.get(f"/dry-runs/{run.pk}/").content.decode()
    assert '<span id="run-gates"><code>GenericWorkload=true,GangScheduling=true</code>' in page
    # the run's gang, explained as a job on the run's page
    assert 'id="gangs-table"' in page and '<tr data-gang="train/big">' in page
    assert "2 of 4 fit, 1 in zone a, 1 in zone b; 2 blocked: 2 Insufficient nvidia.com/gpu" in page


def test_the_run_page_lists_the_gangs_pod_level_preemption_broke(client, db):
    # a running two-member gang on two full nodes; an urgent ordinary pod evicts one member
    cluster = ensure_snapshot_cluster("gates", "test")
    running = []
    for i, n in enumerate(("a1", "b1")):
        p = member(f"r-{i}", "gang", 8)
        p["spec"]["nodeName"] = n
        p["spec"]["priority"] = 1
        p["status"] = {"phase": "Running"}
        running.append(p)
    urgent = member("urgent", "none", 8)
    del urgent["spec"]["schedulingGroup"]
    urgent["spec"]["priority"] = 1000
    objects = [*big_gang()[:3], native_group("gang", 2), *running, urgent]
    run = DryRun.objects.create(cluster=cluster, snapshot=codec.pack(objects), feature_gates=None)
    run_dry_run(run.pk)
    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    _login(client)
    page = client.get(f"/dry-runs/{run.pk}/").content.decode()
    assert "Pod-level preemption broke 1 running gang:" in page
    assert "<code>train/gang</code>" in page and "below minMember" in page
