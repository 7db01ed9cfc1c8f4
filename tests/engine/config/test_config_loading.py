"""Reading files, accepted upstream fields, args defaults, durations and dumping."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scheduler_engine.config import (
    config_to_dict,
    default_config,
    dump_config,
    effective_default_constraints,
    format_duration,
    load_config,
    load_config_text,
    parse_duration,
)
from scheduler_engine.config.types import PluginRef, ProfileConfig, SchedulerConfig
from scheduler_engine.errors import ConfigError

from .config_helpers import ksc, weighted

YAML = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /etc/kubernetes/scheduler.conf
leaderElection:
  leaderElect: false
percentageOfNodesToScore: 30
profiles:
  - schedulerName: gpu-scheduler
    plugins:
      score:
        enabled:
          - name: NodeResourcesFit
            weight: 5
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
            resources:
              - name: nvidia.com/gpu
                weight: 3
              - name: cpu
"""


def test_it_loads_a_yaml_file(tmp_path: Path) -> None:
    f = tmp_path / "sched.yaml"
    f.write_text(YAML)
    cfg = load_config(f)
    prof = cfg.profile("gpu-scheduler")
    assert prof is not None
    assert cfg.percentage_of_nodes_to_score == 30
    assert weighted(prof.enabled("score"))[0] == ("NodeResourcesFit", 5)
    assert prof.plugin_args["NodeResourcesFit"]["scoringStrategy"]["resources"] == [
        {"name": "nvidia.com/gpu", "weight": 3},
        {"name": "cpu", "weight": 1},
    ]
    # valid upstream fields that the engine does not use are kept in the source
    assert cfg.source is not None
    assert cfg.source["clientConnection"]["kubeconfig"] == "/etc/kubernetes/scheduler.conf"


def test_it_loads_json_text() -> None:
    cfg = load_config_text(json.dumps(ksc(parallelism=4)))
    assert cfg.parallelism == 4


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(YAML.replace("percentageOfNodesToScore: 30", "percentageOfNodesToScore: 300"))
    with pytest.raises(ConfigError) as exc:
        load_config(f)
    assert str(exc.value) == (
        f"{f}: KubeSchedulerConfiguration: percentageOfNodesToScore: "
        "Invalid value: 300: not in valid range [0-100]"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [1, 2\n", "not valid YAML"),
        ("", "expected exactly one KubeSchedulerConfiguration document, found 0"),
        ("a: 1\n---\nb: 2\n", "found 2"),
    ],
    ids=["broken-yaml", "empty", "two-documents"],
)
def test_unparseable_text_is_one_line_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as exc:
        load_config_text(text, file="cfg.yaml")
    assert exc.value.file == "cfg.yaml"
    assert message in exc.value.message
    assert "\n" not in str(exc.value)


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.yaml")


def test_yaml_alias_bombs_are_refused() -> None:
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\n" + "".join(f"c{i}: [*b, *b]\n" for i in range(120))
    with pytest.raises(ConfigError, match="aliases"):
        load_config_text(bomb)


def test_every_upstream_top_level_field_is_accepted() -> None:
    doc = ksc(
        parallelism=8,
        leaderElection={
            "leaderElect": True,
            "leaseDuration": "20s",
            "renewDeadline": "15s",
            "retryPeriod": "3s",
            "resourceLock": "leases",
            "resourceName": "sched",
            "resourceNamespace": "kube-system",
        },
        clientConnection={
            "kubeconfig": "k",
            "acceptContentTypes": "",
            "contentType": "",
            "qps": 10.5,
            "burst": 20,
        },
        enableProfiling=False,
        enableContentionProfiling=False,
        podInitialBackoffSeconds=2,
        podMaxBackoffSeconds=20,
        extenders=[
            {
                "urlPrefix": "http://ext",
                "filterVerb": "filter",
                "httpTimeout": "5s",
                "managedResources": [{"name": "example.com/foo"}],
            }
        ],
        delayCacheUntilActive=True,
    )
    cfg = load_config(doc)
    assert (cfg.parallelism, cfg.pod_initial_backoff_seconds, cfg.pod_max_backoff_seconds) == (
        8,
        2,
        20,
    )


def test_null_values_are_treated_as_unset() -> None:
    cfg = load_config(
        ksc(parallelism=None, profiles=[{"schedulerName": None, "plugins": {"score": None}}])
    )
    assert cfg.parallelism == 16
    assert cfg.profiles[0].scheduler_name == "default-scheduler"


ARGS_CASES = [
    (
        "fit-strategy-given-without-resources",
        "NodeResourcesFit",
        {"scoringStrategy": {"type": "MostAllocated"}},
        {
            "scoringStrategy": {
                "type": "MostAllocated",
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
            }
        },
    ),
    (
        "fit-zero-weight-means-one",
        "NodeResourcesFit",
        {
            "ignoredResourceGroups": ["example.com"],
            "scoringStrategy": {
                "type": "LeastAllocated",
                "resources": [{"name": "cpu", "weight": 0}],
            },
        },
        {
            "ignoredResourceGroups": ["example.com"],
            "scoringStrategy": {
                "type": "LeastAllocated",
                "resources": [{"name": "cpu", "weight": 1}],
            },
        },
    ),
    (
        "fit-requested-to-capacity-ratio",
        "NodeResourcesFit",
        {
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
                },
            }
        },
        {
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
                },
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
            }
        },
    ),
    (
        "balanced-allocation-custom-resources",
        "NodeResourcesBalancedAllocation",
        {"resources": [{"name": "nvidia.com/gpu"}]},
        {"resources": [{"name": "nvidia.com/gpu", "weight": 1}]},
    ),
    (
        "inter-pod-affinity-explicit-zero-kept",
        "InterPodAffinity",
        {"hardPodAffinityWeight": 0},
        {"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": False},
    ),
    (
        "preemption-partial",
        "DefaultPreemption",
        {"minCandidateNodesAbsolute": 5},
        {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 5},
    ),
    (
        "spread-list",
        "PodTopologySpread",
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                }
            ],
        },
        {
            "defaultingType": "List",
            "defaultConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                }
            ],
        },
    ),
    ("spread-empty-args", "PodTopologySpread", {}, {"defaultingType": "System"}),
    (
        "volume-binding-timeout",
        "VolumeBinding",
        {"bindTimeoutSeconds": 30},
        {"bindTimeoutSeconds": 30},
    ),
    (
        "dra-timeouts-normalised",
        "DynamicResources",
        {"filterTimeout": "1m", "bindingTimeout": "90s"},
        {"filterTimeout": "1m0s", "bindingTimeout": "1m30s"},
    ),
    (
        "args-type-meta-dropped",
        "InterPodAffinity",
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "InterPodAffinityArgs",
            "ignorePreferredTermsOfExistingPods": True,
        },
        {"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": True},
    ),
    (
        "node-affinity-added-affinity",
        "NodeAffinity",
        {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["gpu"]}]}
                    ]
                }
            }
        },
        {
            "addedAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["gpu"]}]}
                    ]
                }
            }
        },
    ),
]


@pytest.mark.parametrize(
    ("plugin", "given", "want"), [c[1:] for c in ARGS_CASES], ids=[c[0] for c in ARGS_CASES]
)
def test_plugin_args_are_defaulted_like_upstream(
    plugin: str, given: dict[str, Any], want: dict[str, Any]
) -> None:
    cfg = load_config(ksc(profiles=[{"pluginConfig": [{"name": plugin, "args": given}]}]))
    assert cfg.profiles[0].plugin_args[plugin] == want


def test_system_default_spread_constraints() -> None:
    assert effective_default_constraints({"defaultingType": "System"}) == (
        {
            "maxSkew": 3,
            "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "ScheduleAnyway",
        },
        {
            "maxSkew": 5,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "ScheduleAnyway",
        },
    )
    assert effective_default_constraints({"defaultingType": "List"}) == ()


@pytest.mark.parametrize(
    ("text", "ns", "shown"),
    [
        ("10s", 10 * 10**9, "10s"),
        ("600s", 600 * 10**9, "10m0s"),
        ("1.5h", 5400 * 10**9, "1h30m0s"),
        ("300ms", 300 * 10**6, "300ms"),
        ("-1s", -(10**9), "-1s"),
        ("0", 0, "0s"),
        ("1m30.5s", 90_500_000_000, "1m30.5s"),
    ],
)
def test_go_durations_round_trip(text: str, ns: int, shown: str) -> None:
    assert parse_duration(text) == ns
    assert format_duration(ns) == shown


def test_dump_config_writes_the_defaulted_v1_document() -> None:
    doc = dump_config(default_config())
    assert doc["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert doc["leaderElection"]["resourceLock"] == "leases"
    assert doc["clientConnection"]["qps"] == 50.0
    prof = doc["profiles"][0]
    assert prof["schedulerName"] == "default-scheduler"
    assert prof["plugins"]["multiPoint"]["enabled"][4] == {"name": "TaintToleration", "weight": 3}
    fit = next(pc for pc in prof["pluginConfig"] if pc["name"] == "NodeResourcesFit")
    assert fit["args"]["kind"] == "NodeResourcesFitArgs"


def test_dumped_config_loads_back_to_the_same_resolution() -> None:
    cfg = load_config_text(YAML)
    again = load_config(dump_config(cfg))
    assert config_to_dict(again)["profiles"] == config_to_dict(cfg)["profiles"]


def test_a_config_built_in_code_dumps_with_explicit_points() -> None:
    prof = ProfileConfig(
        scheduler_name="tiny",
        plugins={
            "queueSort": (PluginRef("PrioritySort"),),
            "filter": (PluginRef("NodeName"),),
            "score": (PluginRef("ImageLocality", 4),),
            "bind": (PluginRef("DefaultBinder"),),
        },
    )
    cfg = SchedulerConfig(profiles=(prof,))
    again = load_config(dump_config(cfg)).profiles[0]
    assert [r.name for r in again.enabled("filter")] == ["NodeName"]
    assert weighted(again.enabled("score")) == [("ImageLocality", 4)]
    assert again.enabled("preEnqueue") == ()


def test_config_to_dict_is_json_serialisable() -> None:
    data = config_to_dict(default_config())
    assert json.loads(json.dumps(data)) == data
    assert data["profiles"][0]["plugins"]["queueSort"] == [{"name": "PrioritySort", "weight": 0}]


def test_loading_does_not_mutate_the_given_mapping() -> None:
    doc = ksc(profiles=[{"pluginConfig": [{"name": "InterPodAffinity", "args": {}}]}])
    before = json.dumps(doc, sort_keys=True)
    load_config(doc)
    assert json.dumps(doc, sort_keys=True) == before
