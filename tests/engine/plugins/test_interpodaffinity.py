"""InterPodAffinity: cases ported from upstream's filtering_test.go and scoring_test.go.

Upstream's tests put unnamed pods in the namespace ""; here that is "default".
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.interfaces import NodeScore
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import interpodaffinity as ipa
from scheduler_engine.plugins.interpodaffinity import (
    ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFF,
)
from scheduler_engine.plugins.interpodaffinity import (
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
)
from scheduler_engine.plugins.interpodaffinity import (
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
)
from scheduler_engine.plugins.interpodaffinity import (
    PRE_FILTER_STATE_KEY,
    InterPodAffinity,
    new,
)
from tests.engine.builders import make_node, make_pod

# -- helpers -------------------------------------------------------------------

UR = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
U = Code.UNSCHEDULABLE
SKIP = "skip"

NS_TEAMS = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    e: dict[str, Any] = {"key": key, "operator": op}
    if values:
        e["values"] = list(values)
    return e


def term(*exprs: dict[str, Any], topo: str = "", **extra: Any) -> dict[str, Any]:
    return {"labelSelector": {"matchExpressions": list(exprs)}, "topologyKey": topo, **extra}


def In(key: str, topo: str, *values: str) -> dict[str, Any]:
    return term(expr(key, "In", *values), topo=topo)


def NotIn(key: str, topo: str, *values: str) -> dict[str, Any]:
    return term(expr(key, "NotIn", *values), topo=topo)


def Exists(key: str, topo: str) -> dict[str, Any]:
    return term(expr(key, "Exists"), topo=topo)


def weighted(weight: int, t: dict[str, Any]) -> dict[str, Any]:
    return {"weight": weight, "podAffinityTerm": t}


def affinity(
    req: list[dict[str, Any]] | None = None,
    anti: list[dict[str, Any]] | None = None,
    pref: list[dict[str, Any]] | None = None,
    pref_anti: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if req is not None or pref is not None:
        block = out["podAffinity"] = {}
        if req is not None:
            block["requiredDuringSchedulingIgnoredDuringExecution"] = req
        if pref is not None:
            block["preferredDuringSchedulingIgnoredDuringExecution"] = pref
    if anti is not None or pref_anti is not None:
        block = out["podAntiAffinity"] = {}
        if anti is not None:
            block["requiredDuringSchedulingIgnoredDuringExecution"] = anti
        if pref_anti is not None:
            block["preferredDuringSchedulingIgnoredDuringExecution"] = pref_anti
    return out


def pod(
    labels: dict[str, str] | None = None,
    node: str | None = None,
    ns: str = "default",
    aff: dict[str, Any] | None = None,
    name: str = "",
) -> dict[str, Any]:
    b = make_pod(name or "pod").ns(ns)
    if labels:
        b.labels(labels)
    if node:
        b.node(node)
    if aff is not None:
        b.set("spec.affinity", aff)
    return b.obj()


def node(name: str, labels: dict[str, str]) -> dict[str, Any]:
    # exactly the labels given (no automatic hostname label), as upstream's tests
    return make_node(name).set("metadata.labels", dict(labels)).obj()


class FakeHandle:
    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot
        self.cluster = None

    def snapshot(self) -> Snapshot:
        return self._snapshot


def _parse_pods(objs: list[dict[str, Any]]) -> list[Any]:
    from scheduler_engine.objects import parse_pod

    out = []
    for i, o in enumerate(objs):
        if o["metadata"]["name"] == "pod":
            o["metadata"]["name"] = f"p{i}"
            o["metadata"]["uid"] = f"uid-p{i}"
        out.append(parse_pod(o))
    return out


def setup(
    nodes: list[dict[str, Any]],
    pods: list[dict[str, Any]],
    namespaces: dict[str, dict[str, str]] | None = None,
    args: dict[str, Any] | None = None,
) -> tuple[InterPodAffinity, Snapshot]:
    from scheduler_engine.objects import parse_node

    snap = Snapshot([parse_node(n) for n in nodes], _parse_pods(pods), namespaces or {})
    return new(args or {}, FakeHandle(snap)), snap


def outcome(status: Status | None) -> Any:
    if status is None:
        return None
    if status.code == Code.SKIP:
        return SKIP
    return (status.code, *status.reasons)


def incoming(obj: dict[str, Any]) -> Any:
    from scheduler_engine.objects import parse_pod

    obj = dict(obj)
    obj["metadata"] = {**obj["metadata"], "name": "incoming", "uid": "uid-incoming"}
    return parse_pod(obj)


def run_filter(
    p: dict[str, Any],
    pods: list[dict[str, Any]],
    nodes: list[dict[str, Any]],
    namespaces: dict[str, dict[str, str]] | None = None,
) -> Any:
    plugin, snap = setup(nodes, pods, namespaces)
    the_pod = incoming(p)
    state = CycleState()
    _, st = plugin.pre_filter(state, the_pod, snap.node_info_list)
    if st is not None:
        return outcome(st)
    return [outcome(plugin.filter(state, the_pod, snap.get(n["metadata"]["name"]))) for n in nodes]


def run_score(
    p: dict[str, Any],
    pods: list[dict[str, Any]],
    nodes: list[dict[str, Any]],
    namespaces: dict[str, dict[str, str]] | None = None,
    args: dict[str, Any] | None = None,
) -> Any:
    plugin, snap = setup(nodes, pods, NS_TEAMS if namespaces is None else namespaces, args)
    the_pod = incoming(p)
    state = CycleState()
    st = plugin.pre_score(state, the_pod, snap.node_info_list)
    if st is not None:
        return outcome(st)
    scores = []
    for n in nodes:
        raw = plugin.score(state, the_pod, snap.get(n["metadata"]["name"]))
        assert isinstance(raw, int)
        scores.append(NodeScore(n["metadata"]["name"], raw))
    assert plugin.score_extensions().normalize_score(state, the_pod, scores) is None
    return [s.score for s in scores]


# -- Filter: one node ----------------------------------------------------------------

SVC = {"service": "securityscan"}
SEC1 = {"security": "S1"}
NODE1 = node("node1", {"region": "r1", "zone": "z11"})
EXISTING_SVC = pod(SVC, node="node1")

SINGLE_NODE_CASES = [
    ("no_terms_and_no_existing_pods_skips", pod(), [], SKIP),
    (
        "affinity_in_matches_existing_pod",
        pod(SEC1, aff=affinity(req=[In("service", "region", "securityscan", "value2")])),
        [EXISTING_SVC],
        [None],
    ),
    (
        "affinity_not_in_matches_existing_pod",
        pod(SEC1, aff=affinity(req=[NotIn("service", "region", "securityscan3", "value3")])),
        [EXISTING_SVC],
        [None],
    ),
    (
        "affinity_fails_for_pod_in_other_namespace",
        pod(
            SEC1,
            aff=affinity(
                req=[
                    term(
                        expr("service", "In", "securityscan", "value2"),
                        namespaces=["DiffNameSpace"],
                    )
                ]
            ),
        ),
        [pod(SVC, node="node1", ns="ns")],
        [(UR, AFF)],
    ),
    (
        "affinity_fails_when_selector_matches_no_pod",
        pod(SVC, aff=affinity(req=[In("service", "", "antivirusscan", "value2")])),
        [EXISTING_SVC],
        [(UR, AFF)],
    ),
    (
        "affinity_with_several_operators_in_several_terms",
        pod(
            SEC1,
            aff=affinity(
                req=[
                    term(
                        expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), topo="region"
                    ),
                    term(
                        expr("service", "In", "securityscan"),
                        expr("service", "NotIn", "WrongValue"),
                        topo="region",
                    ),
                ]
            ),
        ),
        [EXISTING_SVC],
        [None],
    ),
    (
        "affinity_match_expressions_are_anded",
        pod(
            SEC1,
            aff=affinity(
                req=[
                    term(
                        expr("service", "Exists"), expr("wrongkey", "DoesNotExist"), topo="region"
                    ),
                    term(
                        expr("service", "In", "securityscan2"),
                        expr("service", "NotIn", "WrongValue"),
                        topo="region",
                    ),
                ]
            ),
        ),
        [EXISTING_SVC],
        [(UR, AFF)],
    ),
    (
        "affinity_and_anti_affinity_both_satisfied",
        pod(
            SEC1,
            aff=affinity(
                req=[In("service", "region", "securityscan", "value2")],
                anti=[In("service", "node", "antivirusscan", "value2")],
            ),
        ),
        [EXISTING_SVC],
        [None],
    ),
    (
        "existing_pods_anti_affinity_not_matching_incoming_is_satisfied",
        pod(
            SEC1,
            aff=affinity(
                req=[In("service", "region", "securityscan", "value2")],
                anti=[In("service", "node", "antivirusscan", "value2")],
            ),
        ),
        [
            pod(
                SVC,
                node="node1",
                aff=affinity(anti=[In("service", "node", "antivirusscan", "value2")]),
            )
        ],
        [None],
    ),
    (
        "own_anti_affinity_violated_is_unschedulable",
        pod(
            SEC1,
            aff=affinity(
                req=[In("service", "region", "securityscan", "value2")],
                anti=[In("service", "zone", "securityscan", "value2")],
            ),
        ),
        [EXISTING_SVC],
        [(U, ANTI)],
    ),
    (
        "existing_pods_anti_affinity_violated_is_unschedulable",
        pod(
            SVC,
            aff=affinity(
                req=[In("service", "region", "securityscan", "value2")],
                anti=[In("service", "node", "antivirusscan", "value2")],
            ),
        ),
        [
            pod(
                SVC,
                node="node1",
                aff=affinity(anti=[In("service", "zone", "securityscan", "value2")]),
            )
        ],
        [(U, EXISTING)],
    ),
    (
        "pod_not_matching_its_own_affinity_is_not_the_first_of_a_group",
        pod(SVC, aff=affinity(req=[NotIn("service", "region", "securityscan", "value2")])),
        # bound to a node outside the snapshot: ignored
        [pod({"service": "securityscan"}, node="node2")],
        [(UR, AFF)],
    ),
    (
        "existing_anti_affinity_applies_to_pod_without_terms",
        pod(SVC),
        [
            pod(
                SVC,
                node="node1",
                aff=affinity(anti=[In("service", "zone", "securityscan", "value2")]),
            )
        ],
        [(U, EXISTING)],
    ),
    (
        "existing_anti_affinity_not_selecting_pod_without_terms_skips",
        pod(SVC),
        [
            pod(
                SVC,
                node="node1",
                aff=affinity(anti=[NotIn("service", "zone", "securityscan", "value2")]),
            )
        ],
        SKIP,
    ),
    (
        "own_anti_affinity_checked_before_existing_anti_affinity",
        pod(SVC, aff=affinity(anti=[Exists("service", "region"), Exists("security", "region")])),
        [pod(SEC1, node="node1", aff=affinity(anti=[Exists("security", "zone")]))],
        [(U, ANTI)],
    ),
    (
        "symmetry_a1_partial_match_incoming_terms",
        pod(SVC, aff=affinity(anti=[Exists("service", "zone"), Exists("security", "zone")])),
        [pod(SEC1, node="node1", aff=affinity(anti=[Exists("security", "zone")]))],
        [(U, ANTI)],
    ),
    (
        "symmetry_a2_partial_match_existing_terms",
        pod(SEC1, aff=affinity(anti=[Exists("security", "zone")])),
        [
            pod(
                SVC,
                node="node1",
                aff=affinity(anti=[Exists("service", "zone"), Exists("security", "zone")]),
            )
        ],
        [(U, EXISTING)],
    ),
    (
        "symmetry_b1",
        pod(
            {"abc": "", "xyz": ""},
            aff=affinity(anti=[Exists("abc", "zone"), Exists("def", "zone")]),
        ),
        [
            pod(
                {"def": "", "xyz": ""},
                node="node1",
                aff=affinity(anti=[Exists("abc", "zone"), Exists("def", "zone")]),
            )
        ],
        [(U, ANTI)],
    ),
    (
        "symmetry_b2",
        pod(
            {"def": "", "xyz": ""},
            aff=affinity(anti=[Exists("abc", "zone"), Exists("def", "zone")]),
        ),
        [
            pod(
                {"abc": "", "xyz": ""},
                node="node1",
                aff=affinity(anti=[Exists("abc", "zone"), Exists("def", "zone")]),
            )
        ],
        [(U, ANTI)],
    ),
    (
        "affinity_namespace_selector_matching",
        pod(
            SEC1,
            aff=affinity(
                req=[
                    term(
                        expr("service", "In", "securityscan", "value2"),
                        topo="region",
                        namespaceSelector={"matchExpressions": [expr("team", "In", "team1")]},
                    )
                ]
            ),
        ),
        [pod(SVC, node="node1", ns="subteam1.team1")],
        [None],
    ),
    (
        "affinity_namespace_selector_not_matching",
        pod(
            SEC1,
            aff=affinity(
                req=[
                    term(
                        expr("service", "In", "securityscan", "value2"),
                        topo="region",
                        namespaceSelector={"matchExpressions": [expr("team", "In", "team1")]},
                    )
                ]
            ),
        ),
        [pod(SVC, node="node1", ns="subteam1.team2")],
        [(UR, AFF)],
    ),
    (
        "anti_affinity_namespace_selector_matching",
        pod(
            SEC1,
            ns="subteam1.team1",
            aff=affinity(
                anti=[
                    term(
                        expr("service", "In", "securityscan", "value2"),
                        topo="zone",
                        namespaceSelector={"matchExpressions": [expr("team", "In", "team1")]},
                    )
                ]
            ),
        ),
        [pod(SVC, node="node1", ns="subteam2.team1")],
        [(U, ANTI)],
    ),
    (
        "anti_affinity_empty_namespace_selector_selects_all_namespaces",
        pod(
            SEC1,
            ns="subteam1.team1",
            aff=affinity(
                anti=[
                    term(
                        expr("service", "In", "securityscan", "value2"),
                        topo="zone",
                        namespaceSelector={},
                    )
                ]
            ),
        ),
        [pod(SVC, node="node1", ns="subteam2.team1")],
        [(U, ANTI)],
    ),
    (
        "anti_affinity_namespace_selector_not_matching",
        pod(
            SEC1,
            ns="subteam1.team1",
            aff=affinity(
                anti=[
                    term(
                        expr("service", "In", "securityscan", "value2"),
                        topo="zone",
                        namespaceSelector={"matchExpressions": [expr("team", "In", "team1")]},
                    )
                ]
            ),
        ),
        [pod(SVC, node="node1", ns="subteam1.team2")],
        [None],
    ),
]


@pytest.mark.parametrize(
    ("incoming_pod", "pods", "want"),
    [c[1:] for c in SINGLE_NODE_CASES],
    ids=[c[0] for c in SINGLE_NODE_CASES],
)
def test_filter_single_node(incoming_pod: Any, pods: Any, want: Any) -> None:
    assert run_filter(incoming_pod, pods, [NODE1], NS_TEAMS) == want


# -- Filter: several nodes -------------------------------------------------------------

RG_CHINA = {"region": "China"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}
RG_INDIA = {"region": "India"}


def _abc(region_zone: list[tuple[str, str]]) -> list[dict[str, Any]]:
    names = ["nodeA", "nodeB", "nodeC"]
    return [
        node(names[i], {"region": r, "zone": z, "hostname": names[i]})
        for i, (r, z) in enumerate(region_zone)
    ]


THREE_REGIONS = [
    node("nodeA", RG_CHINA),
    node("nodeB", RG_CHINA_AZ1),
    node("nodeC", RG_INDIA),
]

MULTI_NODE_CASES = [
    (
        "affinity_passes_on_every_node_of_the_matching_topology_value",
        pod(aff=affinity(req=[In("foo", "region", "bar")])),
        [pod({"foo": "bar"}, node="nodeA")],
        THREE_REGIONS,
        [None, None, (UR, AFF)],
    ),
    (
        "first_pod_of_a_self_affine_group_may_go_anywhere",
        pod(
            {"foo": "bar", "service": "securityscan"},
            aff=affinity(req=[In("foo", "zone", "bar"), In("service", "zone", "securityscan")]),
        ),
        [pod({"foo": "bar"}, node="nodeA")],
        [
            node("nodeA", {"zone": "az1", "hostname": "h1"}),
            node("nodeB", {"zone": "az2", "hostname": "h2"}),
        ],
        [None, None],
    ),
    (
        "first_pod_of_a_group_still_needs_the_topology_labels",
        pod(
            {"foo": "bar", "service": "securityscan"},
            aff=affinity(req=[In("foo", "zone", "bar"), In("service", "zone", "securityscan")]),
        ),
        [pod({"foo": "bar"}, node="nodeA")],
        [
            node("nodeA", {"zoneLabel": "az1", "hostname": "h1"}),
            node("nodeB", {"zoneLabel": "az2", "hostname": "h2"}),
        ],
        [(UR, AFF), (UR, AFF)],
    ),
    (
        "anti_affinity_blocks_every_node_sharing_the_topology_value",
        pod(aff=affinity(anti=[In("foo", "region", "abc")])),
        [pod({"foo": "abc"}, node="nodeA")],
        [
            node("nodeA", {"region": "r1", "hostname": "nodeA"}),
            node("nodeB", {"region": "r1", "hostname": "nodeB"}),
        ],
        [(U, ANTI), (U, ANTI)],
    ),
    (
        "anti_affinity_any_term_matching_is_enough",
        pod(aff=affinity(anti=[In("foo", "region", "abc"), In("service", "zone", "securityscan")])),
        [pod({"foo": "abc", "service": "securityscan"}, node="nodeA")],
        _abc([("r1", "z1"), ("r1", "z2")]),
        [(U, ANTI), (U, ANTI)],
    ),
    (
        "anti_affinity_leaves_other_region_free",
        pod(aff=affinity(anti=[In("foo", "region", "abc")])),
        [pod({"foo": "abc"}, node="nodeA")],
        THREE_REGIONS,
        [(U, ANTI), (U, ANTI), None],
    ),
    (
        "existing_anti_affinity_in_other_namespace_does_not_select_pod",
        pod({"foo": "123"}, ns="NS1", aff=affinity(anti=[In("foo", "region", "bar")])),
        [
            pod({"foo": "bar"}, node="nodeA", ns="NS1"),
            pod(node="nodeC", ns="NS2", aff=affinity(anti=[In("foo", "region", "123")])),
        ],
        THREE_REGIONS,
        [(U, ANTI), (U, ANTI), None],
    ),
    (
        "existing_anti_affinity_term_with_missing_topology_label_skips",
        pod({"foo": ""}),
        [pod(node="nodeA", aff=affinity(anti=[Exists("foo", "invalid-node-label")]))],
        _abc([("r1", "z1"), ("r1", "z1")]),
        SKIP,
    ),
    (
        "own_anti_affinity_with_missing_topology_label_passes",
        pod(aff=affinity(anti=[Exists("foo", "invalid-node-label")])),
        [pod({"foo": ""}, node="nodeA")],
        _abc([("r1", "z1"), ("r1", "z1")]),
        [None, None],
    ),
    (
        "existing_anti_affinity_of_two_pods_blocks_all_nodes",
        pod({"foo": "", "bar": ""}),
        [
            pod(node="nodeA", aff=affinity(anti=[Exists("foo", "zone")])),
            pod(node="nodeA", aff=affinity(anti=[Exists("bar", "region")])),
        ],
        _abc([("r1", "z1"), ("r1", "z2")]),
        [(U, EXISTING), (U, EXISTING)],
    ),
    (
        "own_anti_affinity_terms_against_two_pods_block_all_nodes",
        pod(aff=affinity(anti=[Exists("foo", "zone"), Exists("bar", "region")])),
        [pod({"foo": ""}, node="nodeA"), pod({"bar": ""}, node="nodeB")],
        _abc([("r1", "z1"), ("r1", "z2")]),
        [(U, ANTI), (U, ANTI)],
    ),
    (
        "existing_anti_affinity_counts_only_terms_with_topology_label",
        pod({"foo": "", "bar": ""}),
        [
            pod(
                node="nodeA",
                aff=affinity(anti=[Exists("foo", "invalid-node-label"), Exists("bar", "zone")]),
            )
        ],
        _abc([("r1", "z1"), ("r1", "z2")]),
        [(U, EXISTING), None],
    ),
    (
        "own_anti_affinity_counts_only_terms_with_topology_label",
        pod(aff=affinity(anti=[Exists("foo", "invalid-node-label"), Exists("bar", "zone")])),
        [pod({"foo": "", "bar": ""}, node="nodeA")],
        _abc([("r1", "z1"), ("r1", "z2")]),
        [(U, ANTI), None],
    ),
    (
        "existing_anti_affinity_all_terms_with_topology_labels",
        pod({"foo": "", "bar": ""}),
        [pod(node="nodeA", aff=affinity(anti=[Exists("foo", "region"), Exists("bar", "zone")]))],
        _abc([("r1", "z1"), ("r1", "z2")]),
        [(U, EXISTING), (U, EXISTING)],
    ),
    (
        "own_anti_affinity_all_terms_with_topology_labels",
        pod(aff=affinity(anti=[Exists("foo", "region"), Exists("bar", "zone")])),
        [pod({"foo": "", "bar": ""}, node="nodeA")],
        _abc([("r1", "z1"), ("r1", "z2")]),
        [(U, ANTI), (U, ANTI)],
    ),
    (
        "existing_anti_affinity_on_two_nodes_leaves_third",
        pod({"foo": "", "bar": ""}),
        [
            pod(node="nodeA", aff=affinity(anti=[Exists("foo", "zone"), Exists("labelA", "zone")])),
            pod(node="nodeB", aff=affinity(anti=[Exists("bar", "zone"), Exists("labelB", "zone")])),
        ],
        _abc([("r1", "z1"), ("r1", "z2"), ("r1", "z3")]),
        [(U, EXISTING), (U, EXISTING), None],
    ),
    (
        "affinity_all_terms_matched_by_one_pod",
        pod(aff=affinity(req=[Exists("foo", "region"), Exists("bar", "zone")])),
        [pod({"foo": "", "bar": ""}, node="nodeA")],
        _abc([("r1", "z1"), ("r1", "z1")]),
        [None, None],
    ),
    (
        "affinity_terms_matched_by_different_pods_do_not_count",
        pod(aff=affinity(req=[Exists("foo", "region"), Exists("bar", "zone")])),
        [pod({"foo": ""}, node="nodeA"), pod({"bar": ""}, node="nodeB")],
        _abc([("r1", "z1"), ("r1", "z2")]),
        [(UR, AFF), (UR, AFF)],
    ),
]


@pytest.mark.parametrize(
    ("incoming_pod", "pods", "nodes", "want"),
    [c[1:] for c in MULTI_NODE_CASES],
    ids=[c[0] for c in MULTI_NODE_CASES],
)
def test_filter_multiple_nodes(incoming_pod: Any, pods: Any, nodes: Any, want: Any) -> None:
    assert run_filter(incoming_pod, pods, nodes, {"NS1": {}}) == want


def test_terminating_pods_still_count() -> None:
    term_pod = make_pod("old").labels(foo="abc").node("nodeA").terminating().obj()
    got = run_filter(
        pod(aff=affinity(anti=[In("foo", "region", "abc")])),
        [term_pod],
        THREE_REGIONS,
    )
    assert got == [(U, ANTI), (U, ANTI), None]


# -- Incoming pod's counts ------------------------------------------------------------

NODE_A_HOST = node("nodeA", {"hostname": "nodeA"})
HOST_A = ("hostname", "nodeA")

COUNT_CASES = [
    ("no_terms_no_pods", pod(), [], SKIP),
    ("no_terms_with_pod", pod(), [pod({"aaa": ""}, node="nodeA")], SKIP),
    (
        "nothing_matches",
        pod(aff=affinity(req=[Exists("aaa", "hostname")], anti=[Exists("aaa", "hostname")])),
        [pod({"bbb": ""}, node="nodeA")],
        ({}, {}),
    ),
    (
        "single_term_each",
        pod(aff=affinity(req=[Exists("aaa", "hostname")], anti=[Exists("aaa", "hostname")])),
        [pod({"aaa": ""}, node="nodeA")],
        ({HOST_A: 1}, {HOST_A: 1}),
    ),
    (
        "affinity_counted_once_per_term",
        pod(
            aff=affinity(
                req=[Exists("aaa", "hostname"), Exists("bbb", "hostname")],
                anti=[Exists("aaa", "hostname")],
            )
        ),
        [pod({"aaa": "", "bbb": ""}, node="nodeA")],
        ({HOST_A: 2}, {HOST_A: 1}),
    ),
    (
        "partial_affinity_match_not_counted_anti_counted",
        pod(
            aff=affinity(
                req=[Exists("aaa", "hostname"), Exists("bbb", "hostname")],
                anti=[Exists("aaa", "hostname"), Exists("bbb", "hostname")],
            )
        ),
        [pod({"aaa": ""}, node="nodeA")],
        ({}, {HOST_A: 1}),
    ),
    (
        "anti_affinity_partial_term_violation",
        pod(
            aff=affinity(
                req=[Exists("aaa", "hostname"), Exists("ccc", "hostname")],
                anti=[Exists("aaa", "hostname"), Exists("ccc", "hostname")],
            )
        ),
        [pod({"aaa": "", "bbb": ""}, node="nodeA")],
        ({}, {HOST_A: 1}),
    ),
]


@pytest.mark.parametrize(
    ("incoming_pod", "pods", "want"),
    [c[1:] for c in COUNT_CASES],
    ids=[c[0] for c in COUNT_CASES],
)
def test_incoming_pod_counts(incoming_pod: Any, pods: Any, want: Any) -> None:
    plugin, snap = setup([NODE_A_HOST], pods)
    state = CycleState()
    _, st = plugin.pre_filter(state, incoming(incoming_pod), snap.node_info_list)
    if want == SKIP:
        assert outcome(st) == SKIP
        return
    assert st is None
    s = state.read(PRE_FILTER_STATE_KEY)
    assert (s.affinity_counts, s.anti_affinity_counts) == want


# -- PreFilter extensions (preemption) ----------------------------------------------

LABEL1 = {"region": "r1", "zone": "z11"}
LABEL2 = {"region": "r1", "zone": "z12"}
LABEL3 = {"region": "r2", "zone": "z21"}
FOO_BAR = {"foo": "bar"}
ANTI_FOO_BAR = [In("foo", "region", "bar")]
COMPLEX = [In("foo", "region", "bar", "buzz"), NotIn("service", "zone", "bar", "security", "test")]
ADD_NODES = [node("nodeA", LABEL1), node("nodeB", LABEL2), node("nodeC", LABEL3)]

ADD_REMOVE_CASES = [
    (
        "anti_affinity_counts_after_add",
        pod(FOO_BAR, aff=affinity(anti=ANTI_FOO_BAR)),
        [
            pod(FOO_BAR, node="nodeA", name="p1"),
            pod(node="nodeC", aff=affinity(anti=ANTI_FOO_BAR), name="p2"),
        ],
        pod(FOO_BAR, node="nodeB", aff=affinity(anti=ANTI_FOO_BAR), name="added"),
        {("region", "r1"): 2},
        {},
    ),
    (
        "complex_anti_affinity_counts_after_add",
        pod(FOO_BAR, aff=affinity(anti=COMPLEX)),
        [
            pod(FOO_BAR, node="nodeA", name="p1"),
            pod(node="nodeC", aff=affinity(anti=ANTI_FOO_BAR), name="p2"),
        ],
        pod(FOO_BAR, node="nodeA", aff=affinity(anti=COMPLEX), name="added"),
        {("region", "r1"): 2, ("zone", "z11"): 2, ("zone", "z21"): 1},
        {},
    ),
    (
        "affinity_counts_after_add",
        pod(FOO_BAR, aff=affinity(req=COMPLEX)),
        [
            pod(FOO_BAR, node="nodeA", name="p1"),
            pod(node="nodeC", aff=affinity(req=COMPLEX, anti=ANTI_FOO_BAR), name="p2"),
        ],
        pod(FOO_BAR, node="nodeA", aff=affinity(anti=COMPLEX), name="added"),
        {},
        {("region", "r1"): 2, ("zone", "z11"): 2},
    ),
]


def _state_tuple(s: Any) -> tuple[Any, ...]:
    return (s.existing_anti_affinity_counts, s.affinity_counts, s.anti_affinity_counts)


@pytest.mark.parametrize(
    ("pending", "existing", "added", "want_anti", "want_aff"),
    [c[1:] for c in ADD_REMOVE_CASES],
    ids=[c[0] for c in ADD_REMOVE_CASES],
)
def test_add_and_remove_pod_keep_state_in_step(
    pending: Any, existing: Any, added: Any, want_anti: Any, want_aff: Any
) -> None:
    the_pod = incoming(pending)
    # the state PreFilter computes with the added pod already in place
    plugin_all, snap_all = setup(ADD_NODES, [*existing, added])
    all_state = CycleState()
    plugin_all.pre_filter(all_state, the_pod, snap_all.node_info_list)

    plugin, snap = setup(ADD_NODES, existing)
    state = CycleState()
    plugin.pre_filter(state, the_pod, snap.node_info_list)
    original = _state_tuple(state.read(PRE_FILTER_STATE_KEY).clone())
    added_pod = _parse_pods([added])[0]
    ni = snap.get(added_pod.node_name)
    ext = plugin.pre_filter_extensions()
    assert ext.add_pod(state, the_pod, added_pod, ni) is None
    s = state.read(PRE_FILTER_STATE_KEY)
    assert s.anti_affinity_counts == want_anti
    assert s.affinity_counts == want_aff
    assert _state_tuple(s) == _state_tuple(all_state.read(PRE_FILTER_STATE_KEY))
    assert ext.remove_pod(state, the_pod, added_pod, ni) is None
    assert _state_tuple(state.read(PRE_FILTER_STATE_KEY)) == original


def test_clone_is_independent() -> None:
    plugin, snap = setup(ADD_NODES, [pod(FOO_BAR, node="nodeA")])
    state = CycleState()
    the_pod = incoming(pod(FOO_BAR, aff=affinity(anti=ANTI_FOO_BAR)))
    plugin.pre_filter(state, the_pod, snap.node_info_list)
    copy = state.clone()
    victim = snap.get("nodeA").pods[0]
    plugin.remove_pod(copy, the_pod, victim, snap.get("nodeA"))
    assert copy.read(PRE_FILTER_STATE_KEY).anti_affinity_counts == {}
    assert state.read(PRE_FILTER_STATE_KEY).anti_affinity_counts == {("region", "r1"): 1}
    # with the victim gone the node passes on the copy and still fails on the original
    assert plugin.filter(copy, the_pod, snap.get("nodeA")) is None
    assert outcome(plugin.filter(state, the_pod, snap.get("nodeA"))) == (U, ANTI)


def test_removing_only_affinity_match_keeps_first_pod_rule_off() -> None:
    # counts dropping back to empty re-enables the first-of-group allowance
    plugin, snap = setup(ADD_NODES, [pod(FOO_BAR, node="nodeC")])
    state = CycleState()
    the_pod = incoming(pod(FOO_BAR, aff=affinity(req=[In("foo", "region", "bar")])))
    plugin.pre_filter(state, the_pod, snap.node_info_list)
    assert outcome(plugin.filter(state, the_pod, snap.get("nodeA"))) == (UR, AFF)
    plugin.remove_pod(state, the_pod, snap.get("nodeC").pods[0], snap.get("nodeC"))
    assert plugin.filter(state, the_pod, snap.get("nodeA")) is None


def test_filter_without_prefilter_state_is_an_error() -> None:
    plugin, snap = setup([NODE1], [])
    st = plugin.filter(CycleState(), incoming(pod()), snap.get("node1"))
    assert st is not None and st.code == Code.ERROR


# -- Scoring ----------------------------------------------------------------------------

AZ1 = {"az": "az1"}
AZ2 = {"az": "az2"}
S1 = {"security": "S1"}
S2 = {"security": "S2"}

STAY_WITH_S1_IN_REGION = affinity(pref=[weighted(5, In("security", "region", "S1"))])
STAY_WITH_S2_IN_REGION = affinity(pref=[weighted(6, In("security", "region", "S2"))])
AFFINITY3 = affinity(
    pref=[
        weighted(
            8,
            term(expr("security", "NotIn", "S1"), expr("security", "In", "S2"), topo="region"),
        ),
        weighted(
            2, term(expr("security", "Exists"), expr("wrongkey", "DoesNotExist"), topo="region")
        ),
    ]
)
HARD_AFFINITY = affinity(
    req=[
        In("security", "region", "S1", "value2"),
        term(expr("security", "Exists"), expr("wrongkey", "DoesNotExist"), topo="region"),
    ]
)
AWAY_FROM_S1_IN_AZ = affinity(pref_anti=[weighted(5, In("security", "az", "S1"))])
AWAY_FROM_S2_IN_AZ = affinity(pref_anti=[weighted(5, In("security", "az", "S2"))])
STAY_S1_REGION_AWAY_S2_AZ = affinity(
    pref=[weighted(8, In("security", "region", "S1"))],
    pref_anti=[weighted(5, In("security", "az", "S2"))],
)
_NS_SEL_TERM = term(
    expr("security", "In", "S1"),
    topo="region",
    namespaces=["subteam2.team2"],
    namespaceSelector={"matchExpressions": [expr("team", "In", "team1")]},
)
AFFINITY_NS_SELECTOR = affinity(pref=[weighted(5, _NS_SEL_TERM)])
ANTI_AFFINITY_NS_SELECTOR = affinity(pref_anti=[weighted(5, _NS_SEL_TERM)])


def _nodes(*labels: dict[str, str]) -> list[dict[str, Any]]:
    return [node(f"node{i + 1}", lab) for i, lab in enumerate(labels)]


def _on(n: int, labels: dict[str, str] | None = None, **kw: Any) -> dict[str, Any]:
    return pod(labels, node=f"node{n}", **kw)


SCORE_CASES = [
    (
        "no_affinity_anywhere_skips",
        pod(S1),
        [],
        _nodes(RG_CHINA, RG_INDIA, AZ1),
        SKIP,
    ),
    (
        "affinity_matching_pod_and_topology_scores_highest",
        pod(S1, aff=STAY_WITH_S1_IN_REGION),
        [_on(1, S1), _on(2, S2), _on(3, S1)],
        _nodes(RG_CHINA, RG_INDIA, AZ1),
        [100, 0, 0],
    ),
    (
        "affinity_same_topology_value_same_score",
        pod(aff=STAY_WITH_S1_IN_REGION),
        [_on(1, S1)],
        _nodes(RG_CHINA, RG_CHINA_AZ1, RG_INDIA),
        [100, 100, 0],
    ),
    (
        "affinity_region_with_more_matches_wins",
        pod(S1, aff=STAY_WITH_S2_IN_REGION),
        [_on(1, S2), _on(1, S2), _on(2, S2), _on(3, S2), _on(4, S2), _on(5, S2)],
        _nodes(RG_CHINA, RG_INDIA, RG_CHINA, RG_CHINA, RG_INDIA),
        [100, 0, 100, 100, 0],
    ),
    (
        "affinity_operators_and_partial_matches",
        pod(S1, aff=AFFINITY3),
        [_on(1, S1), _on(2, S2), _on(3, S1)],
        _nodes(RG_CHINA, RG_INDIA, AZ1),
        [20, 100, 0],
    ),
    (
        "symmetry_existing_preferred_affinity",
        pod(S2),
        [_on(1, S1, aff=STAY_WITH_S1_IN_REGION), _on(2, S2, aff=STAY_WITH_S2_IN_REGION)],
        _nodes(RG_CHINA, RG_INDIA, AZ1),
        [0, 100, 0],
    ),
    (
        "symmetry_affinity_with_namespace_selector",
        pod(S1, ns="subteam1.team1"),
        [_on(1, S1, aff=AFFINITY_NS_SELECTOR), _on(2, S2, aff=STAY_WITH_S2_IN_REGION)],
        _nodes(RG_CHINA, RG_INDIA, AZ1),
        [100, 0, 0],
    ),
    (
        "symmetry_anti_affinity_with_namespace_selector",
        pod(S1, ns="subteam1.team1"),
        [_on(1, S1, aff=ANTI_AFFINITY_NS_SELECTOR), _on(2, S2, aff=STAY_WITH_S2_IN_REGION)],
        _nodes(RG_CHINA, RG_INDIA, AZ1),
        [0, 100, 100],
    ),
    (
        "symmetry_existing_required_affinity_uses_hard_weight",
        pod(S1),
        [_on(1, S1, aff=HARD_AFFINITY), _on(2, S2, aff=HARD_AFFINITY)],
        _nodes(RG_CHINA, RG_INDIA, AZ1),
        [100, 100, 0],
    ),
    (
        "anti_affinity_node_without_matching_pod_scores_highest",
        pod(S1, aff=AWAY_FROM_S1_IN_AZ),
        [_on(1, S1), _on(2, S2)],
        _nodes(AZ1, RG_CHINA),
        [0, 100],
    ),
    (
        "anti_affinity_node_without_topology_key_scores_highest",
        pod(S1, aff=AWAY_FROM_S1_IN_AZ),
        [_on(1, S1), _on(2, S1)],
        _nodes(AZ1, RG_CHINA),
        [0, 100],
    ),
    (
        "anti_affinity_more_matches_scores_lower",
        pod(S1, aff=AWAY_FROM_S1_IN_AZ),
        [_on(1, S1), _on(1, S1), _on(2, S2)],
        _nodes(AZ1, RG_INDIA),
        [0, 100],
    ),
    (
        "symmetry_existing_preferred_anti_affinity",
        pod(S2),
        [_on(1, S1, aff=AWAY_FROM_S2_IN_AZ), _on(2, S2, aff=AWAY_FROM_S1_IN_AZ)],
        _nodes(AZ1, AZ2),
        [0, 100],
    ),
    (
        "affinity_and_anti_affinity_together",
        pod(S1, aff=STAY_S1_REGION_AWAY_S2_AZ),
        [_on(1, S1), _on(2, S1)],
        _nodes(RG_CHINA, AZ1),
        [100, 0],
    ),
    (
        "same_labels_stay_in_region_spread_in_az",
        pod(S1, aff=STAY_S1_REGION_AWAY_S2_AZ),
        [_on(1, S1), _on(1, S1), _on(2, S1), _on(3, S1), _on(3, S1), _on(4, S1), _on(5, S1)],
        _nodes(RG_CHINA_AZ1, RG_INDIA, RG_CHINA, RG_CHINA, RG_INDIA),
        [100, 0, 100, 100, 0],
    ),
    (
        "affinity_anti_affinity_and_both_symmetries",
        pod(S1, aff=STAY_S1_REGION_AWAY_S2_AZ),
        [
            _on(1, S1),
            _on(2, S2),
            _on(3, aff=STAY_S1_REGION_AWAY_S2_AZ),
            _on(4, aff=AWAY_FROM_S1_IN_AZ),
        ],
        _nodes(RG_CHINA, AZ1, RG_INDIA, AZ2),
        [100, 0, 100, 0],
    ),
    (
        "equal_raw_scores_normalize_to_zero",
        pod(S1),
        [_on(1, S1), _on(2, aff=STAY_S1_REGION_AWAY_S2_AZ)],
        _nodes(RG_CHINA, RG_CHINA),
        [0, 0],
    ),
    (
        "namespace_selector_picks_pods_of_selected_namespaces",
        pod(S1, ns="subteam1.team1", aff=AFFINITY_NS_SELECTOR),
        [
            _on(1, S1, ns="subteam1.team1"),
            _on(1, S1, ns="subteam1.team1"),
            _on(1, S1, ns="subteam1.team2"),
            _on(2, S1, ns="subteam2.team1"),
        ],
        _nodes(RG_CHINA, RG_INDIA),
        [100, 0],
    ),
    (
        "namespace_selector_and_namespaces_both_count",
        pod(S1, ns="subteam1.team1", aff=AFFINITY_NS_SELECTOR),
        [
            _on(1, S1, ns="subteam1.team1"),
            _on(1, S1, ns="subteam1.team1"),
            _on(1, S1, ns="subteam2.team2"),
            _on(2, S1, ns="subteam2.team1"),
        ],
        _nodes(RG_CHINA, RG_INDIA),
        [100, 0],
    ),
    (
        "anti_affinity_namespace_selector",
        pod(S1, ns="subteam1.team1", aff=ANTI_AFFINITY_NS_SELECTOR),
        [
            _on(1, S1, ns="subteam1.team1"),
            _on(1, S1, ns="subteam1.team1"),
            _on(1, S1, ns="subteam1.team2"),
            _on(2, S1, ns="subteam2.team1"),
        ],
        _nodes(RG_CHINA, RG_INDIA),
        [0, 100],
    ),
    (
        "preferred_weights_sum_then_truncate",
        pod(S1, aff=affinity(pref=[weighted(1, In("security", "region", "S1"))])),
        [_on(1, S1), _on(2, S1), _on(2, S1), _on(2, S1)],
        _nodes({"region": "a"}, {"region": "b"}, {"region": "c"}),
        # raw 1, 3, 0 → 100 * 1/3 = 33.3 truncated
        [33, 100, 0],
    ),
    (
        "negative_raw_scores_shift_to_zero",
        pod(
            S1,
            aff=affinity(
                pref=[weighted(3, In("security", "region", "S1"))],
                pref_anti=[weighted(7, In("security", "az", "S2"))],
            ),
        ),
        [_on(1, S1), _on(2, S2), _on(2, S2)],
        _nodes({"region": "a"}, {"az": "x"}, {"region": "c", "az": "y"}),
        # raw 3, -14, 0 → (3+14)/17, 0, 14/17 → 100, 0, 82.35
        [100, 0, 82],
    ),
]


@pytest.mark.parametrize(
    ("incoming_pod", "pods", "nodes", "want"),
    [c[1:] for c in SCORE_CASES],
    ids=[c[0] for c in SCORE_CASES],
)
def test_score(incoming_pod: Any, pods: Any, nodes: Any, want: Any) -> None:
    assert run_score(incoming_pod, pods, nodes) == want


SYMMETRIC_PREFERENCES = [
    _on(1, S1, aff=STAY_S1_REGION_AWAY_S2_AZ),
    _on(2, S2, aff=STAY_WITH_S2_IN_REGION),
]


@pytest.mark.parametrize(
    ("ignore", "want"),
    [(True, SKIP), (False, [0, 100])],
    ids=["ignore_preferred_terms_of_existing_pods_skips", "existing_preferred_terms_count"],
)
def test_ignore_preferred_terms_of_existing_pods(ignore: bool, want: Any) -> None:
    got = run_score(
        pod(S2),
        SYMMETRIC_PREFERENCES,
        _nodes(RG_CHINA, RG_INDIA),
        args={"hardPodAffinityWeight": 1, "ignorePreferredTermsOfExistingPods": ignore},
    )
    assert got == want


def test_ignore_flag_keeps_existing_preferred_terms_when_pod_has_its_own() -> None:
    # the flag only skips pods without preferred terms; otherwise everything counts
    got = run_score(
        pod(S2, aff=affinity(pref=[weighted(1, In("security", "region", "none"))])),
        SYMMETRIC_PREFERENCES,
        _nodes(RG_CHINA, RG_INDIA),
        args={"ignorePreferredTermsOfExistingPods": True},
    )
    assert got == [0, 100]


def test_no_nodes_skips() -> None:
    assert run_score(pod(S2), [], []) == SKIP


SVC_S1 = {"service": "S1"}
HARD_POD_AFFINITY = affinity(
    req=[
        term(
            expr("service", "In", "S1"),
            topo="region",
            namespaces=["default", "subteam2.team2"],
            namespaceSelector={"matchExpressions": [expr("team", "In", "team1")]},
        )
    ]
)
HARD_WEIGHT_CASES = [
    ("default_weight", "default", {}, [100, 100, 0]),
    ("zero_weight_skips", "default", {"hardPodAffinityWeight": 0}, SKIP),
    ("no_matching_namespace_skips", "subteam1.team2", {}, SKIP),
    ("matching_namespace_selector", "subteam1.team1", {}, [100, 100, 0]),
    ("matching_namespaces_list", "subteam2.team2", {}, [100, 100, 0]),
]


@pytest.mark.parametrize(
    ("ns", "args", "want"),
    [c[1:] for c in HARD_WEIGHT_CASES],
    ids=[c[0] for c in HARD_WEIGHT_CASES],
)
def test_existing_required_affinity_with_hard_weight(ns: str, args: Any, want: Any) -> None:
    got = run_score(
        pod(SVC_S1, ns=ns),
        [_on(1, aff=HARD_POD_AFFINITY), _on(2, aff=HARD_POD_AFFINITY)],
        _nodes(RG_CHINA, RG_INDIA, AZ1),
        args=args,
    )
    assert got == want


def test_hard_weight_scales_raw_score() -> None:
    plugin, snap = setup(
        _nodes(RG_CHINA, RG_INDIA),
        [_on(1, aff=HARD_POD_AFFINITY)],
        NS_TEAMS,
        {"hardPodAffinityWeight": 7},
    )
    the_pod = incoming(pod(SVC_S1))
    state = CycleState()
    assert plugin.pre_score(state, the_pod, snap.node_info_list) is None
    assert plugin.score(state, the_pod, snap.get("node1")) == 7
    assert plugin.score(state, the_pod, snap.get("node2")) == 0


# -- factory ----------------------------------------------------------------------------


def test_factory_applies_upstream_defaults() -> None:
    plugin = new({}, FakeHandle(Snapshot([])))
    assert plugin.NAME == ipa.NAME == "InterPodAffinity"
    assert plugin.hard_pod_affinity_weight == 1
    assert plugin.ignore_preferred_terms_of_existing_pods is False
    assert ipa.PLUGIN is InterPodAffinity
    assert plugin.pre_filter_extensions() is plugin
    assert plugin.score_extensions() is plugin


def test_factory_rejects_out_of_range_weight() -> None:
    with pytest.raises(ValueError, match="not in valid range"):
        new({"hardPodAffinityWeight": 101}, FakeHandle(Snapshot([])))


# -- per-snapshot incremental counts agree with counting from scratch --------------------

_LABEL_CHOICES = [{"app": "a"}, {"app": "b"}, {"app": "a", "tier": "x"}, {}]
_TERM_CHOICES = [
    In("app", "zone", "a"),
    Exists("tier", "kubernetes.io/hostname"),
    NotIn("app", "zone", "b"),
]


def _random_pod(rng: Any, name: str) -> dict[str, Any]:
    aff = affinity(
        req=rng.sample(_TERM_CHOICES, rng.randint(0, 1)) or None,
        anti=rng.sample(_TERM_CHOICES, rng.randint(0, 2)) or None,
    )
    return pod(dict(rng.choice(_LABEL_CHOICES)), aff=aff, name=name)


@pytest.mark.parametrize("seed", range(8))
def test_cached_counts_match_counting_from_scratch(seed: int) -> None:
    import random

    from scheduler_engine.objects import parse_node, parse_pod

    rng = random.Random(seed)
    nodes = [
        parse_node(make_node(f"n{i}").zone(f"z{i % 3}").obj()) for i in range(rng.randint(1, 8))
    ]
    snap = Snapshot(nodes, [], {})
    cached = new({}, FakeHandle(snap))
    scratch = InterPodAffinity(None)
    placed: list[Any] = []
    for step in range(40):
        if placed and rng.random() < 0.3:
            victim = placed.pop(rng.randrange(len(placed)))
            snap.remove_pod(victim, victim.node_name)
        else:
            obj = _random_pod(rng, f"p{step}")
            obj["spec"]["nodeName"] = rng.choice(nodes).name
            p = parse_pod(obj)
            snap.add_pod(p, p.node_name)
            placed.append(p)
        the_pod = parse_pod(_random_pod(rng, "incoming"))
        a, b = CycleState(), CycleState()
        _, st_a = cached.pre_filter(a, the_pod, snap.node_info_list)
        _, st_b = scratch.pre_filter(b, the_pod, snap.node_info_list)
        assert outcome(st_a) == outcome(st_b)
        if st_a is None:
            assert _state_tuple(a.read(PRE_FILTER_STATE_KEY)) == _state_tuple(
                b.read(PRE_FILTER_STATE_KEY)
            )
            for ni in snap.node_info_list:
                assert outcome(cached.filter(a, the_pod, ni)) == outcome(
                    scratch.filter(b, the_pod, ni)
                )
