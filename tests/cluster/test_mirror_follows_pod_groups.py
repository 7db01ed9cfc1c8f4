"""Native PodGroups and Workloads (scheduling.k8s.io/v1alpha2) are mirrored where the cluster serves them."""

from __future__ import annotations

from typing import Any

from dashboard.cluster.kinds import KINDS_BY_GROUP_KIND, KINDS_BY_KIND
from dashboard.cluster.models import Cluster, PriorityClass
from tests.support.mirror import wait_until, wait_watching

VERSION = "scheduling.k8s.io/v1alpha2"


def pod_group(name: str, min_count: int) -> dict[str, Any]:
    return {
        "apiVersion": VERSION,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "train"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }


def workload(name: str) -> dict[str, Any]:
    return {
        "apiVersion": VERSION,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "train"},
        "spec": {
            "podGroupTemplates": [
                {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}}
            ]
        },
    }


def _stored(kind: str, cluster: Cluster) -> dict[str, dict]:
    return {r.name: r.obj for r in KINDS_BY_KIND[kind].rows().filter(cluster=cluster)}


def test_it_mirrors_pod_groups_and_workloads(kube, live_cluster, start_mirror):
    kube.apply(pod_group("llm", 4))
    kube.apply(workload("llm"))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    wait_until(lambda: "llm" in _stored("PodGroup", live_cluster), what="the PodGroup stored")
    wait_until(lambda: "llm" in _stored("Workload", live_cluster), what="the Workload stored")
    kube.apply(pod_group("llm", 8))
    wait_until(
        lambda: (
            _stored("PodGroup", live_cluster)["llm"]["spec"]["schedulingPolicy"]["gang"]["minCount"]
            == 8
        ),
        what="the PodGroup updated",
    )
    kube.delete("PodGroup", "llm", namespace="train")
    wait_until(lambda: not _stored("PodGroup", live_cluster), what="the PodGroup deleted")


def test_a_cluster_without_the_alpha_version_mirrors_the_rest(kube, live_cluster, start_mirror):
    kube.disable_group(VERSION)
    kube.apply(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high"},
            "value": 1000,
        }
    )
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    wait_until(
        lambda: (
            sorted(Cluster.objects.get(pk=live_cluster.pk).unavailable_kinds)
            == ["podgroups", "workloads"]
        ),
        what="the alpha kinds marked unavailable",
    )
    wait_until(lambda: PriorityClass.objects.filter(cluster=live_cluster, name="high").exists())


COSCHEDULING = "scheduling.x-k8s.io/v1alpha1"


def coscheduling_group(name: str, min_member: int) -> dict[str, Any]:
    return {
        "apiVersion": COSCHEDULING,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "train"},
        "spec": {"minMember": min_member},
    }


def test_coscheduling_pod_groups_are_mirrored_beside_native_ones(kube, live_cluster, start_mirror):
    cos = KINDS_BY_GROUP_KIND[("scheduling.x-k8s.io", "PodGroup")]
    native = KINDS_BY_GROUP_KIND[("scheduling.k8s.io", "PodGroup")]

    def stored(spec) -> dict[str, dict]:
        return {r.name: r.obj for r in spec.rows().filter(cluster=live_cluster)}

    # the same namespace and name in both APIs: two objects, neither overwrites the other
    kube.apply(pod_group("llm", 4))
    kube.apply(coscheduling_group("llm", 16))
    start_mirror(live_cluster)
    wait_watching(live_cluster)
    wait_until(lambda: "llm" in stored(cos), what="the Coscheduling PodGroup stored")
    wait_until(lambda: "llm" in stored(native), what="the native PodGroup stored")
    assert stored(cos)["llm"]["spec"] == {"minMember": 16}
    assert stored(native)["llm"]["spec"]["schedulingPolicy"]["gang"]["minCount"] == 4
    kube.delete("PodGroup", "llm", namespace="train", api_version=COSCHEDULING)
    wait_until(lambda: not stored(cos), what="the Coscheduling PodGroup deleted")
    assert "llm" in stored(native)
