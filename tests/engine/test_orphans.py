"""Pending pods nobody will schedule: each reason, and what is not one."""

from __future__ import annotations

from typing import Any

from scheduler_engine import build_cluster
from scheduler_engine.orphans import (
    CLAIM_MISSING,
    CLAIM_NOT_CREATED,
    CLAIM_TEMPLATE_MISSING,
    GATE_NOBODY_REMOVES,
    POD_GROUP_MISSING,
    UNKNOWN_SCHEDULER,
    find_orphans,
    orphans_in_cluster,
)
from tests.engine.builders import cluster_objects, make_node, make_pod

SERVED = {"default-scheduler"}


def _orphans(*objs: Any, served: set[str] = SERVED, gates: tuple[str, ...] = ()) -> list[Any]:
    raw = cluster_objects(*objs)
    pods = [o for o in raw if o["kind"] == "Pod"]
    others = [o for o in raw if o["kind"] != "Pod"]
    kw = {"gate_controllers": gates} if gates else {}
    return find_orphans(pods, others, served_schedulers=served, **kw)


def _obj(api: str, kind: str, name: str, ns: str = "default") -> dict[str, Any]:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns}}


def test_a_scheduler_name_no_profile_serves_is_an_orphan():
    [o] = _orphans(make_pod("v").scheduler("volcano"))
    assert (o.pod, o.reason, o.field, o.value) == (
        "default/v",
        UNKNOWN_SCHEDULER,
        "spec.schedulerName",
        "volcano",
    )
    assert "known: default-scheduler" in o.message


def test_a_declared_scheduler_serves_its_pods():
    assert _orphans(make_pod("v").scheduler("volcano"), served={*SERVED, "volcano"}) == []


def test_running_and_finished_pods_are_never_orphans():
    running = make_pod("r").scheduler("volcano").node("n1")
    done = make_pod("d").scheduler("volcano").phase("Succeeded")
    assert _orphans(running, done) == []


def test_a_gate_nobody_removes_is_named():
    [o] = _orphans(make_pod("g").gate("kueue.x-k8s.io/admission").gate("example.com/hold"))
    assert (o.reason, o.field, o.value) == (
        GATE_NOBODY_REMOVES,
        "spec.schedulingGates[1].name",
        "example.com/hold",
    )


def test_a_known_gate_is_not_an_orphan_and_a_star_matches_a_prefix():
    assert _orphans(make_pod("g").gate("example.com/hold"), gates=("example.com/*",)) == []
    assert _orphans(make_pod("g").gate("example.com/hold"), gates=("example.com/hold",)) == []
    assert len(_orphans(make_pod("g").gate("example.org/hold"), gates=("example.com/*",))) == 1


def test_a_missing_coscheduling_pod_group_is_an_orphan():
    pod = make_pod("w").labels({"scheduling.x-k8s.io/pod-group": "train"})
    [o] = _orphans(pod)
    assert (o.reason, o.field, o.value) == (
        POD_GROUP_MISSING,
        "metadata.labels[scheduling.x-k8s.io/pod-group]",
        "train",
    )
    assert "scheduling.x-k8s.io" in o.message
    group = _obj("scheduling.x-k8s.io/v1alpha1", "PodGroup", "train")
    assert _orphans(pod, group) == []
    # the native kind of the same name does not count for the label
    native = _obj("scheduling.k8s.io/v1alpha2", "PodGroup", "train")
    assert [o.reason for o in _orphans(pod, native)] == [POD_GROUP_MISSING]


def test_a_missing_native_pod_group_is_an_orphan():
    pod = make_pod("w").set("spec.schedulingGroup", {"podGroupName": "infer"})
    [o] = _orphans(pod, _obj("scheduling.x-k8s.io/v1alpha1", "PodGroup", "infer"))
    assert (o.reason, o.field, o.value) == (
        POD_GROUP_MISSING,
        "spec.schedulingGroup.podGroupName",
        "infer",
    )
    assert _orphans(pod, _obj("scheduling.k8s.io/v1alpha2", "PodGroup", "infer")) == []
    # same name in another namespace does not count
    assert len(_orphans(pod, _obj("scheduling.k8s.io/v1alpha2", "PodGroup", "infer", "x"))) == 1


def test_a_missing_claim_template_means_its_claim_is_never_created():
    pod = make_pod("c").resource_claim("gpu", template="one-gpu")
    [o] = _orphans(pod)
    assert (o.reason, o.field, o.value) == (
        CLAIM_TEMPLATE_MISSING,
        "spec.resourceClaims[0].resourceClaimTemplateName",
        "one-gpu",
    )
    template = _obj("resource.k8s.io/v1", "ResourceClaimTemplate", "one-gpu")
    # the template exists but no claim was recorded in the pod's status
    assert [o.reason for o in _orphans(pod, template)] == [CLAIM_NOT_CREATED]


def test_claims_made_or_not_needed_are_not_orphans():
    template = _obj("resource.k8s.io/v1", "ResourceClaimTemplate", "one-gpu")
    claim = _obj("resource.k8s.io/v1", "ResourceClaim", "c-gpu-abcde")
    made = make_pod("c").resource_claim("gpu", template="one-gpu")
    made.set("status.resourceClaimStatuses", [{"name": "gpu", "resourceClaimName": "c-gpu-abcde"}])
    assert _orphans(made, template, claim) == []
    # the claim it names is gone
    assert [o.reason for o in _orphans(made, template)] == [CLAIM_MISSING]
    # the controller said no claim was needed
    unneeded = make_pod("u").resource_claim("gpu", template="gone")
    unneeded.set("status.resourceClaimStatuses", [{"name": "gpu"}])
    assert _orphans(unneeded) == []


def test_a_pod_with_several_reasons_gets_each():
    pod = (
        make_pod("all")
        .scheduler("volcano")
        .gate("example.com/hold")
        .resource_claim("gpu", template="missing")
    )
    reasons = [o.reason for o in _orphans(pod)]
    assert reasons == [UNKNOWN_SCHEDULER, GATE_NOBODY_REMOVES, CLAIM_TEMPLATE_MISSING]


def test_orphans_in_a_parsed_cluster_use_the_profiles_and_declarations():
    cluster = build_cluster(
        cluster_objects(
            make_node("n1").cap(cpu="4", memory="8Gi", pods=10),
            make_pod("v").scheduler("volcano"),
            make_pod("y").scheduler("yunikorn"),
            make_pod("ok"),
        )
    )
    found = orphans_in_cluster(cluster, ["default-scheduler"], declared_schedulers=["volcano"])
    assert [(o.pod, o.reason) for o in found] == [("default/y", UNKNOWN_SCHEDULER)]


def test_declarations_are_checked_as_the_api_server_checks_the_pod_fields():
    from scheduler_engine.orphans import declaration_errors

    assert (
        declaration_errors(["volcano", "yunikorn"], ["kueue.x-k8s.io/admission", "ex.com/*"]) == {}
    )
    errors = declaration_errors(["Volcano"], ["bad gate", "*", 3])
    assert set(errors) == {
        "declaredSchedulers[0]",
        "gateControllers[0]",
        "gateControllers[1]",
        "gateControllers[2]",
    }
    assert declaration_errors("volcano", []) == {
        "declaredSchedulers": ["must be a list of strings"]
    }
