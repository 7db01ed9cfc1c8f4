"""The default configuration resolves exactly like kube-scheduler v1.36's default profile.

Expected lists: pkg/scheduler/apis/config/testing/defaults (ExpandedPluginsV1).
"""

from __future__ import annotations

import pytest

from scheduler_engine.config import (
    DEFAULT_MULTIPOINT,
    default_config,
    load_config,
)

from .config_helpers import EXPECTED, EXPECTED_SCORE, ksc, names, weighted


@pytest.mark.parametrize("point", sorted(EXPECTED))
def test_default_profile_orders_plugins_like_upstream(point: str) -> None:
    prof = default_config().profiles[0]
    assert names(prof.enabled(point)) == EXPECTED[point]


def test_default_profile_scores_with_upstream_weights() -> None:
    assert weighted(default_config().profiles[0].enabled("score")) == EXPECTED_SCORE


def test_default_profile_places_with_node_resources_fit() -> None:
    prof = default_config().profiles[0]
    assert weighted(prof.enabled("placementScore")) == [("NodeResourcesFit", 1)]
    assert prof.enabled("placementGenerate") == ()


def test_default_multipoint_puts_dynamic_resources_before_preemption_and_node_declared_features_last() -> (
    None
):
    order = [n for n, _ in DEFAULT_MULTIPOINT]
    assert order.index("DynamicResources") == order.index("DefaultPreemption") - 1
    assert order[-1] == "NodeDeclaredFeatures"
    assert "GangScheduling" not in order  # alpha gate, off by default in v1.36


@pytest.mark.parametrize(
    "source",
    [None, ksc(), ksc(profiles=[]), ksc(profiles=[{}]), ksc(profiles=[{"plugins": None}])],
    ids=["none", "empty-document", "empty-profiles", "empty-profile", "null-plugins"],
)
def test_it_defaults_to_one_default_scheduler_profile(source: object) -> None:
    cfg = load_config(source)  # type: ignore[arg-type]
    assert [p.scheduler_name for p in cfg.profiles] == ["default-scheduler"]
    assert names(cfg.profiles[0].enabled("filter")) == EXPECTED["filter"]


def test_it_defaults_the_global_settings() -> None:
    cfg = default_config()
    assert cfg.parallelism == 16
    assert cfg.percentage_of_nodes_to_score == 0
    assert cfg.pod_initial_backoff_seconds == 1
    assert cfg.pod_max_backoff_seconds == 10
    assert cfg.profiles[0].percentage_of_nodes_to_score is None


def test_it_gives_default_args_to_every_enabled_plugin_with_an_args_kind() -> None:
    args = default_config().profiles[0].plugin_args
    assert sorted(args) == [
        "DefaultPreemption",
        "DynamicResources",
        "InterPodAffinity",
        "NodeAffinity",
        "NodeResourcesBalancedAllocation",
        "NodeResourcesFit",
        "PodTopologySpread",
        "VolumeBinding",
    ]
    assert args["DefaultPreemption"] == {
        "minCandidateNodesPercentage": 10,
        "minCandidateNodesAbsolute": 100,
    }
    assert args["InterPodAffinity"] == {
        "hardPodAffinityWeight": 1,
        "ignorePreferredTermsOfExistingPods": False,
    }
    assert args["NodeResourcesFit"] == {
        "scoringStrategy": {
            "type": "LeastAllocated",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        }
    }
    assert args["NodeResourcesBalancedAllocation"] == {
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
    }
    assert args["PodTopologySpread"] == {"defaultingType": "System"}
    assert args["VolumeBinding"] == {"bindTimeoutSeconds": 600}
    assert args["DynamicResources"] == {"filterTimeout": "10s", "bindingTimeout": "10m0s"}
    assert args["NodeAffinity"] == {}
