"""NodeDeclaredFeatures (upstream nodedeclaredfeatures/nodedeclaredfeatures_test.go and
component-helpers nodedeclaredfeatures inference)."""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import nodedeclaredfeatures as ndf
from tests.engine.builders import make_node, make_pod

UNSATISFIED = Status(
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't match Pod's required features"
)
SKIP = Status(Code.SKIP)
RESTART_ALL = "RestartAllContainersOnContainerExits"
USERNS_HOSTNET = "UserNamespacesHostNetworkSupport"


def _restart_rule(action: str = "RestartAllContainers") -> dict[str, Any]:
    return {
        "name": "c",
        "image": "image",
        "restartPolicy": "Never",
        "restartPolicyRules": [{"action": action, "exitCodes": {"operator": "In", "values": [1]}}],
    }


def _node(*features: str) -> NodeInfo:
    b = make_node("node-1")
    if features:
        b.set("status.declaredFeatures", list(features))
    return NodeInfo(b.node())


INFER_CASES = [
    ("plain_pod_needs_nothing", make_pod("p"), frozenset()),
    (
        "init_container_restart_all_rule",
        make_pod("p").set("spec.initContainers", [_restart_rule()]),
        frozenset({RESTART_ALL}),
    ),
    (
        "container_restart_all_rule",
        make_pod("p").set("spec.containers", [_restart_rule()]),
        frozenset({RESTART_ALL}),
    ),
    (
        "other_restart_action",
        make_pod("p").set("spec.containers", [_restart_rule("Restart")]),
        frozenset(),
    ),
    (
        "host_network_with_user_namespace",
        make_pod("p").set("spec.hostNetwork", True).set("spec.hostUsers", False),
        frozenset({USERNS_HOSTNET}),
    ),
    ("host_network_with_host_users", make_pod("p").set("spec.hostNetwork", True), frozenset()),
    (
        "user_namespace_without_host_network",
        make_pod("p").set("spec.hostUsers", False),
        frozenset(),
    ),
    (
        "both_features",
        make_pod("p")
        .set("spec.hostNetwork", True)
        .set("spec.hostUsers", False)
        .set("spec.containers", [_restart_rule()]),
        frozenset({RESTART_ALL, USERNS_HOSTNET}),
    ),
    (
        "resize_features_are_for_updates_only",
        make_pod("p").set("spec.resources", {"requests": {"cpu": "1"}}),
        frozenset(),
    ),
]


@pytest.mark.parametrize(
    ("pod", "want"), [c[1:] for c in INFER_CASES], ids=[c[0] for c in INFER_CASES]
)
def test_infer_for_pod_scheduling(pod, want) -> None:
    assert ndf.infer_for_pod_scheduling(pod.pod()) == want


def test_prefilter_skips_pods_without_requirements() -> None:
    state = CycleState()
    assert ndf.new({}, None).pre_filter(state, make_pod("p").pod(), []) == (None, SKIP)  # type: ignore[arg-type]
    assert state.get("PreFilterNodeDeclaredFeatures") is None


def test_prefilter_skips_when_disabled() -> None:
    pod = make_pod("p").set("spec.containers", [_restart_rule()]).pod()
    assert ndf.NodeDeclaredFeatures(enabled=False).pre_filter(CycleState(), pod, []) == (None, SKIP)


FILTER_CASES = [
    ("node_has_the_feature", (RESTART_ALL, USERNS_HOSTNET), [RESTART_ALL], None),
    ("node_lacks_the_feature", (USERNS_HOSTNET,), [RESTART_ALL], UNSATISFIED),
    ("node_declares_nothing", (), [RESTART_ALL], UNSATISFIED),
    ("node_has_some_but_not_all", (RESTART_ALL,), [RESTART_ALL, USERNS_HOSTNET], UNSATISFIED),
    (
        "unknown_declared_features_are_ignored",
        ("AAAUnknown", RESTART_ALL, "ZZZUnknown"),
        [RESTART_ALL],
        None,
    ),
]


def _pod_needing(features: list[str]):
    b = make_pod("p")
    if RESTART_ALL in features:
        b.set("spec.containers", [_restart_rule()])
    if USERNS_HOSTNET in features:
        b.set("spec.hostNetwork", True).set("spec.hostUsers", False)
    return b.pod()


@pytest.mark.parametrize(
    ("declared", "needs", "want"), [c[1:] for c in FILTER_CASES], ids=[c[0] for c in FILTER_CASES]
)
def test_filter(declared, needs, want) -> None:
    plugin = ndf.new({}, None)  # type: ignore[arg-type]
    pod = _pod_needing(needs)
    state = CycleState()
    assert plugin.pre_filter(state, pod, []) == (None, None)
    assert plugin.filter(state, pod, _node(*declared)) == want


def test_filter_without_prefilter_state_is_an_error() -> None:
    got = ndf.NodeDeclaredFeatures().filter(CycleState(), make_pod("p").pod(), _node())
    assert got is not None and got.code == Code.ERROR


def test_disabled_filter_passes() -> None:
    got = ndf.NodeDeclaredFeatures(enabled=False).filter(CycleState(), make_pod("p").pod(), _node())
    assert got is None


def test_registered_features_sorted() -> None:
    assert ndf.REGISTERED_FEATURES == (
        "ExtendWebSocketsToKubelet",
        "InPlacePodLevelResourcesVerticalScaling",
        "InPlacePodVerticalScalingInitContainers",
        RESTART_ALL,
        USERNS_HOSTNET,
    )


def test_node_feature_set_reads_a_sorted_list_like_upstream_try_map() -> None:
    assert ndf.node_feature_set([RESTART_ALL, USERNS_HOSTNET]) == {RESTART_ALL, USERNS_HOSTNET}
    assert ndf.node_feature_set(["Nope", USERNS_HOSTNET]) == {USERNS_HOSTNET}
