"""NodeResourceTopologyMatch Score and args, with the cases of scheduler-plugins' score_test.go."""

from __future__ import annotations

import pytest

from scheduler_engine import ConfigError, load_config
from scheduler_engine.framework.registry import default_registry

from .nrt_helpers import CPU, MEMORY, Harness, guaranteed, node_for, nrt, res, zone

GPU = "gpu"


def default_numa_nodes(policy):
    return [
        nrt(
            "node1",
            policy,
            zone(0, res(CPU, "4", "4"), res(MEMORY, "500Mi", "500Mi")),
            zone(1, res(CPU, "4", "4"), res(MEMORY, "500Mi", "500Mi")),
        ),
        nrt(
            "node2",
            policy,
            zone(0, res(CPU, "2", "2"), res(MEMORY, "50Mi", "50Mi")),
            zone(1, res(CPU, "2", "2"), res(MEMORY, "50Mi", "50Mi")),
        ),
        nrt(
            "node3",
            policy,
            zone(0, res(CPU, "6", "6"), res(MEMORY, "60Mi", "60Mi")),
            zone(1, res(CPU, "6", "6"), res(MEMORY, "60Mi", "60Mi")),
        ),
    ]


def _costs(i):
    near = {0: 1, 1: 0, 2: 3, 3: 2}[i]
    return {j: 10 if j == i else 12 if j == near else 20 for j in range(4)}


def four_numa_nodes():
    def node(name, gpus):
        return nrt(
            name,
            "BestEffortContainerLevel",
            *[
                zone(
                    i,
                    res(CPU, "2", "2"),
                    res(MEMORY, "50Mi", "50Mi"),
                    res(GPU, str(g), str(g)),
                    costs=_costs(i),
                )
                for i, g in enumerate(gpus)
            ],
        )

    return [node("node1", [1, 1, 0, 0]), node("node2", [1, 0, 1, 0])]


POD1 = guaranteed({CPU: "2", MEMORY: str(20 * 1024 * 1024)})


def scores(topologies, pod_obj, args, nodes=None):
    nodes = nodes or [node_for(t) for t in topologies]
    h = Harness(topologies, args, nodes=nodes)
    return {n["metadata"]["name"]: h.score(pod_obj, n["metadata"]["name"]) for n in nodes}


def best(node_scores):
    top = max(node_scores.values())
    [node] = [n for n, s in node_scores.items() if s == top]
    return node, top


@pytest.mark.parametrize(
    ("strategy", "want"),
    [
        ("MostAllocated", ("node2", 70)),
        ("BalancedAllocation", ("node3", 100)),
        ("LeastAllocated", ("node1", 73)),
    ],
)
def test_node_resource_score_plugin(strategy, want):
    got = scores(
        default_numa_nodes("SingleNUMANodeContainerLevel"),
        POD1,
        {"scoringStrategy": {"type": strategy}},
    )
    assert best(got) == want


@pytest.mark.parametrize(
    ("strategy", "only_node1", "want"),
    [
        ("MostAllocated", False, {}),
        ("LeastAllocated", False, {}),
        ("BalancedAllocation", False, {}),
        ("MostAllocated", True, {"node1": 27}),
        ("LeastAllocated", True, {"node1": 73}),
        ("BalancedAllocation", True, {"node1": 89}),
    ],
)
def test_node_resource_partial_data_score_plugin(strategy, only_node1, want):
    topologies = default_numa_nodes("SingleNUMANodeContainerLevel")
    nodes = [node_for(t) for t in topologies]
    present = [t for t in topologies if only_node1 and t["metadata"]["name"] == "node1"]
    got = scores(present, POD1, {"scoringStrategy": {"type": strategy}}, nodes=nodes)
    # a node without NRT data scores 0
    for name, s in got.items():
        if name not in want:
            assert s == 0
    for name, s in want.items():
        assert best(got) == (name, s)


def _pod(*reqs):
    return guaranteed(*reqs)


def _r(cpu, mem="50Mi", gpu=None):
    r = {CPU: cpu, MEMORY: mem}
    if gpu:
        r[GPU] = gpu
    return r


BE_C, BE_P = "BestEffortContainerLevel", "BestEffortPodLevel"
LEAST_NUMA = [
    (
        "container scope, one container case 1",
        [_r("2")],
        {"node1": 94, "node2": 94, "node3": 94},
        BE_C,
    ),
    (
        "container scope, one container case 2",
        [_r("4")],
        {"node1": 94, "node2": 82, "node3": 94},
        BE_C,
    ),
    (
        "container scope, one container case 3",
        [_r("6")],
        {"node1": 82, "node2": 0, "node3": 94},
        BE_C,
    ),
    (
        "container scope, two containers case 1",
        [_r("2"), _r("2")],
        {"node1": 94, "node2": 94, "node3": 94},
        BE_C,
    ),
    (
        "container scope, two containers case 2",
        [_r("1"), _r("3")],
        {"node1": 94, "node2": 82, "node3": 94},
        BE_C,
    ),
    (
        "container scope, two containers case 3",
        [_r("5"), _r("3")],
        {"node1": 82, "node2": 0, "node3": 94},
        BE_C,
    ),
    (
        "container scope, two containers non NUMA resource",
        [{"non-numa-resource": "1"}, {"non-numa-resource": "2"}],
        {"node1": 100, "node2": 100, "node3": 100},
        BE_C,
    ),
    (
        "pod scope, two containers case 1",
        [_r("2"), _r("2")],
        {"node1": 94, "node2": 82, "node3": 82},
        BE_P,
    ),
    (
        "pod scope, two containers case 2",
        [_r("1"), _r("3")],
        {"node1": 94, "node2": 82, "node3": 82},
        BE_P,
    ),
    (
        "pod scope, two containers case 3",
        [_r("5"), _r("3")],
        {"node1": 82, "node2": 0, "node3": 82},
        BE_P,
    ),
    (
        "pod scope, one containers non NUMA resource",
        [{"non-numa-resource": "1"}],
        {"node1": 100, "node2": 100, "node3": 100},
        BE_P,
    ),
]


@pytest.mark.parametrize(
    ("name", "containers", "want", "policy"), LEAST_NUMA, ids=[c[0] for c in LEAST_NUMA]
)
def test_node_resource_score_plugin_least_numa(name, containers, want, policy):
    got = scores(
        default_numa_nodes(policy),
        _pod(*containers),
        {"scoringStrategy": {"type": "LeastNUMANodes"}},
    )
    assert got == want


@pytest.mark.parametrize(
    ("name", "containers", "want"),
    [
        (
            "container scope, one container, 4 NUMA nodes, 1 gpu",
            [_r("2", gpu="1")],
            {"node1": 94, "node2": 94},
        ),
        (
            "container scope, one container, 4 NUMA nodes, 2 gpu",
            [_r("2", gpu="2")],
            {"node1": 82, "node2": 76},
        ),
        (
            "container scope, 2 containers, 4 NUMA nodes, 2 gpu in one container",
            [_r("2", gpu="2"), _r("2")],
            {"node1": 82, "node2": 76},
        ),
    ],
)
def test_least_numa_prefers_close_numa_nodes(name, containers, want):
    got = scores(
        four_numa_nodes(), _pod(*containers), {"scoringStrategy": {"type": "LeastNUMANodes"}}
    )
    assert got == want


def test_non_guaranteed_pods_score_max_and_other_policies_zero():
    topologies = default_numa_nodes("SingleNUMANodeContainerLevel")
    burstable = guaranteed({CPU: "2"})
    assert set(scores(topologies, burstable, {}).values()) == {100}
    be = default_numa_nodes("BestEffortContainerLevel")
    assert set(scores(be, POD1, {"scoringStrategy": {"type": "MostAllocated"}}).values()) == {0}


def _config(args):
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"multiPoint": {"enabled": [{"name": "NodeResourceTopologyMatch"}]}},
                "pluginConfig": [{"name": "NodeResourceTopologyMatch", "args": args}],
            }
        ],
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"scoringStrategy": {"type": "Biggest"}},
            'profiles[0].pluginConfig[0].args.scoringStrategy.type: Invalid value: "Biggest": '
            "invalid ScoringStrategyType",
        ),
        (
            {"preemptionMode": "Sometimes"},
            'profiles[0].pluginConfig[0].args.preemptionMode: Invalid value: "Sometimes": '
            "invalid PreemptionMode",
        ),
    ],
)
def test_bad_args_are_named_by_field(args, message):
    with pytest.raises(ConfigError) as exc:
        load_config(_config(args), **default_registry().config_kwargs())
    assert message in str(exc.value)


def test_args_are_defaulted_as_upstream():
    cfg = load_config(_config({}), **default_registry().config_kwargs())
    args = cfg.profiles[0].plugin_args["NodeResourceTopologyMatch"]
    assert args["scoringStrategy"] == {
        "type": "LeastAllocated",
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
    }
    assert args["preemptionMode"] == "Disabled"
    assert args["cache"] == {
        "foreignPodsDetect": "All",
        "resyncMethod": "Autodetect",
        "informerMode": "Dedicated",
    }
    points = {
        p
        for p in ("preFilter", "filter", "score", "reserve", "postBind")
        if any(r.name == "NodeResourceTopologyMatch" for r in cfg.profiles[0].enabled(p))
    }
    assert points == {"preFilter", "filter", "score", "reserve", "postBind"}
