"""DefaultPreemption and the preemption evaluator, against upstream v1.36.

Cases are ported from upstream's ``default_preemption_test.go`` (TestPostFilter,
TestDryRunPreemption, TestSelectBestCandidate, TestPodEligibleToPreemptOthers,
TestPreempt) with their expected victims, nodes and messages; a few more pin
down behaviour upstream's tests leave implicit (PDB accounting, the order of
criteria, Go's ordering of pods without a start time).

Plugins run through the real framework runtime and handle; the handle only
counts filter runs, as upstream's tests count their fake filter's calls.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.config.types import PluginRef, ProfileConfig
from scheduler_engine.framework import CycleState, NodeInfo, NodeToStatus, Snapshot
from scheduler_engine.framework.handle import FrameworkHandle, SimulationContext
from scheduler_engine.framework.registry import Registry
from scheduler_engine.framework.runtime import Framework
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.objects import Pod
from scheduler_engine.objects.pod import parse_time
from scheduler_engine.plugins import defaultpreemption as dp
from scheduler_engine.plugins import interpodaffinity, podtopologyspread
from scheduler_engine.plugins.noderesources import fit
from scheduler_engine.preemption import (
    PodClock,
    Victims,
    fit_error_message,
    go_sort_slice,
    more_important_pod,
    pick_one_node_for_preemption,
)

from ..builders import make_node, make_pod

NOW = parse_time("2024-06-01T00:00:00Z")
assert NOW is not None

NEG, LOW, MID, HIGH, VERY_HIGH = -100, 0, 100, 1000, 10000
SMALL = {"cpu": "100m", "memory": "100"}
MEDIUM = {"cpu": "200m", "memory": "200"}
LARGE = {"cpu": "300m", "memory": "300"}
VERY_LARGE = {"cpu": "500m", "memory": "500"}


def epoch(n: int) -> str:
    """Distinct, ordered start times (upstream uses epoch + n nanoseconds)."""
    return f"2024-01-01T00:00:{n:02d}Z"


# -- test plugins (upstream's tf.FalseFilter and the "test-plugin") ---------------


class FalseFilter:
    NAME = "FalseFilter"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status(Code.UNSCHEDULABLE, "false")


class ErrorOnLabelledNodes:
    """A PreFilter whose extensions fail on nodes labelled ``error=true``."""

    NAME = "test-plugin"

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[None, None]:
        return None, None

    def pre_filter_extensions(self) -> ErrorOnLabelledNodes:
        return self

    def add_pod(
        self, state: CycleState, pod: Pod, other: Pod, node_info: NodeInfo
    ) -> Status | None:
        if node_info.node.labels.get("error") == "true":
            return Status(Code.ERROR, f"failed to add pod: {pod.name}")
        return None

    def remove_pod(
        self, state: CycleState, pod: Pod, other: Pod, node_info: NodeInfo
    ) -> Status | None:
        if node_info.node.labels.get("error") == "true":
            return Status(Code.ERROR, f"failed to remove pod: {pod.name}")
        return None


def _registry() -> Registry:
    reg = Registry()
    for mod in (fit, interpodaffinity, podtopologyspread, dp):
        reg.register_module(mod)
    reg.register("FalseFilter", lambda args, h: FalseFilter(), FalseFilter)
    reg.register("test-plugin", lambda args, h: ErrorOnLabelledNodes(), ErrorOnLabelledNodes)
    return reg


# -- the handle ----------------------------------------------------------------


class CountingHandle(FrameworkHandle):
    """The real handle, counting filter runs (upstream's tests count FakeFilter calls)."""

    filter_calls = 0

    def attach(self, fwk: Framework) -> None:
        super().attach(fwk)
        self.run_filter_plugins_with_nominated_pods = self._counted(
            fwk.run_filter_plugins_with_nominated_pods
        )
        self.refilter_with_nominated_pods = self._counted(fwk.refilter_with_nominated_pods)

    def _counted(
        self, run: Callable[[CycleState, Pod, NodeInfo], Status | None]
    ) -> Callable[[CycleState, Pod, NodeInfo], Status | None]:
        def counted(state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
            self.filter_calls += 1
            return run(state, pod, node_info)

        return counted

    @property
    def evicted(self) -> list[str]:
        return [e.victim.key for e in self.ctx.evictions]


class NonEvictingHandle:
    """A handle without ``evict``: victims are left to whoever reads the result."""

    def __init__(self, inner: CountingHandle) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in ("evict", "clear_nominated_node_name"):
            raise AttributeError(name)
        return getattr(self._inner, name)


def make_handle(
    objects: Sequence[Mapping[str, Any]],
    *,
    seed: int = 0,
    nominated: Mapping[str, Sequence[Pod]] | None = None,
) -> CountingHandle:
    cluster = build_cluster(objects)
    snapshot = Snapshot(cluster.nodes, cluster.running_pods, cluster.namespaces)
    ctx = SimulationContext(cluster, snapshot, random.Random(seed), clock=NOW, parallelism=1)
    for node_name, pods in (nominated or {}).items():
        for p in pods:
            ctx.nominate(p, node_name)
    return CountingHandle(ctx)


def setup(
    objects: Sequence[Mapping[str, Any]],
    *,
    filters: Sequence[str] = ("NodeResourcesFit",),
    pre_filters: Sequence[str] | None = None,
    args: Mapping[str, Any] | None = None,
    with_eviction: bool = True,
    **handle_kw: Any,
) -> tuple[CountingHandle, Framework, dp.DefaultPreemption]:
    handle = make_handle(objects, **handle_kw)
    if pre_filters is None:
        pre_filters = [f for f in filters if f not in ("FalseFilter",)]
    plugins = {
        "preFilter": tuple(PluginRef(n) for n in pre_filters),
        "filter": tuple(PluginRef(n) for n in filters),
        "postFilter": (PluginRef(dp.NAME),),
    }
    profile = ProfileConfig("default-scheduler", plugins, {dp.NAME: dict(args or {})})
    plugin_handle: Any = handle if with_eviction else NonEvictingHandle(handle)
    fw = Framework(profile, _registry(), plugin_handle)
    handle.attach(fw)
    return handle, fw, fw.plugins[dp.NAME]


def prefiltered(fw: Framework, pod: Pod) -> CycleState:
    state = CycleState()
    _, status, _ = fw.run_pre_filter_plugins(state, pod)
    assert status is None or status.code == Code.SUCCESS, status
    return state


def node(name: str, res: Mapping[str, str] | None = None, pods: int = 32, **labels: str):
    b = make_node(name).cap(pods=pods, **(res or {}))
    if labels:
        b.labels(labels)
    return b


def pod(name: str, prio: int | None = None, res: Mapping[str, str] | None = None):
    b = make_pod(name)
    if prio is not None:
        b.priority(prio)
    if res:
        b.req(**res)
    return b


def running(name: str, node_name: str, prio: int, res: Mapping[str, str] | None = None):
    return pod(name, prio, res).node(node_name)


def pdb(
    name: str,
    labels: Mapping[str, str] | None,
    allowed: int,
    disrupted: Sequence[str] = (),
    namespace: str = "default",
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if labels is not None:
        spec["selector"] = {"matchLabels": dict(labels)}
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
        "status": {
            "disruptionsAllowed": allowed,
            "disruptedPods": {p: "2024-01-01T00:00:00Z" for p in disrupted},
        },
    }


def objs(*items: Any) -> list[dict[str, Any]]:
    return [i.obj() if hasattr(i, "obj") else i for i in items]


def statuses(
    explicit: Mapping[str, Code], absent: Code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
) -> NodeToStatus:
    return NodeToStatus({n: Status(c) for n, c in explicit.items()}, Status(absent))


U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


# -- PostFilter (upstream TestPostFilter) -----------------------------------------

NODE_RES = {"cpu": "200m", "memory": "400"}

POST_FILTER_CASES = [
    pytest.param(
        pod("p", HIGH),
        [running("p1", "node1", 0), node("node1", pods=1)],
        {"node1": U},
        "node1",
        None,
        id="higher_priority_pod_can_be_made_schedulable",
    ),
    pytest.param(
        pod("p"),
        [running("p1", "node1", 0), node("node1", pods=1)],
        {"node1": U},
        "",
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
        id="tied_priority_is_still_unschedulable",
    ),
    pytest.param(
        pod("p", HIGH),
        [running("p1", "node1", 0), node("node1", pods=1)],
        {"node1": UU},
        "",
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        id="unresolvable_filter_status_is_respected",
    ),
    pytest.param(
        pod("p", HIGH),
        [running("p1", "node1", 0), node("node1", pods=1)],
        {},
        "",
        "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        id="absent_status_means_unresolvable",
    ),
    pytest.param(
        pod("p", MID),
        [
            running("p1", "node1", HIGH),
            running("p2", "node2", LOW),
            node("node1", pods=1),
            node("node2", pods=1),
        ],
        {"node1": U, "node2": U},
        "node2",
        None,
        id="schedulable_on_the_one_node_with_lower_priority_pods",
    ),
    pytest.param(
        pod("p", VERY_HIGH),
        [
            running("p1", "node1", HIGH).labels(pdb="non-violating"),
            running("p2", "node1", LOW).labels(pdb="violating"),
            running("p3", "node2", MID).labels(pdb="violating"),
            node("node1", pods=1),
            node("node2", pods=1),
            pdb("violating-pdb", {"pdb": "violating"}, 0),
            pdb("non-violating-pdb", {"pdb": "non-violating"}, 2**31 - 1),
        ],
        {"node1": U, "node2": U},
        "node2",
        None,
        id="min_highest_priority_node_is_picked_with_pdbs",
    ),
    pytest.param(
        pod("p", HIGH, LARGE),
        [
            running("p1", "node1", 0),
            running("p2", "node2", 0),
            node("node1", NODE_RES),
            node("node2", NODE_RES),
        ],
        {"node1": U, "node2": U},
        "",
        "preemption: 0/2 nodes are available: 2 Insufficient cpu.",
        id="no_room_even_after_removing_lower_priority_pods",
    ),
    pytest.param(
        pod("p", HIGH, LARGE),
        [
            running("p1", "node1", HIGH),
            running("p2", "node2", 0),
            running("p3", "node3", HIGH),
            node("node1", pods=1),
            node("node2", NODE_RES),
            node("node3", pods=1),
        ],
        {"node1": U, "node2": U, "node3": U},
        "",
        "preemption: 0/3 nodes are available: 1 Insufficient cpu, "
        "2 No preemption victims found for incoming pod.",
        id="mixed_reasons_no_victims_and_insufficient_cpu",
    ),
    pytest.param(
        pod("p", HIGH, LARGE),
        [
            running("p1", "node1", 0),
            running("p2", "node2", 0),
            node("node1", NODE_RES),
            node("node2", NODE_RES),
            node("node3", NODE_RES),
            node("node4", NODE_RES),
        ],
        {"node1": U, "node2": U, "node4": UU},
        "",
        "preemption: 0/4 nodes are available: 2 Insufficient cpu, "
        "2 Preemption is not helpful for scheduling.",
        id="unresolvable_and_absent_nodes_are_not_helpful",
    ),
    pytest.param(
        pod("p", HIGH).preemption_policy("Never"),
        [running("p1", "node1", 0), node("node1", pods=1)],
        {"node1": U},
        None,
        "preemption: not eligible due to preemptionPolicy=Never.",
        id="preemption_policy_never_is_not_eligible",
    ),
]


@pytest.mark.parametrize(
    ("preemptor", "cluster", "filtered", "want_node", "want_message"), POST_FILTER_CASES
)
def test_post_filter(
    preemptor: Any,
    cluster: list[Any],
    filtered: Mapping[str, Code],
    want_node: str | None,
    want_message: str | None,
) -> None:
    handle, fw, pl = setup(objs(*cluster))
    p = preemptor.pod()
    result, status = pl.post_filter(prefiltered(fw, p), p, statuses(filtered))
    if want_node is None:
        assert result is None
    else:
        assert result is not None and result.nominating_info is not None
        assert result.nominating_info.nominated_node_name == want_node
    if want_message is None:
        assert status is None
    else:
        assert status is not None and status.code == Code.UNSCHEDULABLE
        assert status.message() == want_message


def test_post_filter_error_of_a_prefilter_extension_is_reported() -> None:
    handle, fw, pl = setup(
        objs(
            running("p1", "node1", 0),
            node("node1", LARGE, error="true"),
            pod("p", HIGH, LARGE),
        ),
        pre_filters=("NodeResourcesFit", "test-plugin"),
    )
    p = pod("p", HIGH, LARGE).pod()
    result, status = pl.post_filter(prefiltered(fw, p), p, statuses({"node1": U}))
    assert result is None
    assert status is not None and status.code == Code.ERROR
    assert status.message() == (
        'preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p'
    )


def test_post_filter_error_on_one_node_does_not_stop_another() -> None:
    handle, fw, pl = setup(
        objs(
            running("p1", "node1", 0),
            running("p2", "node2", 0, MEDIUM),
            node("node1", LARGE, error="true"),
            node("node2", LARGE),
        ),
        pre_filters=("NodeResourcesFit", "test-plugin"),
    )
    p = pod("p", HIGH, LARGE).pod()
    result, status = pl.post_filter(prefiltered(fw, p), p, statuses({"node1": U, "node2": U}))
    assert status is None
    assert result is not None and result.nominating_info is not None
    assert result.nominating_info.nominated_node_name == "node2"
    assert [v.key for v in result.victims] == ["default/p2"]


# -- dry run (upstream TestDryRunPreemption) ------------------------------------


def _nodes(names: Sequence[str]) -> list[Any]:
    out = []
    for n in names:
        parts = n.split("/")
        labels = dict(zip(("hostname", "zone", "region"), parts, strict=False))
        out.append(node(parts[0], VERY_LARGE, **labels))
    return out


LIMIT_2 = {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 1}
FIVE = ["node1", "node2", "node3", "node4", "node5"]


def _spread_pod(name: str) -> Any:
    sel = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
    b = pod(name, HIGH).labels(foo="")
    for key in ("zone", "hostname"):
        b.set(
            "spec.topologySpreadConstraints",
            (b.obj()["spec"].get("topologySpreadConstraints") or [])
            + [
                {
                    "maxSkew": 1,
                    "topologyKey": key,
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": sel,
                }
            ],
        )
    return b


def _anti_affinity_exists(b: Any, key: str, topology: str) -> Any:
    return b.set(
        "spec.affinity",
        {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchExpressions": [{"key": key, "operator": "Exists"}]},
                        "topologyKey": topology,
                    }
                ]
            }
        },
    )


DRY_RUN_CASES = [
    pytest.param(
        ["FalseFilter"],
        ["node1", "node2"],
        [pod("p", HIGH)],
        [running("p1", "node1", MID), running("p2", "node2", MID)],
        [],
        None,
        [0],
        [{}],
        [2],
        id="pod_that_does_not_fit_on_any_node",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1", "node2"],
        [pod("p", HIGH, LARGE)],
        [running("p1", "node1", MID, LARGE), running("p2", "node2", MID, LARGE)],
        [],
        None,
        [0],
        [{"node1": (["p1"], 0), "node2": (["p2"], 0)}],
        [4],
        id="fits_on_both_nodes_when_lower_priority_pods_are_preempted",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1", "node2"],
        [pod("p", LOW, LARGE)],
        [running("p1", "node1", MID, LARGE), running("p2", "node2", MID, LARGE)],
        [],
        None,
        [0],
        [{}],
        [0],
        id="running_pods_of_higher_priority_are_never_victims",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1", "node2"],
        [pod("p", HIGH, LARGE)],
        [
            running("p1.1", "node1", LOW, SMALL),
            running("p1.2", "node1", MID, LARGE),
            running("p2", "node2", MID, LARGE),
        ],
        [],
        None,
        [0],
        [{"node1": (["p1.2"], 0), "node2": (["p2"], 0)}],
        [5],
        id="medium_priority_pod_is_preempted_small_lower_priority_one_stays",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1", "node2"],
        [pod("p", HIGH, LARGE)],
        [
            running("p1.1", "node1", MID, SMALL),
            running("p1.2", "node1", LOW, SMALL),
            running("p1.3", "node1", MID, MEDIUM),
            running("p1.4", "node1", HIGH, SMALL),
            running("p2", "node2", HIGH, LARGE),
        ],
        [],
        None,
        [0],
        [{"node1": (["p1.2", "p1.3"], 0)}],
        [4],
        id="mixed_priority_pods_are_preempted",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1", "node2"],
        [pod("p", HIGH, LARGE)],
        [
            running("p1.1", "node1", LOW, SMALL).set("status.startTime", epoch(5)),
            running("p1.2", "node1", LOW, SMALL).set("status.startTime", epoch(4)),
            running("p1.3", "node1", MID, MEDIUM).set("status.startTime", epoch(3)),
            running("p1.4", "node1", HIGH, SMALL).set("status.startTime", epoch(2)),
            running("p2", "node2", HIGH, LARGE).set("status.startTime", epoch(1)),
        ],
        [],
        None,
        [0],
        [{"node1": (["p1.1", "p1.3"], 0)}],
        [4],
        id="equal_priorities_preempt_the_later_started_pod",
    ),
    pytest.param(
        ["NodeResourcesFit", "InterPodAffinity"],
        ["node1", "node2"],
        [pod("p", HIGH, SMALL).labels(foo="")],
        [
            _anti_affinity_exists(
                running("p1.1", "node1", LOW, SMALL).labels(foo=""), "foo", "hostname"
            ),
            running("p1.2", "node1", MID, SMALL),
            running("p1.3", "node1", HIGH, SMALL),
            running("p2", "node2", HIGH, SMALL),
        ],
        [],
        None,
        [0],
        [{"node1": (["p1.1"], 0)}],
        [3],
        id="pod_with_anti_affinity_is_preempted",
    ),
    pytest.param(
        ["PodTopologySpread"],
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        [_spread_pod("p")],
        [
            running("pod-a1", "node-a", MID).labels(foo=""),
            running("pod-a2", "node-a", LOW).labels(foo=""),
            running("pod-b1", "node-b", LOW).labels(foo=""),
            running("pod-x1", "node-x", HIGH).labels(foo=""),
            running("pod-x2", "node-x", HIGH).labels(foo=""),
        ],
        [],
        None,
        [0],
        [{"node-a": (["pod-a2"], 0), "node-b": (["pod-b1"], 0)}],
        [5],
        id="preemption_resolves_a_topology_spread_failure",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1"],
        [pod("p", HIGH, VERY_LARGE)],
        [
            running("p1.1", "node1", MID, MEDIUM).labels(app="foo"),
            running("p1.2", "node1", MID, MEDIUM).labels(app="foo"),
        ],
        [pdb("pdb", {"app": "foo"}, 1)],
        None,
        [0],
        [{"node1": (["p1.1", "p1.2"], 1)}],
        [3],
        id="violation_of_the_same_pdb",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1"],
        [pod("p", HIGH, VERY_LARGE)],
        [
            running("p1.1", "node1", MID, MEDIUM).labels(app="foo"),
            running("p1.2", "node1", MID, MEDIUM).labels(app="foo"),
        ],
        [pdb("pdb", {"app": "foo"}, 1, disrupted=["p1.3"])],
        None,
        [0],
        [{"node1": (["p1.1", "p1.2"], 1)}],
        [3],
        id="pdb_violation_when_victims_are_not_in_disrupted_pods",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1"],
        [pod("p", HIGH, VERY_LARGE)],
        [
            running("p1.1", "node1", MID, MEDIUM).labels(app="foo"),
            running("p1.2", "node1", MID, MEDIUM).labels(app="foo"),
        ],
        [pdb("pdb", {"app": "foo"}, 1, disrupted=["p1.2"])],
        None,
        [0],
        [{"node1": (["p1.1", "p1.2"], 0)}],
        [3],
        id="no_pdb_violation_when_a_victim_is_in_disrupted_pods",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        ["node1"],
        [pod("p", HIGH, VERY_LARGE)],
        [
            running("p1.1", "node1", MID, MEDIUM).labels(app="foo"),
            running("p1.2", "node1", MID, MEDIUM).labels(app="foo"),
            running("p1.3", "node1", MID, MEDIUM).labels(app="foo"),
        ],
        [pdb("pdb", {"app": "foo"}, 1, disrupted=["p1.3"])],
        None,
        [0],
        [{"node1": (["p1.1", "p1.2", "p1.3"], 1)}],
        [4],
        id="disrupted_pod_counts_as_non_violating",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        FIVE,
        [pod("p", HIGH, LARGE)],
        [running(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6)],
        [],
        LIMIT_2,
        [4],
        [{"node1": (["p1"], 0), "node5": (["p5"], 0)}],
        [4],
        id="args_limit_candidates_to_two",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        FIVE,
        [pod("p", HIGH, LARGE)],
        [
            running("p1", "node1", MID, LARGE),
            running("p2", "node2", VERY_HIGH, LARGE),
            running("p3", "node3", MID, LARGE),
            running("p4", "node4", MID, LARGE),
            running("p5", "node5", VERY_HIGH, LARGE),
        ],
        [],
        LIMIT_2,
        [4],
        [{"node1": (["p1"], 0), "node3": (["p3"], 0)}],
        [4],
        id="args_limit_to_two_skipping_nodes_that_cannot_help",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        FIVE,
        [pod("tp1", HIGH, LARGE), pod("tp2", HIGH, LARGE), pod("tp3", HIGH, LARGE)],
        [running(f"p{i}", f"node{i}", MID, LARGE) for i in range(1, 6)],
        [],
        LIMIT_2,
        [4, 1, 3],
        [
            {"node1": (["p1"], 0), "node5": (["p5"], 0)},
            {"node2": (["p2"], 0), "node3": (["p3"], 0)},
            {"node4": (["p4"], 0), "node5": (["p5"], 0)},
        ],
        [4, 4, 4],
        id="offset_wraps_around_across_cycles",
    ),
    pytest.param(
        ["NodeResourcesFit"],
        FIVE,
        [pod("p", HIGH, LARGE)],
        [
            running("p1", "node1", MID, LARGE).labels(app="foo"),
            running("p2", "node2", MID, LARGE).labels(app="foo"),
            running("p3", "node3", MID, LARGE),
            running("p4", "node4", MID, LARGE),
            running("p5", "node5", MID, LARGE).labels(app="foo"),
        ],
        [pdb("pdb", {"app": "foo"}, 0)],
        {"minCandidateNodesPercentage": 40, "minCandidateNodesAbsolute": 2},
        [4],
        [{"node1": (["p1"], 1), "node3": (["p3"], 0), "node5": (["p5"], 1)}],
        [8],
        id="looks_past_num_candidates_for_a_pdb_respecting_node",
    ),
]


@pytest.mark.parametrize(
    (
        "filters",
        "node_names",
        "preemptors",
        "init_pods",
        "pdbs",
        "args",
        "offsets",
        "want",
        "calls",
    ),
    DRY_RUN_CASES,
)
def test_dry_run_preemption(
    filters: list[str],
    node_names: list[str],
    preemptors: list[Any],
    init_pods: list[Any],
    pdbs: list[dict[str, Any]],
    args: Mapping[str, Any] | None,
    offsets: list[int],
    want: list[dict[str, tuple[list[str], int]]],
    calls: list[int],
) -> None:
    handle, fw, pl = setup(objs(*_nodes(node_names), *init_pods, *pdbs), filters=filters, args=args)
    infos = sorted(handle.snapshot().node_info_list, key=lambda ni: ni.name)
    for cycle, b in enumerate(preemptors):
        p = b.pod()
        state = prefiltered(fw, p)
        _, num = pl.get_offset_and_num_candidates(len(infos))
        before = handle.filter_calls
        got, _, _ = pl.evaluator.dry_run_preemption(
            state, p, infos, handle.cluster.pdbs, offsets[cycle], num
        )
        assert {
            c.name: (sorted(v.name for v in c.victims.pods), c.victims.num_pdb_violations)
            for c in got
        } == want[cycle]
        assert handle.filter_calls - before == calls[cycle]


# -- choosing the node (upstream TestSelectBestCandidate) ------------------------

S = epoch(0)

SELECT_CASES = [
    pytest.param(
        ["node1", "node2"],
        pod("p", HIGH, LARGE),
        [("p1", "node1", MID, LARGE, S), ("p2", "node2", MID, LARGE, S)],
        {"node1", "node2"},
        id="either_node_when_both_fit_after_preemption",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        pod("p", HIGH, VERY_LARGE),
        [
            ("p1.1", "node1", MID, MEDIUM, S),
            ("p1.2", "node1", MID, LARGE, S),
            ("p2.1", "node2", MID, MEDIUM, S),
            ("p2.2", "node2", LOW, MEDIUM, S),
            ("p3.1", "node3", LOW, MEDIUM, S),
            ("p3.2", "node3", LOW, MEDIUM, S),
        ],
        {"node3"},
        id="node_with_min_highest_priority_victim",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        pod("p", HIGH, VERY_LARGE),
        [
            ("p1.1", "node1", MID, MEDIUM, S),
            ("p1.2", "node1", MID, LARGE, S),
            ("p2.1", "node2", MID, LARGE, S),
            ("p2.2", "node2", LOW, MEDIUM, S),
            ("p3.1", "node3", MID, MEDIUM, S),
            ("p3.2", "node3", MID, MEDIUM, S),
        ],
        {"node2"},
        id="same_highest_priority_min_sum_of_priorities",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        pod("p", HIGH, VERY_LARGE),
        [
            ("p1.1", "node1", MID, SMALL, S),
            ("p1.2", "node1", NEG, SMALL, S),
            ("p1.3", "node1", MID, SMALL, S),
            ("p1.4", "node1", NEG, SMALL, S),
            ("p2.1", "node2", MID, LARGE, S),
            ("p2.2", "node2", NEG, MEDIUM, S),
            ("p3.1", "node3", MID, MEDIUM, S),
            ("p3.2", "node3", NEG, SMALL, S),
            ("p3.3", "node3", LOW, SMALL, S),
        ],
        {"node2"},
        id="same_highest_priority_and_sum_fewest_victims",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        pod("p", HIGH, VERY_LARGE),
        [
            ("p1.1", "node1", MID, SMALL, S),
            ("p1.2", "node1", NEG, SMALL, S),
            ("p1.3", "node1", NEG, SMALL, S),
            ("p2.1", "node2", MID, LARGE, S),
            ("p2.2", "node2", NEG, MEDIUM, S),
            ("p3.1", "node3", MID, MEDIUM, S),
            ("p3.2", "node3", NEG, SMALL, S),
            ("p3.3", "node3", LOW, SMALL, S),
        ],
        {"node2"},
        id="sum_of_shifted_priorities_handles_negative_priorities",
    ),
    pytest.param(
        ["node1", "node2", "node3", "node4"],
        pod("p", VERY_HIGH, VERY_LARGE),
        [
            ("p1.1", "node1", MID, SMALL, S),
            ("p1.2", "node1", LOW, SMALL, S),
            ("p1.3", "node1", LOW, SMALL, S),
            ("p2.1", "node2", HIGH, LARGE, S),
            ("p3.1", "node3", MID, MEDIUM, S),
            ("p3.2", "node3", LOW, SMALL, S),
            ("p3.3", "node3", LOW, SMALL, S),
            ("p3.4", "node3", LOW, MEDIUM, S),
            ("p4.1", "node4", MID, MEDIUM, S),
            ("p4.2", "node4", MID, SMALL, S),
            ("p4.3", "node4", MID, SMALL, S),
            ("p4.4", "node4", NEG, SMALL, S),
        ],
        {"node1"},
        id="non_overlapping_criteria",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        pod("p", HIGH, VERY_LARGE),
        [
            ("p1.1", "node1", MID, MEDIUM, epoch(2)),
            ("p1.2", "node1", MID, MEDIUM, epoch(2)),
            ("p2.1", "node2", MID, MEDIUM, epoch(3)),
            ("p2.2", "node2", MID, MEDIUM, epoch(3)),
            ("p3.1", "node3", MID, MEDIUM, epoch(1)),
            ("p3.2", "node3", MID, MEDIUM, epoch(1)),
        ],
        {"node2"},
        id="latest_start_time_per_node",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        pod("p", HIGH, VERY_LARGE),
        [
            ("p1.1", "node1", MID, MEDIUM, epoch(4)),
            ("p1.2", "node1", MID, MEDIUM, epoch(2)),
            ("p2.1", "node2", MID, MEDIUM, epoch(5)),
            ("p2.2", "node2", MID, MEDIUM, epoch(1)),
            ("p3.1", "node3", MID, MEDIUM, epoch(3)),
            ("p3.2", "node3", MID, MEDIUM, epoch(6)),
        ],
        {"node3"},
        id="latest_earliest_start_time_across_all_pods",
    ),
    pytest.param(
        ["node1", "node2", "node3"],
        pod("p", HIGH, VERY_LARGE),
        [
            ("p1.1", "node1", LOW, MEDIUM, epoch(4)),
            ("p1.2", "node1", MID, MEDIUM, epoch(2)),
            ("p2.1", "node2", MID, MEDIUM, epoch(6)),
            ("p2.2", "node2", LOW, MEDIUM, epoch(1)),
            ("p3.1", "node3", LOW, MEDIUM, epoch(3)),
            ("p3.2", "node3", MID, MEDIUM, epoch(5)),
        ],
        {"node2"},
        id="start_time_of_the_highest_priority_victims_only",
    ),
]


@pytest.mark.parametrize(("node_names", "preemptor", "pods", "want"), SELECT_CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_select_best_candidate(
    node_names: list[str],
    preemptor: Any,
    pods: list[tuple[str, str, int, Mapping[str, str], str]],
    want: set[str],
    seed: int,
) -> None:
    running_pods = [
        running(n, nd, prio, res).set("status.startTime", st) for n, nd, prio, res, st in pods
    ]
    handle, fw, pl = setup(
        objs(*[node(n, VERY_LARGE) for n in node_names], *running_pods), seed=seed
    )
    p = preemptor.pod()
    state = prefiltered(fw, p)
    infos = handle.snapshot().node_info_list
    offset, num = pl.get_offset_and_num_candidates(len(infos))
    candidates, _, _ = pl.evaluator.dry_run_preemption(state, p, infos, [], offset, num)
    best = pl.evaluator.select_candidate(candidates)
    assert best is not None and best.name in want


# -- the criteria, one at a time ----------------------------------------------


def _victims(*specs: tuple[int, str | None], violations: int = 0) -> Victims:
    pods = []
    for i, (prio, start) in enumerate(specs):
        b = make_pod(f"v{i}-{prio}-{start}").priority(prio)
        if start is not None:
            b.set("status.startTime", start)
        pods.append(b.pod())
    return Victims(pods, violations)


PICK_CASES = [
    pytest.param(
        {"a": _victims((LOW, S), violations=1), "b": _victims((HIGH, S), (HIGH, S))},
        "b",
        id="fewest_pdb_violations_first",
    ),
    pytest.param(
        {"a": _victims((MID, S)), "b": _victims((LOW, S), (LOW, S), (LOW, S))},
        "b",
        id="then_lowest_highest_priority",
    ),
    pytest.param(
        {"a": _victims((MID, S), (MID, S)), "b": _victims((MID, S), (LOW, S))},
        "b",
        id="then_lowest_sum_of_priorities",
    ),
    pytest.param(
        {"a": _victims((NEG, S), (NEG, S)), "b": _victims((NEG, S))},
        "b",
        id="negative_priorities_are_shifted_before_summing",
    ),
    pytest.param(
        {"a": _victims((MID, epoch(1))), "b": _victims((MID, epoch(2)))},
        "b",
        id="then_latest_start_time",
    ),
    pytest.param(
        {"a": _victims((MID, epoch(9))), "b": _victims((MID, None))},
        "b",
        id="a_victim_without_start_time_counts_as_started_now",
    ),
]


@pytest.mark.parametrize(("nodes_to_victims", "want"), PICK_CASES)
def test_pick_one_node_for_preemption(nodes_to_victims: dict[str, Victims], want: str) -> None:
    for order in (list(nodes_to_victims), list(reversed(list(nodes_to_victims)))):
        clock = PodClock(NOW)
        assert pick_one_node_for_preemption(nodes_to_victims, None, clock, order) == want


def test_pick_one_node_takes_the_first_of_a_full_tie() -> None:
    v = {"a": _victims((MID, S)), "b": _victims((MID, S))}
    assert pick_one_node_for_preemption(v, None, PodClock(NOW), ["b", "a"]) == "b"
    assert pick_one_node_for_preemption(v, None, PodClock(NOW), ["a", "b"]) == "a"


# -- eligibility (upstream TestPodEligibleToPreemptOthers) -----------------------


def _preempted(b: Any) -> Any:
    return b.terminating().set(
        "status.conditions",
        [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}],
    )


ELIGIBLE_CASES = [
    pytest.param(
        pod("p", HIGH).nominated("node1"),
        [running("p1", "node1", LOW).terminating()],
        Status(UU, "node(s) had untolerated taint(s)"),
        True,
        "",
        id="nominated_node_unresolvable_preempts_again",
    ),
    pytest.param(pod("p", HIGH), [], None, True, "", id="no_nominated_node"),
    pytest.param(
        pod("p", HIGH).preemption_policy("Never"),
        [],
        None,
        False,
        "not eligible due to preemptionPolicy=Never.",
        id="preemption_policy_never",
    ),
    pytest.param(
        pod("p", HIGH).nominated("node1"),
        [_preempted(running("p1", "node1", LOW))],
        None,
        False,
        "not eligible due to a terminating pod on the nominated node.",
        id="victim_of_earlier_preemption_still_terminating",
    ),
    pytest.param(
        pod("p", HIGH).nominated("node1"),
        [running("p1", "node1", LOW).terminating()],
        None,
        True,
        "",
        id="terminating_pod_not_preempted_by_scheduler",
    ),
    pytest.param(
        pod("p", LOW).nominated("node1"),
        [_preempted(running("p1", "node1", HIGH))],
        None,
        True,
        "",
        id="terminating_higher_priority_pod_does_not_count",
    ),
]


@pytest.mark.parametrize(("preemptor", "pods", "nominated_status", "want", "msg"), ELIGIBLE_CASES)
def test_pod_eligible_to_preempt_others(
    preemptor: Any, pods: list[Any], nominated_status: Status | None, want: bool, msg: str
) -> None:
    handle, fw, pl = setup(objs(node("node1"), *pods))
    assert pl.pod_eligible_to_preempt_others(preemptor.pod(), nominated_status) == (want, msg)


# -- the whole preemption (upstream TestPreempt) -------------------------------


PREEMPT_CASES = [
    pytest.param(
        pod("p", HIGH, VERY_LARGE).preemption_policy("PreemptLowerPriority"),
        ["node1", "node2", "node3"],
        [
            running("p1.1", "node1", LOW, SMALL),
            running("p1.2", "node1", LOW, SMALL),
            running("p2.1", "node2", HIGH, LARGE),
            running("p3.1", "node3", MID, MEDIUM),
        ],
        ["NodeResourcesFit"],
        "node1",
        ["default/p1.1", "default/p1.2"],
        id="basic_preemption",
    ),
    pytest.param(
        _spread_pod("p"),
        ["node-a/zone1", "node-b/zone1", "node-x/zone2"],
        [
            running("p-a1", "node-a", HIGH).labels(foo=""),
            running("p-a2", "node-a", HIGH).labels(foo=""),
            running("p-b1", "node-b", LOW).labels(foo=""),
            running("p-x1", "node-x", HIGH).labels(foo=""),
            running("p-x2", "node-x", HIGH).labels(foo=""),
        ],
        ["PodTopologySpread"],
        "node-b",
        ["default/p-b1"],
        id="preemption_for_topology_spread",
    ),
    pytest.param(
        pod("p", HIGH, VERY_LARGE).preemption_policy("Never"),
        ["node1", "node2", "node3"],
        [
            running("p1.1", "node1", LOW, SMALL),
            running("p1.2", "node1", LOW, SMALL),
            running("p2.1", "node2", HIGH, LARGE),
            running("p3.1", "node3", MID, MEDIUM),
        ],
        ["NodeResourcesFit"],
        None,
        [],
        id="no_preemption_with_policy_never",
    ),
    pytest.param(
        pod("p", HIGH, VERY_LARGE),
        ["node1", "node2", "node3"],
        [
            running("p1.1", "node1", LOW, SMALL),
            running("p1.2", "node1", LOW, SMALL),
            running("p2.1", "node2", HIGH, LARGE),
            running("p3.1", "node3", MID, MEDIUM),
        ],
        ["NodeResourcesFit"],
        "node1",
        ["default/p1.1", "default/p1.2"],
        id="default_policy_preempts",
    ),
]


@pytest.mark.parametrize(
    ("preemptor", "node_names", "pods", "filters", "want_node", "want_evicted"), PREEMPT_CASES
)
def test_preempt(
    preemptor: Any,
    node_names: list[str],
    pods: list[Any],
    filters: list[str],
    want_node: str | None,
    want_evicted: list[str],
) -> None:
    handle, fw, pl = setup(objs(*_nodes(node_names), *pods), filters=filters)
    p = preemptor.pod()
    all_unschedulable = statuses({n.split("/")[0]: U for n in node_names})
    result, status = pl.evaluator.preempt(prefiltered(fw, p), p, all_unschedulable)
    if want_node is None:
        assert result is None
        assert status is not None and status.code == Code.UNSCHEDULABLE
    else:
        assert status is None
        assert result is not None and result.nominating_info is not None
        assert result.nominating_info.nominated_node_name == want_node
        assert sorted(v.key for v in result.victims) == want_evicted
    assert sorted(handle.evicted) == want_evicted


def test_preempt_again_waits_for_terminating_victims() -> None:
    """Upstream TestPreempt's second call: victims leaving, nothing more is preempted."""
    cluster = [
        _preempted(running("p1.1", "node1", LOW, SMALL)),
        _preempted(running("p1.2", "node1", LOW, SMALL)),
        running("p2.1", "node2", HIGH, LARGE),
        running("p3.1", "node3", MID, MEDIUM),
        *_nodes(["node1", "node2", "node3"]),
    ]
    handle, fw, pl = setup(objs(*cluster))
    p = pod("p", HIGH, VERY_LARGE).nominated("node1").pod()
    result, status = pl.post_filter(
        prefiltered(fw, p), p, statuses({"node1": U, "node2": U, "node3": U})
    )
    assert result is None
    assert status is not None and status.message() == (
        "preemption: not eligible due to a terminating pod on the nominated node."
    )
    assert handle.evicted == []


def test_terminating_victims_are_not_evicted_again() -> None:
    cluster = [
        running("p1.1", "node1", LOW, SMALL).terminating(),
        running("p1.2", "node1", LOW, LARGE),
        node("node1", VERY_LARGE),
    ]
    handle, fw, pl = setup(objs(*cluster))
    p = pod("p", HIGH, VERY_LARGE).pod()
    result, status = pl.post_filter(prefiltered(fw, p), p, statuses({"node1": U}))
    assert status is None and result is not None
    assert sorted(v.key for v in result.victims) == ["default/p1.1", "default/p1.2"]
    assert handle.evicted == ["default/p1.2"]


def test_lower_priority_nominated_pods_on_the_node_lose_their_nomination() -> None:
    low = pod("low", LOW).nominated("node1").pod()
    high = pod("high", VERY_HIGH).nominated("node1").pod()
    cluster = [running("p1", "node1", LOW, LARGE), node("node1", LARGE)]
    handle, fw, pl = setup(objs(*cluster), nominated={"node1": [low, high]})
    p = pod("p", HIGH, SMALL).pod()
    result, status = pl.post_filter(prefiltered(fw, p), p, statuses({"node1": U}))
    assert status is None and result is not None
    assert low.nominated_node_name == ""
    assert high.nominated_node_name == "node1"
    assert handle.nominated_pods_for_node("node1") == [high]
    assert result.details["clearedNominations"] == ["default/low"]


def test_without_an_evicting_handle_victims_are_left_to_the_caller() -> None:
    cluster = [running("p1", "node1", LOW, LARGE), node("node1", LARGE)]
    handle, fw, pl = setup(objs(*cluster), with_eviction=False)
    p = pod("p", HIGH, SMALL).pod()
    result, status = pl.post_filter(prefiltered(fw, p), p, statuses({"node1": U}))
    assert status is None and result is not None
    assert [v.key for v in result.victims] == ["default/p1"]
    assert result.details["evicted"] is False


def test_nominated_pods_of_higher_priority_keep_their_room() -> None:
    """The re-check counts pods nominated to the node with >= priority (the runtime's two passes)."""
    other = pod("other", VERY_HIGH, LARGE).nominated("node1").pod()
    cluster = [running("p1", "node1", LOW, LARGE), node("node1", LARGE)]
    handle, fw, pl = setup(objs(*cluster), nominated={"node1": [other]})
    p = pod("p", HIGH, SMALL).pod()
    result, status = pl.post_filter(prefiltered(fw, p), p, statuses({"node1": U}))
    assert status is not None
    assert (
        status.message()
        == "preemption: 0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."
    )


# -- victim order among equals (Go's sort.Slice with time.Now()) ----------------


def test_equal_pods_without_start_time_reprieve_the_last_listed_first() -> None:
    """Upstream sorts with ``time.Now()`` standing in for a missing start time;
    each call is later than the previous, so for up to 12 equal pods the
    insertion sort reverses them and the first pod listed on the node goes."""
    cluster = [
        running("a", "node1", LOW, {"cpu": "1"}),
        running("b", "node1", LOW, {"cpu": "1"}),
        running("c", "node1", LOW, {"cpu": "1"}),
        node("node1", {"cpu": "3"}),
    ]
    handle, fw, pl = setup(objs(*cluster))
    p = pod("p", HIGH, {"cpu": "1"}).pod()
    result, status = pl.post_filter(prefiltered(fw, p), p, statuses({"node1": U}))
    assert status is None and result is not None
    assert [v.name for v in result.victims] == ["a"]


def test_go_sort_slice_insertion_sort_is_stable_for_a_strict_order() -> None:
    items = [3, 1, 2, 1]
    go_sort_slice(items, lambda a, b: a < b)
    assert items == [1, 1, 2, 3]


def test_more_important_pod_orders_by_priority_then_start_time() -> None:
    clock = PodClock(NOW)
    old = make_pod("old").priority(5).set("status.startTime", epoch(1)).pod()
    new = make_pod("new").priority(5).set("status.startTime", epoch(2)).pod()
    high = make_pod("high").priority(6).pod()
    assert more_important_pod(high, old, clock)
    assert more_important_pod(old, new, clock)
    assert not more_important_pod(new, old, clock)
    # a pod without a start time started "now": after any real start time
    assert not more_important_pod(make_pod("x").priority(5).pod(), old, clock)


@pytest.mark.parametrize("seed", range(5))
def test_started_before_answers_as_two_clock_readings_compare(seed: int) -> None:
    """PodClock.started_before(a, b) is start_time(a) < start_time(b), "now" included."""
    rng = random.Random(seed)
    clock = PodClock(NOW)
    times = [
        None,
        None,
        epoch(0),
        epoch(1),
        epoch(59),
        "2024-06-01T00:00:00Z",
        "2024-07-01T00:00:00Z",
    ]
    # every kind once (NOW itself included), then random ones
    chosen = times + [rng.choice(times) for _ in range(8)]
    pods = []
    for i, t in enumerate(chosen):
        b = make_pod(f"p{i}")
        if t is not None:
            b.set("status.startTime", t)
        pods.append(b.pod())
    for a in pods:
        for b in pods:
            assert clock.started_before(a, b) == (clock.start_time(a) < clock.start_time(b))


# -- PDB accounting ---------------------------------------------------------------


def _p(name: str, ns: str = "default", **labels: str) -> Pod:
    b = make_pod(name).ns(ns)
    if labels:
        b.labels(labels)
    return b.pod()


PDB_CASES = [
    pytest.param(
        [_p("a", app="x"), _p("b", app="x")],
        [pdb("x", {"app": "x"}, 1)],
        ["b"],
        id="budget_is_spent_in_order",
    ),
    pytest.param([_p("a")], [pdb("all", {}, 0)], [], id="empty_selector_matches_nothing"),
    pytest.param([_p("a")], [pdb("nil", None, 0)], [], id="missing_selector_matches_nothing"),
    pytest.param(
        [_p("a")],
        [
            {
                **pdb("not-x", None, 0),
                "spec": {
                    "selector": {"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}
                },
            }
        ],
        [],
        id="pod_without_labels_never_matches",
    ),
    pytest.param(
        [_p("a", "other", app="x")], [pdb("x", {"app": "x"}, 0)], [], id="other_namespace"
    ),
    pytest.param(
        [_p("a", app="x"), _p("b", app="x")],
        [pdb("x", {"app": "x"}, 0, disrupted=["a"])],
        ["b"],
        id="disrupted_pods_neither_spend_nor_violate",
    ),
    pytest.param(
        [_p("a", app="x", tier="t"), _p("b", tier="t")],
        [pdb("x", {"app": "x"}, 5), pdb("t", {"tier": "t"}, 1)],
        ["b"],
        id="every_matching_pdb_is_charged",
    ),
]


@pytest.mark.parametrize(("pods", "pdbs", "want_violating"), PDB_CASES)
def test_filter_pods_with_pdb_violation(
    pods: list[Pod], pdbs: list[dict[str, Any]], want_violating: list[str]
) -> None:
    cluster = build_cluster(pdbs)
    violating, non_violating = dp.filter_pods_with_pdb_violation(pods, cluster.pdbs)
    assert [p.name for p in violating] == want_violating
    assert len(violating) + len(non_violating) == len(pods)


# -- candidate sampling -----------------------------------------------------------


@pytest.mark.parametrize(
    ("num_nodes", "args", "want"),
    [
        pytest.param(10, {}, 10, id="small_cluster_all_nodes"),
        pytest.param(1000, {}, 100, id="absolute_minimum_100"),
        pytest.param(5000, {}, 500, id="ten_percent_of_large_cluster"),
        pytest.param(5, LIMIT_2, 2, id="forty_percent_of_five"),
        pytest.param(
            200,
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 50},
            50,
            id="percentage_zero",
        ),
        pytest.param(
            3,
            {"minCandidateNodesPercentage": 100, "minCandidateNodesAbsolute": 0},
            3,
            id="never_above_node_count",
        ),
    ],
)
def test_calculate_num_candidates(num_nodes: int, args: dict[str, int], want: int) -> None:
    handle = make_handle([])
    pl = dp.new(args, handle)
    assert pl.calculate_num_candidates(num_nodes) == want
    offset, n = pl.get_offset_and_num_candidates(num_nodes)
    assert 0 <= offset < num_nodes and n == want


@pytest.mark.parametrize(
    "args",
    [
        pytest.param({"minCandidateNodesPercentage": 101}, id="percentage_above_100"),
        pytest.param({"minCandidateNodesAbsolute": -1}, id="negative_absolute"),
        pytest.param(
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}, id="both_zero"
        ),
    ],
)
def test_invalid_args_are_rejected(args: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        dp.new(args, make_handle([]))


# -- messages ---------------------------------------------------------------------


def test_fit_error_message_sorts_counts_as_strings() -> None:
    m = NodeToStatus(
        {f"n{i}": Status(U, "Insufficient cpu") for i in range(10)}
        | {"m1": Status(UU, "No preemption victims found for incoming pod")}
        | {"m2": Status(UU, "No preemption victims found for incoming pod")},
        Status(UU, "Preemption is not helpful for scheduling"),
    )
    assert fit_error_message(13, m) == (
        "0/13 nodes are available: 1 Preemption is not helpful for scheduling, "
        "10 Insufficient cpu, 2 No preemption victims found for incoming pod."
    )


def test_pre_enqueue_holds_a_pod_while_its_preemption_runs() -> None:
    handle = make_handle([])
    pl = dp.new({}, handle)
    p = make_pod("p").pod()
    assert pl.pre_enqueue(p) is None
    handle.is_pod_running_preemption = lambda uid: uid == p.uid  # type: ignore[attr-defined]
    st = pl.pre_enqueue(p)
    assert st is not None and st.code == UU
    assert st.message() == "waiting for the preemption for this pod to be finished"


def test_go_sort_slice_sorts_long_slices_by_the_same_order() -> None:
    clock = PodClock(NOW)
    pods = [
        make_pod(f"p{i}").priority(i % 5).set("status.startTime", epoch(i)).pod() for i in range(13)
    ]
    go_sort_slice(pods, lambda a, b: more_important_pod(a, b, clock))
    assert [(p.priority, p.name) for p in pods] == sorted(
        ((p.priority, p.name) for p in pods), key=lambda t: (-t[0], int(t[1][1:]))
    )
