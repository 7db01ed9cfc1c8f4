"""Every invalid configuration is rejected with upstream's wording and field path.

Wording: pkg/scheduler/apis/config/validation (validation.go, validation_pluginargs.go),
component-base config validation, and the framework's errors (runtime/framework.go).
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.config import load_config, validate_config
from scheduler_engine.errors import ConfigError

from .config_helpers import ksc


def args(name: str, a: Any) -> dict[str, Any]:
    return ksc(profiles=[{"pluginConfig": [{"name": name, "args": a}]}])


def plugins(p: dict[str, Any]) -> dict[str, Any]:
    return ksc(profiles=[{"plugins": p}])


FIT = "profiles[0].pluginConfig[0].args"

CASES = [
    # -- decoding: apiVersion/kind, unknown fields, wrong types
    (
        "wrong-api-version",
        {"apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": "KubeSchedulerConfiguration"},
        "apiVersion",
        'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3"',
    ),
    ("missing-kind", {"apiVersion": "kubescheduler.config.k8s.io/v1"}, "kind", "Required value"),
    ("missing-api-version", {"kind": "KubeSchedulerConfiguration"}, "apiVersion", "Required value"),
    (
        "wrong-kind",
        {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "Pod"},
        "kind",
        'no kind "Pod" is registered',
    ),
    ("unknown-top-level-field", ksc(foo=1), "foo", 'unknown field "foo"'),
    (
        "unknown-profile-field",
        ksc(profiles=[{"schedulerNam": "x"}]),
        "profiles[0].schedulerNam",
        'unknown field "schedulerNam"',
    ),
    (
        "field-names-are-case-sensitive",
        ksc(Parallelism=4),
        "Parallelism",
        'unknown field "Parallelism"',
    ),
    (
        "unknown-plugin-set",
        plugins({"normalizeScore": {}}),
        "profiles[0].plugins.normalizeScore",
        'unknown field "normalizeScore"',
    ),
    (
        "unknown-plugin-field",
        plugins({"score": {"enabled": [{"name": "ImageLocality", "wieght": 2}]}}),
        "profiles[0].plugins.score.enabled[0].wieght",
        'unknown field "wieght"',
    ),
    (
        "unknown-leader-election-field",
        ksc(leaderElection={"leaderElec": False}),
        "leaderElection.leaderElec",
        "unknown field",
    ),
    (
        "unknown-args-field",
        args("NodeResourcesFit", {"scoringStrategy": {"typ": "MostAllocated"}}),
        f"{FIT}.scoringStrategy.typ",
        'unknown field "typ"',
    ),
    (
        "args-of-another-kind",
        args("NodeResourcesFit", {"kind": "InterPodAffinityArgs"}),
        f"{FIT}.kind",
        "args for plugin NodeResourcesFit were not of type NodeResourcesFitArgs.kubescheduler.config.k8s.io, got InterPodAffinityArgs",
    ),
    (
        "weight-not-a-number",
        plugins({"score": {"enabled": [{"name": "ImageLocality", "weight": "high"}]}}),
        "profiles[0].plugins.score.enabled[0].weight",
        "cannot unmarshal string into Go value of type int32",
    ),
    (
        "weight-beyond-int32",
        plugins({"score": {"enabled": [{"name": "ImageLocality", "weight": 2**31}]}}),
        "profiles[0].plugins.score.enabled[0].weight",
        "cannot unmarshal number 2147483648 into Go value of type int32",
    ),
    (
        "profiles-not-a-list",
        ksc(profiles={"a": 1}),
        "profiles",
        "cannot unmarshal object into Go value of type []struct",
    ),
    (
        "bad-duration",
        ksc(leaderElection={"leaseDuration": "15 seconds"}),
        "leaderElection.leaseDuration",
        'time: unknown unit " seconds" in duration "15 seconds"',
    ),
    # -- ValidateKubeSchedulerConfiguration
    (
        "parallelism-zero",
        ksc(parallelism=0),
        "parallelism",
        "Invalid value: 0: should be an integer value greater than zero",
    ),
    (
        "percentage-above-100",
        ksc(percentageOfNodesToScore=101),
        "percentageOfNodesToScore",
        "Invalid value: 101: not in valid range [0-100]",
    ),
    (
        "profile-percentage-negative",
        ksc(profiles=[{"percentageOfNodesToScore": -1}]),
        "profiles[0].percentageOfNodesToScore",
        "Invalid value: -1: not in valid range [0-100]",
    ),
    (
        "initial-backoff-zero",
        ksc(podInitialBackoffSeconds=0),
        "podInitialBackoffSeconds",
        "Invalid value: 0: must be greater than 0",
    ),
    (
        "max-backoff-below-initial",
        ksc(podInitialBackoffSeconds=5, podMaxBackoffSeconds=2),
        "podMaxBackoffSeconds",
        "Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds",
    ),
    (
        "scheduler-name-required-with-several-profiles",
        ksc(profiles=[{"schedulerName": "a"}, {}]),
        "profiles[1].schedulerName",
        "Required value",
    ),
    (
        "duplicate-scheduler-name",
        ksc(profiles=[{"schedulerName": "a"}, {"schedulerName": "a"}]),
        "profiles[1].schedulerName",
        'Duplicate value: "a"',
    ),
    (
        "queue-sort-differs",
        ksc(
            profiles=[
                {"schedulerName": "a"},
                {"schedulerName": "b", "plugins": {"queueSort": {"disabled": [{"name": "*"}]}}},
            ]
        ),
        "profiles[1].plugins.queueSort",
        "must be the same for all profiles",
    ),
    (
        "two-queue-sorts",
        plugins({"queueSort": {"enabled": [{"name": "PrioritySort"}, {"name": "Other"}]}}),
        "profiles[0].plugins.queueSort.Enabled",
        "Invalid value: 2: only one queue sort plugin can be enabled",
    ),
    (
        "removed-plugin",
        plugins({"filter": {"enabled": [{"name": "EBSLimits"}]}}),
        "profiles[0].plugins.filter.enabled[0]",
        'Invalid value: "EBSLimits": was invalid in version "kubescheduler.config.k8s.io/v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1")',
    ),
    (
        "duplicate-plugin-config",
        ksc(profiles=[{"pluginConfig": [{"name": "NodeAffinity"}, {"name": "NodeAffinity"}]}]),
        "profiles[0].pluginConfig[1]",
        'Duplicate value: "NodeAffinity"',
    ),
    (
        "leader-election-lock-not-leases",
        ksc(leaderElection={"resourceLock": "endpoints"}),
        "leaderElection.resourceLock",
        'Invalid value: "endpoints": resourceLock value must be "leases"',
    ),
    (
        "lease-not-longer-than-renew",
        ksc(leaderElection={"leaseDuration": "5s", "renewDeadline": "10s"}),
        "leaderElection.leaseDuration",
        'Invalid value: "10s": must be greater than `RenewDeadline`',
    ),
    (
        "negative-burst",
        ksc(clientConnection={"burst": -1}),
        "clientConnection.burst",
        "Invalid value: -1: must be non-negative",
    ),
    (
        "extender-without-weight",
        ksc(extenders=[{"urlPrefix": "http://x", "prioritizeVerb": "p"}]),
        "extenders[0].weight",
        "Invalid value: 0: must have a positive weight applied to it",
    ),
    (
        "two-binding-extenders",
        ksc(extenders=[{"urlPrefix": "a", "bindVerb": "b"}, {"urlPrefix": "c", "bindVerb": "b"}]),
        "extenders",
        'Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
    ),
    (
        "extender-native-resource",
        ksc(extenders=[{"urlPrefix": "a", "managedResources": [{"name": "cpu"}]}]),
        "extenders[0].managedResources[0].name",
        'Invalid value: "cpu": is an invalid extended resource name',
    ),
    # -- plugin args
    (
        "hard-pod-affinity-weight",
        args("InterPodAffinity", {"hardPodAffinityWeight": 101}),
        f"{FIT}.hardPodAffinityWeight",
        "Invalid value: 101: not in valid range [0, 100]",
    ),
    (
        "preemption-percentage",
        args("DefaultPreemption", {"minCandidateNodesPercentage": 120}),
        f"{FIT}.minCandidateNodesPercentage",
        "Invalid value: 120: not in valid range [0, 100]",
    ),
    (
        "preemption-absolute",
        args("DefaultPreemption", {"minCandidateNodesAbsolute": -1}),
        f"{FIT}.minCandidateNodesAbsolute",
        "Invalid value: -1: not in valid range [0, inf)",
    ),
    (
        "preemption-both-zero",
        args(
            "DefaultPreemption", {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}
        ),
        f"{FIT}.minCandidateNodesPercentage",
        "Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute",
    ),
    (
        "scoring-strategy-type",
        args("NodeResourcesFit", {"scoringStrategy": {"type": "Spread"}}),
        f"{FIT}.scoringStrategy.type",
        'Unsupported value: "Spread": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
    ),
    (
        "scoring-strategy-without-type",
        args("NodeResourcesFit", {"scoringStrategy": {"resources": [{"name": "cpu"}]}}),
        f"{FIT}.scoringStrategy.type",
        'Unsupported value: ""',
    ),
    (
        "fit-resource-weight",
        args(
            "NodeResourcesFit",
            {
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "resources": [{"name": "cpu", "weight": 101}],
                }
            },
        ),
        f"{FIT}.scoringStrategy.resources[0].weight",
        "Invalid value: 101: resource weight of cpu not in valid range (0, 100]",
    ),
    (
        "rtc-without-shape-param",
        args("NodeResourcesFit", {"scoringStrategy": {"type": "RequestedToCapacityRatio"}}),
        f"{FIT}.scoringStrategy.requestedToCapacityRatio",
        "Required value: must be specified when type is RequestedToCapacityRatio",
    ),
    (
        "rtc-empty-shape",
        args(
            "NodeResourcesFit",
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {},
                }
            },
        ),
        f"{FIT}.scoringStrategy.requestedToCapacityRatio.shape",
        "Required value: at least one point must be specified",
    ),
    (
        "rtc-shape-not-increasing",
        args(
            "NodeResourcesFit",
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {
                        "shape": [{"utilization": 50, "score": 1}, {"utilization": 50, "score": 2}]
                    },
                }
            },
        ),
        f"{FIT}.scoringStrategy.requestedToCapacityRatio.shape[1].utilization",
        "Invalid value: 50: values must be sorted in increasing order",
    ),
    (
        "rtc-shape-utilization-range",
        args(
            "NodeResourcesFit",
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {"shape": [{"utilization": 101, "score": 1}]},
                }
            },
        ),
        f"{FIT}.scoringStrategy.requestedToCapacityRatio.shape[0].utilization",
        "Invalid value: 101: not in valid range [0, 100]",
    ),
    (
        "rtc-shape-score-range",
        args(
            "NodeResourcesFit",
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {"shape": [{"utilization": 10, "score": 11}]},
                }
            },
        ),
        f"{FIT}.scoringStrategy.requestedToCapacityRatio.shape[0].score",
        "Invalid value: 11: not in valid range [0, 10]",
    ),
    (
        "shape-with-other-strategy",
        args(
            "NodeResourcesFit",
            {
                "scoringStrategy": {
                    "type": "MostAllocated",
                    "requestedToCapacityRatio": {"shape": [{"utilization": 10, "score": 1}]},
                }
            },
        ),
        f"{FIT}.scoringStrategy.requestedToCapacityRatio",
        "Forbidden: must be nil when type is not RequestedToCapacityRatio",
    ),
    (
        "ignored-resource-group-with-slash",
        args("NodeResourcesFit", {"ignoredResourceGroups": ["example.com/gpu"]}),
        f"{FIT}.ignoredResourceGroups[0]",
        "resource group name can't contain '/'",
    ),
    (
        "ignored-resource-bad-name",
        args("NodeResourcesFit", {"ignoredResources": ["-bad"]}),
        f"{FIT}.ignoredResources[0]",
        'Invalid value: "-bad": name part must consist of alphanumeric characters',
    ),
    (
        "balanced-allocation-weight",
        args("NodeResourcesBalancedAllocation", {"resources": [{"name": "cpu", "weight": 2}]}),
        f"{FIT}.resources[0].weight",
        "Invalid value: 2: must be 1",
    ),
    (
        "balanced-allocation-duplicate",
        args("NodeResourcesBalancedAllocation", {"resources": [{"name": "cpu"}, {"name": "cpu"}]}),
        f"{FIT}.resources[1].name",
        'Duplicate value: "cpu"',
    ),
    (
        "spread-defaulting-type",
        args("PodTopologySpread", {"defaultingType": "Auto"}),
        f"{FIT}.defaultingType",
        'Unsupported value: "Auto": supported values: "System", "List"',
    ),
    (
        "spread-system-with-constraints",
        args(
            "PodTopologySpread",
            {
                "defaultConstraints": [
                    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
                ]
            },
        ),
        f"{FIT}.defaultingType",
        'Invalid value: "System": when .defaultConstraints are not empty',
    ),
    (
        "spread-max-skew",
        args(
            "PodTopologySpread",
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
                ],
            },
        ),
        f"{FIT}.defaultConstraints[0].maxSkew",
        "Invalid value: 0: not in valid range (0, inf)",
    ),
    (
        "spread-empty-topology-key",
        args(
            "PodTopologySpread",
            {
                "defaultingType": "List",
                "defaultConstraints": [{"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}],
            },
        ),
        f"{FIT}.defaultConstraints[0].topologyKey",
        "Required value: can not be empty",
    ),
    (
        "spread-when-unsatisfiable",
        args(
            "PodTopologySpread",
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Maybe"}
                ],
            },
        ),
        f"{FIT}.defaultConstraints[0].whenUnsatisfiable",
        'Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
    ),
    (
        "spread-label-selector",
        args(
            "PodTopologySpread",
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {},
                    }
                ],
            },
        ),
        f"{FIT}.defaultConstraints[0].labelSelector",
        "Forbidden: constraint must not define a selector, as they deduced for each pod",
    ),
    (
        "spread-duplicate-constraint",
        args(
            "PodTopologySpread",
            {
                "defaultingType": "List",
                "defaultConstraints": [
                    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
                    {"maxSkew": 2, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"},
                ],
            },
        ),
        f"{FIT}.defaultConstraints[1]",
        'Duplicate value: "{zone, DoNotSchedule}"',
    ),
    (
        "volume-binding-timeout",
        args("VolumeBinding", {"bindTimeoutSeconds": -1}),
        f"{FIT}.bindTimeoutSeconds",
        "Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value",
    ),
    (
        "volume-binding-shape-without-gate",
        args("VolumeBinding", {"shape": [{"utilization": 0, "score": 0}]}),
        f"{FIT}.shape",
        "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring",
    ),
    (
        "dra-binding-timeout",
        args("DynamicResources", {"bindingTimeout": "500ms"}),
        f"{FIT}.bindingTimeout",
        'Invalid value: "500ms": must be at least 1 second',
    ),
    (
        "dra-filter-timeout",
        args("DynamicResources", {"filterTimeout": "-1s"}),
        f"{FIT}.filterTimeout",
        'Invalid value: "-1s": must be zero or positive',
    ),
    (
        "added-affinity-operator",
        args(
            "NodeAffinity",
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "a", "operator": "Equals", "values": ["b"]}
                                ]
                            }
                        ]
                    }
                }
            },
        ),
        f"{FIT}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator",
        'Unsupported value: "Equals": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
    ),
    (
        "added-affinity-in-without-values",
        args(
            "NodeAffinity",
            {
                "addedAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "a", "operator": "In"}]}
                        ]
                    }
                }
            },
        ),
        f"{FIT}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values",
        "Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    ),
    (
        "added-affinity-match-fields",
        args(
            "NodeAffinity",
            {
                "addedAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 1,
                            "preference": {
                                "matchFields": [
                                    {"key": "metadata.name", "operator": "In", "values": ["a", "b"]}
                                ]
                            },
                        }
                    ]
                }
            },
        ),
        f"{FIT}.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0].values",
        'Invalid value: ["a","b"]: must have one element',
    ),
    # -- the framework (NewFramework)
    (
        "unknown-plugin-at-a-point",
        plugins({"filter": {"enabled": [{"name": "Foo"}]}}),
        "profiles[0].plugins.filter.enabled[0]",
        'FilterPlugin "Foo" does not exist',
    ),
    (
        "unknown-plugin-in-multipoint",
        plugins({"multiPoint": {"enabled": [{"name": "Foo"}]}}),
        "profiles[0].plugins.multiPoint.enabled[0]",
        'PreFilterPlugin "Foo" does not exist',
    ),
    (
        "plugin-at-a-point-it-does-not-implement",
        plugins({"filter": {"enabled": [{"name": "ImageLocality"}]}}),
        "profiles[0].plugins.filter.enabled[0]",
        'plugin "ImageLocality" does not extend FilterPlugin plugin',
    ),
    (
        "plugin-twice-at-a-point",
        plugins({"filter": {"enabled": [{"name": "NodeName"}, {"name": "NodeName"}]}}),
        "profiles[0].plugins.filter.enabled[1]",
        'plugin "NodeName" already registered as "FilterPlugin"',
    ),
    (
        "no-queue-sort",
        plugins({"multiPoint": {"disabled": [{"name": "PrioritySort"}]}}),
        "profiles[0].plugins.queueSort",
        'only one queue sort plugin required for profile with scheduler name "default-scheduler", but got 0',
    ),
    (
        "no-bind",
        plugins({"multiPoint": {"disabled": [{"name": "DefaultBinder"}]}}),
        "profiles[0].plugins.bind",
        'at least one bind plugin is needed for profile with scheduler name "default-scheduler"',
    ),
]


@pytest.mark.parametrize(
    ("doc", "field", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_it_rejects_invalid_configuration_naming_the_field(
    doc: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(ConfigError) as exc:
        load_config(doc)
    err = exc.value
    assert err.field == field
    assert message in err.message
    assert err.obj == "KubeSchedulerConfiguration"
    assert "\n" not in str(err)
    assert str(err).startswith(f"KubeSchedulerConfiguration: {field}: ")


def test_validate_config_reports_every_validation_error() -> None:
    errs = validate_config(
        ksc(parallelism=0, percentageOfNodesToScore=101, podInitialBackoffSeconds=0)
    )
    assert [e.field for e in errs] == [
        "parallelism",
        "percentageOfNodesToScore",
        "podInitialBackoffSeconds",
    ]


def test_validate_config_is_empty_for_a_valid_configuration() -> None:
    assert validate_config(None) == []


def test_args_for_a_plugin_that_is_not_enabled_are_still_validated_at_config_time() -> None:
    doc = ksc(
        profiles=[
            {
                "plugins": {"multiPoint": {"disabled": [{"name": "InterPodAffinity"}]}},
                "pluginConfig": [
                    {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 200}}
                ],
            }
        ]
    )
    with pytest.raises(ConfigError, match="not in valid range"):
        load_config(doc)


def test_fit_args_are_only_checked_when_the_plugin_is_built() -> None:
    # validation.go keys its table by "NodeResourcesFitArgs", so only NewFit checks these args
    doc = ksc(
        profiles=[
            {
                "plugins": {"multiPoint": {"disabled": [{"name": "NodeResourcesFit"}]}},
                "pluginConfig": [
                    {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Spread"}}}
                ],
            }
        ]
    )
    cfg = load_config(doc)
    assert "NodeResourcesFit" not in cfg.profiles[0].plugin_args


def test_args_of_out_of_tree_plugins_are_kept_as_given() -> None:
    caps = {
        "PrioritySort": frozenset({"queueSort"}),
        "DefaultBinder": frozenset({"bind"}),
        "Gpu": frozenset({"filter"}),
    }
    doc = ksc(
        profiles=[
            {
                "plugins": {
                    "multiPoint": {
                        "disabled": [{"name": "*"}],
                        "enabled": [
                            {"name": "PrioritySort"},
                            {"name": "DefaultBinder"},
                            {"name": "Gpu"},
                        ],
                    }
                },
                "pluginConfig": [{"name": "Gpu", "args": {"anything": [1, 2]}}],
            }
        ]
    )
    assert load_config(doc, capabilities=caps).profiles[0].plugin_args["Gpu"] == {
        "anything": [1, 2]
    }


def test_a_multipoint_plugin_unknown_everywhere_disabled_is_never_looked_up() -> None:
    disabled_everywhere = {
        p: {"disabled": [{"name": "*"}]}
        for p in (
            "preEnqueue",
            "preFilter",
            "filter",
            "postFilter",
            "preScore",
            "score",
            "reserve",
            "permit",
            "preBind",
            "postBind",
            "placementGenerate",
            "placementScore",
        )
    }
    doc = plugins(
        {
            **disabled_everywhere,
            "multiPoint": {"enabled": [{"name": "Foo"}]},
            "queueSort": {"disabled": [{"name": "*"}], "enabled": [{"name": "PrioritySort"}]},
            "bind": {"disabled": [{"name": "*"}], "enabled": [{"name": "DefaultBinder"}]},
        }
    )
    prof = load_config(doc).profiles[0]
    assert [r.name for r in prof.enabled("bind")] == ["DefaultBinder"]
