"""Which pods a profile can sign, and which pods sign alike (upstream v1.36 ``SignPod``).

Facts from each plugin's ``SignPod`` and ``kube-scheduler/framework/signers.go``;
the default profile signs no pod at all, which keeps OpportunisticBatching
inert there.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.config import load_config
from scheduler_engine.framework.build import new_framework
from scheduler_engine.framework.handle import SimulationContext
from scheduler_engine.framework.registry import default_registry
from scheduler_engine.framework.runtime import Framework
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.objects import Pod
from tests.engine.builders import cluster_objects, make_node, make_pod
from tests.engine.fakes import Fake, build_framework

NO_SPREAD = {"plugins": {"multiPoint": {"disabled": [{"name": "PodTopologySpread"}]}}}


def framework(
    profile: dict[str, Any] | None = None, objects: list[dict[str, Any]] = ()
) -> Framework:
    doc = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", **(profile or {})}],
    }
    reg = default_registry()
    cfg = load_config(doc, **reg.config_kwargs())
    cluster = build_cluster(list(objects))
    snap = Snapshot(cluster.nodes, cluster.running_pods, cluster.namespaces)
    ctx = SimulationContext(cluster, snap, random.Random(0))
    return new_framework(cfg.profiles[0], reg, ctx)


def pod(builder: Any = None, **spec: Any) -> Pod:
    obj = (builder or make_pod("p")).obj()
    obj["spec"].update(spec)
    return build_cluster([obj]).pods[0]


def spread_args(**args: Any) -> dict[str, Any]:
    return {"pluginConfig": [{"name": "PodTopologySpread", "args": args}]}


# -- which profiles and pods are signable ----------------------------------------------
def test_the_default_profile_signs_no_pod() -> None:
    # PodTopologySpread's system default constraints refuse every pod, whatever its owner:
    # known when the profile is built, so no pod is ever signed
    fwk = framework()
    assert fwk.signers is None
    assert fwk.sign_pod(pod()) is None


def test_pod_topology_spread_alone_refuses_pods_in_the_default_profile() -> None:
    spread = framework().plugins["PodTopologySpread"]
    fragments, status = spread.sign_pod(pod())
    assert fragments == [] and status is not None and status.is_rejected()


def test_list_defaulting_with_no_default_constraints_signs_a_pod_without_constraints() -> None:
    fwk = framework(spread_args(defaultingType="List"))
    assert fwk.sign_pod(pod()) is not None


def test_list_defaulting_with_default_constraints_signs_no_pod() -> None:
    c = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}
    fwk = framework(spread_args(defaultingType="List", defaultConstraints=[c]))
    assert fwk.sign_pod(pod()) is None


def test_a_pod_with_its_own_spread_constraints_is_unsignable() -> None:
    fwk = framework(spread_args(defaultingType="List"))
    c = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
    assert fwk.sign_pod(pod(topologySpreadConstraints=[c])) is None


def test_without_pod_topology_spread_the_pods_sign() -> None:
    assert framework(NO_SPREAD).sign_pod(pod()) is not None


@pytest.mark.parametrize("kind", ["podAffinity", "podAntiAffinity"])
def test_pod_affinity_makes_a_pod_unsignable(kind: str) -> None:
    assert framework(NO_SPREAD).sign_pod(pod(affinity={kind: {}})) is None


def test_resource_claims_make_a_pod_unsignable() -> None:
    claims = [{"name": "gpu", "resourceClaimName": "c"}]
    assert framework(NO_SPREAD).sign_pod(pod(resourceClaims=claims)) is None


def test_an_extended_resource_a_device_class_serves_makes_a_pod_unsignable() -> None:
    dc = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.example.com"},
        "spec": {"extendedResourceName": "example.com/gpu"},
    }
    gpu_pod = pod(make_pod("p").req(**{"example.com/gpu": "1"}))
    assert framework(NO_SPREAD, [dc]).sign_pod(gpu_pod) is None
    assert framework(NO_SPREAD).sign_pod(gpu_pod) is not None


def test_a_plugin_that_cannot_sign_turns_signatures_off_for_the_profile() -> None:
    fwk, _ = build_framework({"filter": ["NoSign"]}, [Fake("NoSign", filter=None)])
    assert fwk.signers is None
    assert fwk.sign_pod(pod()) is None


def test_a_plugin_that_signs_joins_the_signature() -> None:
    signer = Fake("Signs", filter=None, sign_pod=lambda p: ([("k", p.name)], None))
    fwk, _ = build_framework({"filter": ["Signs"]}, [signer])
    assert fwk.sign_pod(pod(make_pod("a"))) != fwk.sign_pod(pod(make_pod("b")))


# -- which pods sign alike ---------------------------------------------------------------
def same(a: Pod, b: Pod, profile: dict[str, Any] | None = None) -> bool:
    fwk = framework(profile or NO_SPREAD)
    sa, sb = fwk.sign_pod(a), fwk.sign_pod(b)
    assert sa is not None and sb is not None
    return sa == sb


def test_pods_that_differ_only_in_name_sign_alike() -> None:
    assert same(pod(make_pod("a").req(cpu="1")), pod(make_pod("b").req(cpu="1")))


def test_requests_differ() -> None:
    assert not same(pod(make_pod("a").req(cpu="1")), pod(make_pod("a").req(cpu="2")))


def test_labels_count_while_existing_pods_preferred_terms_count() -> None:
    a, b = pod(make_pod("a").labels(app="x")), pod(make_pod("a").labels(app="y"))
    assert not same(a, b)
    ignore = {
        **NO_SPREAD,
        "pluginConfig": [
            {"name": "InterPodAffinity", "args": {"ignorePreferredTermsOfExistingPods": True}}
        ],
    }
    assert same(a, b, ignore)


def test_config_map_and_secret_volumes_and_volume_names_are_left_out() -> None:
    a = pod(volumes=[{"name": "cm", "configMap": {"name": "a"}}, {"name": "x", "emptyDir": {}}])
    b = pod(volumes=[{"name": "s", "secret": {"secretName": "b"}}, {"name": "y", "emptyDir": {}}])
    assert same(a, b)
    claim = {"name": "d", "persistentVolumeClaim": {"claimName": "data-0"}}
    other = {"name": "d", "persistentVolumeClaim": {"claimName": "data-1"}}
    assert not same(pod(volumes=[claim]), pod(volumes=[other]))


def test_toleration_order_by_key_does_not_matter() -> None:
    t1 = {"key": "a", "operator": "Exists"}
    t2 = {"key": "b", "operator": "Exists"}
    assert same(pod(tolerations=[t1, t2]), pod(tolerations=[t2, t1]))
    assert not same(pod(tolerations=[t1]), pod(tolerations=[t2]))


def test_node_affinity_values_and_terms_are_sorted() -> None:
    def aff(values: list[str]) -> dict[str, Any]:
        req = {"key": "zone", "operator": "In", "values": values}
        terms = [{"matchExpressions": [req]}]
        return {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}
            }
        }

    assert same(pod(affinity=aff(["a", "b"])), pod(affinity=aff(["b", "a"])))
    assert not same(pod(affinity=aff(["a"])), pod(affinity=aff(["b"])))


def test_node_selector_counts() -> None:
    assert not same(pod(nodeSelector={"zone": "a"}), pod(nodeSelector={"zone": "b"}))


def test_images_are_normalized_and_a_set() -> None:
    def images(*names: str) -> list[dict[str, Any]]:
        return [{"name": f"c{i}", "image": n} for i, n in enumerate(names)]

    assert same(
        pod(containers=images("nginx", "redis:7")),
        pod(containers=images("redis:7", "nginx:latest")),
    )
    assert not same(pod(containers=images("nginx:1")), pod(containers=images("nginx:2")))


def test_host_ports_are_a_sorted_set() -> None:
    def ports(*hps: int) -> list[dict[str, Any]]:
        return [
            {
                "name": "c",
                "image": "i",
                "ports": [{"containerPort": 80, "hostPort": h} for h in hps],
            }
        ]

    assert same(pod(containers=ports(80, 81)), pod(containers=ports(81, 80)))
    assert not same(pod(containers=ports(80)), pod(containers=ports(81)))


def test_scheduler_name_counts() -> None:
    fwk = framework(NO_SPREAD)
    a, b = pod(), pod(schedulerName="other")
    assert fwk.sign_pod(a) != fwk.sign_pod(b)


def test_the_same_cluster_state_does_not_enter_the_signature() -> None:
    # a signature reads the pod alone: nodes do not change it
    fwk_a = framework(NO_SPREAD, cluster_objects(make_node("n1")))
    fwk_b = framework(NO_SPREAD, cluster_objects(make_node("n2"), make_node("n3")))
    assert fwk_a.sign_pod(pod()) == fwk_b.sign_pod(pod())
