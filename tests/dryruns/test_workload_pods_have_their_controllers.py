"""Workload templates make pods owned as their controllers own them, so cascades recreate them."""

from __future__ import annotations

import pytest

from dashboard.dryruns.services.workload import expand_workload
from scheduler_engine.objects import parse_pod
from scheduler_engine.objects.owners import owner_of

TEMPLATE = {"spec": {"containers": [{"name": "c", "image": "x"}]}}


def _owners(kind: str) -> list:
    pods = expand_workload([{"kind": kind, "name": "web", "replicas": 2, "podTemplate": TEMPLATE}])
    return [owner_of(parse_pod(p)) for p in pods if p["kind"] == "Pod"]


@pytest.mark.parametrize(
    ("kind", "owner_kind", "cause"),
    [
        ("StatefulSet", "StatefulSet", "StatefulSet"),
        ("Job", "Job", "Job"),
        ("ReplicaSet", "ReplicaSet", "ReplicaSet"),
    ],
)
def test_each_template_kind_owns_its_pods(kind, owner_kind, cause):
    owners = _owners(kind)
    assert [(o.kind, o.name, o.cause) for o in owners] == [(owner_kind, "web", cause)] * 2


def test_a_deployment_owns_its_pods_through_a_replicaset_named_by_its_template_hash():
    pods = expand_workload(
        [{"kind": "Deployment", "name": "web", "replicas": 2, "podTemplate": TEMPLATE}]
    )
    hashes = {p["metadata"]["labels"]["pod-template-hash"] for p in pods}
    (h,) = hashes
    assert len(h) == 10
    owners = [owner_of(parse_pod(p)) for p in pods]
    assert {(o.kind, o.name, o.deployment, o.cause) for o in owners} == {
        ("ReplicaSet", f"web-{h}", "web", "Deployment")
    }
    # the same template hashes the same way; another does not
    again = expand_workload([{"kind": "Deployment", "name": "web", "podTemplate": TEMPLATE}])
    assert again[0]["metadata"]["labels"]["pod-template-hash"] == h
    other = {"spec": {"containers": [{"name": "c", "image": "y"}]}}
    changed = expand_workload([{"kind": "Deployment", "name": "web", "podTemplate": other}])
    assert changed[0]["metadata"]["labels"]["pod-template-hash"] != h


def test_pods_given_as_pods_and_pod_groups_have_no_controller_added():
    pod = {"kind": "Pod", "metadata": {"name": "p"}, **TEMPLATE}
    assert "ownerReferences" not in expand_workload([pod])[0]["metadata"]
    group = expand_workload(
        [{"kind": "PodGroup", "name": "g", "replicas": 2, "podTemplate": TEMPLATE}]
    )
    assert all("ownerReferences" not in p["metadata"] for p in group)
