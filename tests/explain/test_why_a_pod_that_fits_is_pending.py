"""Why a pod the engine would place now is still pending: read off what the mirror holds."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.cluster.models import Cluster, Event, Node, Pod
from dashboard.explain.pending_reasons import pending_reasons
from scheduler_engine.config import default_config

NOW = timezone.now()


def _iso(t):
    return t.isoformat().replace("+00:00", "Z")


def _pod(cluster: Cluster, spec: dict | None = None, status: dict | None = None) -> Pod:
    obj = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "p",
            "namespace": "ns",
            "creationTimestamp": _iso(NOW - timedelta(hours=1)),
        },
        "spec": {"containers": [{"name": "c", "image": "x"}], **(spec or {})},
        "status": {"phase": "Pending", **(status or {})},
    }
    return Pod.objects.create(cluster=cluster, namespace="ns", name="p", obj=obj, phase="Pending")


def _failed(ago: timedelta) -> dict:
    return {
        "conditions": [
            {
                "type": "PodScheduled",
                "status": "False",
                "reason": "Unschedulable",
                "lastTransitionTime": _iso(NOW - ago),
            }
        ]
    }


CASES = [
    ("gates", {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]}, {}, ["gates"]),
    ("other scheduler", {"schedulerName": "volcano"}, {}, ["scheduler"]),
    ("nominated", {}, {"nominatedNodeName": "n1"}, ["nominated"]),
    ("never tried", {}, {}, ["no-attempt", "snapshot"]),
    ("backoff", {}, _failed(timedelta(seconds=3)), ["backoff", "snapshot"]),
    ("unchanged since", {}, _failed(timedelta(minutes=30)), ["unchanged", "snapshot"]),
]


@pytest.mark.parametrize(("case", "spec", "status", "keys"), CASES, ids=[c[0] for c in CASES])
def test_each_reason_is_read_off_the_mirror(db, case, spec, status, keys):
    cluster = Cluster.objects.create(name="c")
    Node.objects.create(cluster=cluster, name="n1", obj={"kind": "Node"})
    Node.objects.filter(cluster=cluster).update(updated_at=NOW - timedelta(hours=2))
    pod = _pod(cluster, spec, status)
    reasons = pending_reasons(cluster, pod, default_config(), now=NOW)
    assert [r.key for r in reasons] == keys
    assert all(r.why.endswith(".") and r.todo for r in reasons)
    if case == "gates":
        assert "kueue.x-k8s.io/admission" in reasons[0].why


def test_a_change_after_the_last_attempt_says_the_retry_is_due(db):
    cluster = Cluster.objects.create(name="c")
    pod = _pod(cluster)
    Event.objects.create(
        cluster=cluster,
        namespace="ns",
        name="p.1",
        obj={},
        reason="FailedScheduling",
        involved_namespace="ns",
        involved_name="p",
        last_seen=NOW - timedelta(minutes=20),
    )
    Node.objects.create(cluster=cluster, name="n1", obj={"kind": "Node"})  # changed just now
    reasons = pending_reasons(cluster, pod, default_config(), now=NOW + timedelta(seconds=1))
    assert reasons[0].key == "stale"
    assert "5 minutes" in reasons[0].why
