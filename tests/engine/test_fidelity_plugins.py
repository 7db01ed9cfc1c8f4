"""Rarely exercised branches of the node-local plugins, against upstream v1.36.

Each case names the upstream file and function whose behaviour it pins down;
expected values are worked out from upstream's formulas.  Where a plugin has a
batch path it is run too and must agree with the per-node result.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from scheduler_engine.framework import CycleState, Snapshot
from scheduler_engine.framework.interfaces import NodeScore
from scheduler_engine.framework.status import Code
from scheduler_engine.objects import parse_node, parse_pod
from scheduler_engine.plugins import imagelocality, nodeaffinity, nodeports, tainttoleration
from scheduler_engine.plugins.helper import (
    default_normalize_score,
    default_normalize_scores_array,
)
from scheduler_engine.plugins.noderesources import balanced_allocation, fit

U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
MB = 1024 * 1024
GPU = "nvidia.com/gpu"
HP = "hugepages-2Mi"


class _Handle:
    def __init__(self, snap: Snapshot | None) -> None:
        self._snap = snap
        self.cluster = None

    def snapshot(self) -> Snapshot | None:
        return self._snap


def _pod(spec: dict[str, Any], name: str = "p") -> Any:
    spec = {"containers": [{"name": "c"}], **spec}
    return parse_pod(
        {"kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}
    )


def _containers(*requests: dict[str, str]) -> list[dict[str, Any]]:
    return [{"name": f"c{i}", "resources": {"requests": r}} for i, r in enumerate(requests)]


def _node(name: str = "n1", alloc: dict[str, Any] | None = None, **extra: Any) -> Any:
    obj: dict[str, Any] = {
        "kind": "Node",
        "metadata": {"name": name, "labels": extra.pop("labels", {})},
        "spec": extra.pop("spec", {}),
        "status": {"allocatable": {k: str(v) for k, v in (alloc or {}).items()}, **extra},
    }
    return parse_node(obj)


def _snapshot(nodes: list[Any], pods: list[Any] = ()) -> Snapshot:  # type: ignore[assignment]
    return Snapshot(nodes, list(pods))


# -- NodeResourcesFit: Filter (fit.go fitsRequest) -----------------------------------

NODE_ALLOC = {
    "cpu": "2",
    "memory": "2Gi",
    "pods": 2,
    "ephemeral-storage": "10Gi",
    HP: "4Mi",
    GPU: 2,
}

FILTER_CASES = [
    # (id, pod requests, existing pods' requests, node allocatable, want (code, reasons) | None)
    (
        "over whole allocatable for cpu, merely short on memory: unresolvable, both reasons",
        {"cpu": "3", "memory": "1536Mi"},
        [{"memory": "1Gi"}],
        NODE_ALLOC,
        (UU, "Insufficient cpu", "Insufficient memory"),
    ),
    (
        "short on two resources, neither over allocatable: unschedulable",
        {"cpu": "1500m", "memory": "1536Mi"},
        [{"cpu": "1", "memory": "1Gi"}],
        NODE_ALLOC,
        (U, "Insufficient cpu", "Insufficient memory"),
    ),
    (
        "too many pods comes first and alone stays unschedulable",
        {"cpu": "1500m"},
        [{"cpu": "1"}, {}],
        NODE_ALLOC,
        (U, "Too many pods", "Insufficient cpu"),
    ),
    (
        "too many pods for a pod requesting nothing",
        {},
        [{}, {}],
        NODE_ALLOC,
        (U, "Too many pods"),
    ),
    (
        "ephemeral-storage over allocatable is unresolvable",
        {"ephemeral-storage": "11Gi"},
        [],
        NODE_ALLOC,
        (UU, "Insufficient ephemeral-storage"),
    ),
    (
        "ephemeral-storage on a node that reports none",
        {"ephemeral-storage": "1"},
        [],
        {"cpu": "2", "memory": "2Gi", "pods": 2},
        (UU, "Insufficient ephemeral-storage"),
    ),
    (
        "hugepages short but within allocatable",
        {HP: "4Mi"},
        [{HP: "2Mi"}],
        NODE_ALLOC,
        (U, "Insufficient hugepages-2Mi"),
    ),
    (
        "extended resource the node does not have",
        {"example.com/foo": "1"},
        [],
        NODE_ALLOC,
        (UU, "Insufficient example.com/foo"),
    ),
    (
        "zero quantity of a missing extended resource is not checked",
        {"example.com/foo": "0"},
        [],
        NODE_ALLOC,
        None,
    ),
    (
        "only extended resources requested, they fit",
        {GPU: "2"},
        [],
        NODE_ALLOC,
        None,
    ),
]


@pytest.mark.parametrize(
    ("pod_req", "existing", "alloc", "want"),
    [c[1:] for c in FILTER_CASES],
    ids=[c[0] for c in FILTER_CASES],
)
def test_fit_filter_reasons_and_codes(pod_req, existing, alloc, want) -> None:
    pods = [
        _pod({"containers": _containers(r), "nodeName": "n1"}, name=f"e{i}")
        for i, r in enumerate(existing)
    ]
    snap = _snapshot([_node("n1", alloc)], pods)
    plugin = fit.new({}, _Handle(snap))  # type: ignore[arg-type]
    pod = _pod({"containers": _containers(pod_req)})
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    ni = snap.node_info_list[0]
    got = plugin.filter(state, pod, ni)
    assert bool(plugin.filter_batch(state, pod, [ni])[0]) == (got is None)
    if want is None:
        assert got is None
    else:
        assert (got.code, *got.reasons) == want


def test_fit_ignored_resource_groups_do_not_cover_hugepages() -> None:
    # fit.go fitsRequest: only extended resource names can be ignored
    snap = _snapshot([_node("n1", {"cpu": "1", "pods": 1})])
    plugin = fit.new({"ignoredResourceGroups": ["hugepages-2Mi"]}, _Handle(snap))  # type: ignore[arg-type]
    pod = _pod({"containers": _containers({HP: "2Mi"})})
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    got = plugin.filter(state, pod, snap.node_info_list[0])
    assert got is not None and tuple(got.reasons) == ("Insufficient hugepages-2Mi",)


# -- NodeResourcesFit / BalancedAllocation: scoring (resource_allocation.go) ---------

LEAST = {"scoringStrategy": {"type": "LeastAllocated"}}


def _with(resources: list[tuple[str, int]], kind: str = "LeastAllocated") -> dict[str, Any]:
    return {
        "scoringStrategy": {
            "type": kind,
            "resources": [{"name": n, "weight": w} for n, w in resources],
        }
    }


SCORE_CASES = [
    # (id, args, pod spec, node allocatable, want raw score)
    (
        # calculatePodResourceRequest: the scorer fills missing container cpu/memory
        # with 100m/200Mi even when pod-level requests are set; pod-level memory
        # then overrides memory: cpu 500m+100m, memory 1Gi
        "pod-level requests: missing container cpu still defaults to 100m in scoring",
        LEAST,
        {
            "resources": {"requests": {"memory": "1Gi"}},
            "containers": _containers({"cpu": "500m"}, {}),
        },
        {"cpu": "4", "memory": "4Gi", "pods": 10},
        (85 + 75) // 2,
    ),
    (
        "pod-level cpu overrides the defaulted container sum",
        LEAST,
        {
            "resources": {"requests": {"cpu": "1"}},
            "containers": _containers({"memory": "1Gi"}, {}),
        },
        # cpu 1000m -> 75; memory 1Gi + 200Mi of 4Gi -> (4096-1224)*100/4096 = 70
        {"cpu": "4", "memory": "4Gi", "pods": 10},
        (75 + 70) // 2,
    ),
    (
        "scalar the pod requests but the node lacks: skipped, not counted as 0",
        _with([("cpu", 1), ("memory", 1), (GPU, 3)]),
        {"containers": _containers({"cpu": "1", "memory": "1Gi", GPU: "1"})},
        {"cpu": "4", "memory": "4Gi", "pods": 10},
        75,
    ),
    (
        "scalar the node has but the pod does not request: skipped",
        _with([("cpu", 1), ("memory", 1), (GPU, 3)]),
        {"containers": _containers({"cpu": "1", "memory": "1Gi"})},
        {"cpu": "4", "memory": "4Gi", "pods": 10, GPU: 8},
        75,
    ),
    (
        "ephemeral-storage not requested is still counted (not a scalar)",
        _with([("cpu", 1), ("ephemeral-storage", 1)]),
        {"containers": _containers({"cpu": "1"})},
        {"cpu": "4", "memory": "4Gi", "ephemeral-storage": "10Gi", "pods": 10},
        (75 + 100) // 2,
    ),
    (
        "node without cpu allocatable: cpu left out",
        LEAST,
        {"containers": _containers({"cpu": "1", "memory": "1Gi"})},
        {"memory": "4Gi", "pods": 10},
        75,
    ),
    (
        "pods resource in the scoring list is never counted",
        _with([("cpu", 1), ("pods", 5)], "MostAllocated"),
        {"containers": _containers({"cpu": "1"})},
        {"cpu": "4", "memory": "4Gi", "pods": 10},
        25,
    ),
    (
        "requested over capacity: most allocated caps at 100",
        _with([("cpu", 1)], "MostAllocated"),
        {"containers": _containers({"cpu": "8"})},
        {"cpu": "4", "memory": "4Gi", "pods": 10},
        100,
    ),
    (
        "requested to capacity ratio: a zero-scoring resource drops its weight",
        {
            "scoringStrategy": {
                "type": "RequestedToCapacityRatio",
                "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 3}],
                "requestedToCapacityRatio": {
                    "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
                },
            }
        },
        # cpu 2/4 -> 50; an explicit memory 0 gets no default: utilisation 0 scores 0
        # and the memory weight leaves the average
        {"containers": _containers({"cpu": "2", "memory": "0"})},
        {"cpu": "4", "memory": "4Gi", "pods": 10},
        50,
    ),
]


@pytest.mark.parametrize(
    ("args", "spec", "alloc", "want"),
    [c[1:] for c in SCORE_CASES],
    ids=[c[0] for c in SCORE_CASES],
)
def test_fit_score_edges(args, spec, alloc, want) -> None:
    snap = _snapshot([_node("n1", alloc)])
    plugin = fit.new(args, _Handle(snap))  # type: ignore[arg-type]
    pod = _pod(spec)
    state = CycleState()
    assert plugin.pre_score(state, pod, snap.node_info_list) is None
    ni = snap.node_info_list[0]
    got = plugin.score(state, pod, ni)
    assert plugin.score_batch(state, pod, [ni]).tolist() == [got]
    assert got == want


BALANCED_CASES = [
    # (id, pod requests, node allocatable, want (skip, score))
    ("pod requesting only extended resources: PreScore skips", {GPU: "1"}, {"cpu": "4"}, (True, 0)),
    (
        "explicit zero requests: PreScore skips",
        {"cpu": "0", "memory": "0"},
        {"cpu": "4"},
        (True, 0),
    ),
    # one resource left: std 0 with and without the pod -> 50 + (50 + 0)/2
    ("node without memory allocatable", {"cpu": "1", "memory": "1Gi"}, {"cpu": "4"}, (False, 75)),
    ("node with nothing allocatable", {"cpu": "1"}, {"pods": 1}, (False, 75)),
    # with pod: |0.5 - 1|/2 = .25 -> 75; without: 100 -> 50 + (50 + 75 - 100)/2 = 62
    (
        "memory over capacity is capped at 1",
        {"cpu": "2", "memory": "8Gi"},
        {"cpu": "4", "memory": "4Gi"},
        (False, 62),
    ),
]


@pytest.mark.parametrize(
    ("req", "alloc", "want"), [c[1:] for c in BALANCED_CASES], ids=[c[0] for c in BALANCED_CASES]
)
def test_balanced_allocation_edges(req, alloc, want) -> None:
    snap = _snapshot([_node("n1", alloc)])
    plugin = balanced_allocation.new({}, _Handle(snap))  # type: ignore[arg-type]
    pod = _pod({"containers": _containers(req)})
    state = CycleState()
    st = plugin.pre_score(state, pod, snap.node_info_list)
    skip, score = want
    assert (st is not None and st.code == Code.SKIP) == skip
    ni = snap.node_info_list[0]
    got = plugin.score(state, pod, ni)
    assert plugin.score_batch(state, pod, [ni]).tolist() == [got]
    assert got == score


# -- TaintToleration (taint_toleration.go) ---------------------------------------------


def _tol(key: str = "", op: str = "", value: str = "", effect: str = "") -> dict[str, str]:
    return {
        k: v for k, v in (("key", key), ("operator", op), ("value", value), ("effect", effect)) if v
    }


TAINT_SCORE_CASES = [
    # (id, tolerations, want raw score for a node with taints a=1:PreferNoSchedule, b=2:PreferNoSchedule)
    ("no tolerations: both count", [], 2),
    ("empty effect tolerates PreferNoSchedule", [_tol("a", "Equal", "1")], 1),
    (
        "NoSchedule toleration is not a PreferNoSchedule one",
        [_tol("a", "Equal", "1", "NoSchedule")],
        2,
    ),
    ("empty key with Exists tolerates everything", [_tol(op="Exists")], 0),
    (
        "Gt is off in v1.36 (TaintTolerationComparisonOperators)",
        [_tol("b", "Gt", "1", "PreferNoSchedule")],
        2,
    ),
]


@pytest.mark.parametrize(
    ("tolerations", "want"),
    [c[1:] for c in TAINT_SCORE_CASES],
    ids=[c[0] for c in TAINT_SCORE_CASES],
)
def test_taint_toleration_score(tolerations, want) -> None:
    node = _node(
        "n1",
        {"pods": 1},
        spec={
            "taints": [
                {"key": "a", "value": "1", "effect": "PreferNoSchedule"},
                {"key": "b", "value": "2", "effect": "PreferNoSchedule"},
            ]
        },
    )
    snap = _snapshot([node])
    plugin = tainttoleration.new({}, _Handle(snap))  # type: ignore[arg-type]
    pod = _pod({"tolerations": tolerations})
    state = CycleState()
    plugin.pre_score(state, pod, snap.node_info_list)
    ni = snap.node_info_list[0]
    got = plugin.score(state, pod, ni)
    assert plugin.score_batch(state, pod, [ni]).tolist() == [got]
    assert got == want


# -- NodeAffinity (node_affinity.go) -----------------------------------------------------


def _pref(weight: int, term: dict[str, Any]) -> dict[str, Any]:
    return {"weight": weight, "preference": term}


ZONE_A = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
NAME_N1 = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}

AFFINITY_CASES = [
    # (id, pod preferred terms | None, added preferred | None, want skip, want raw scores n1, n2)
    ("no preferred terms anywhere: skip", None, None, True, None),
    ("pod terms of weight 0 still score (0), no skip", [_pref(0, ZONE_A)], None, False, [0, 0]),
    # NewPreferredSchedulingTerms keeps a non-nil set even when every term is dropped
    ("added terms all of weight 0: no skip, scores 0", None, [_pref(0, ZONE_A)], False, [0, 0]),
    ("matchFields in a preferred term", [_pref(7, NAME_N1)], None, False, [7, 0]),
    ("added and pod terms add up", [_pref(2, ZONE_A)], [_pref(5, NAME_N1)], False, [5, 2]),
]


@pytest.mark.parametrize(
    ("pod_pref", "added_pref", "skip", "want"),
    [c[1:] for c in AFFINITY_CASES],
    ids=[c[0] for c in AFFINITY_CASES],
)
def test_node_affinity_preferred(pod_pref, added_pref, skip, want) -> None:
    snap = _snapshot(
        [
            _node("n1", {"pods": 1}, labels={"zone": "b"}),
            _node("n2", {"pods": 1}, labels={"zone": "a"}),
        ]
    )
    args = (
        {"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": added_pref}}
        if added_pref
        else {}
    )
    plugin = nodeaffinity.new(args, _Handle(snap))  # type: ignore[arg-type]
    spec: dict[str, Any] = {}
    if pod_pref is not None:
        spec["affinity"] = {
            "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": pod_pref}
        }
    pod = _pod(spec)
    state = CycleState()
    st = plugin.pre_score(state, pod, snap.node_info_list)
    assert (st is not None and st.code == Code.SKIP) == skip
    if skip:
        return
    got = [plugin.score(state, pod, ni) for ni in snap.node_info_list]
    assert plugin.score_batch(state, pod, snap.node_info_list).tolist() == got
    assert got == want


# -- NodePorts (node_ports.go, HostPortInfo.CheckConflict) ------------------------------

PORT_CASES = [
    # (id, existing (hostIP, protocol, port), wanted (hostIP, protocol, port), conflict)
    ("same port, other protocol", ("", "UDP", 80), ("", "TCP", 80), False),
    ("empty protocol means TCP", ("", "", 80), ("", "TCP", 80), True),
    (
        "wanted 0.0.0.0 conflicts with any address",
        ("10.0.0.1", "TCP", 80),
        ("0.0.0.0", "TCP", 80),
        True,
    ),
    ("empty hostIP means 0.0.0.0", ("10.0.0.1", "TCP", 80), ("", "TCP", 80), True),
    (
        "used on 0.0.0.0 conflicts with a specific address",
        ("", "TCP", 80),
        ("10.0.0.2", "TCP", 80),
        True,
    ),
    (
        "two specific addresses do not conflict",
        ("10.0.0.1", "TCP", 80),
        ("10.0.0.2", "TCP", 80),
        False,
    ),
    ("'::' is not a wildcard", ("::", "TCP", 80), ("10.0.0.2", "TCP", 80), False),
]


def _port_pod(name: str, ip: str, proto: str, port: int, node: str = "") -> Any:
    p: dict[str, Any] = {"containerPort": port, "hostPort": port}
    if ip:
        p["hostIP"] = ip
    if proto:
        p["protocol"] = proto
    spec: dict[str, Any] = {"containers": [{"name": "c", "ports": [p]}]}
    if node:
        spec["nodeName"] = node
    return _pod(spec, name=name)


@pytest.mark.parametrize(
    ("used", "wanted", "conflict"), [c[1:] for c in PORT_CASES], ids=[c[0] for c in PORT_CASES]
)
def test_node_ports_wildcards(used, wanted, conflict) -> None:
    snap = _snapshot([_node("n1", {"pods": 5})], [_port_pod("e", *used, node="n1")])
    plugin = nodeports.new({}, _Handle(snap))  # type: ignore[arg-type]
    pod = _port_pod("p", *wanted)
    state = CycleState()
    plugin.pre_filter(state, pod, snap.node_info_list)
    got = plugin.filter(state, pod, snap.node_info_list[0])
    assert (got is not None) == conflict
    if conflict:
        assert got.code == U


# -- ImageLocality (image_locality.go) ---------------------------------------------------


def _image_node(name: str, *images: tuple[list[str], int]) -> Any:
    return _node(name, {"pods": 1}, images=[{"names": n, "sizeBytes": s} for n, s in images])


IMAGE_CASES = [
    # (id, containers' images, init images, volume images, want raw score on n1 of 2 nodes)
    # 500MB on 1 of 2 nodes -> 250MB; one container: (250-23)*100/(1000-23) = 23
    ("untagged name matches :latest on the node", ["repo/big"], [], [], 23),
    ("digest reference is taken as is", ["repo/big@sha256:abc"], [], [], 23),
    # init container counts in numContainers: (250-23)*100/(2000-23) = 11
    ("init container image scores and widens the range", ["other"], ["repo/big"], [], 11),
    # image volumes score but do not count as containers
    ("image volume scores, not a container", ["other"], [], ["repo/big:latest"], 23),
    ("below 23MB total scores 0", ["repo/small"], [], [], 0),
]


@pytest.mark.parametrize(
    ("images", "inits", "volumes", "want"),
    [c[1:] for c in IMAGE_CASES],
    ids=[c[0] for c in IMAGE_CASES],
)
def test_image_locality_edges(images, inits, volumes, want) -> None:
    n1 = _image_node(
        "n1",
        (["repo/big:latest", "repo/big@sha256:abc"], 500 * MB),
        (["repo/small:latest"], 40 * MB),
    )
    snap = _snapshot([n1, _image_node("n2")])
    plugin = imagelocality.new({}, _Handle(snap))  # type: ignore[arg-type]
    spec: dict[str, Any] = {
        "containers": [{"name": f"c{i}", "image": im} for i, im in enumerate(images)]
    }
    if inits:
        spec["initContainers"] = [{"name": f"i{i}", "image": im} for i, im in enumerate(inits)]
    if volumes:
        spec["volumes"] = [
            {"name": f"v{i}", "image": {"reference": r}} for i, r in enumerate(volumes)
        ]
    pod = _pod(spec)
    state = CycleState()
    got = [plugin.score(state, pod, ni) for ni in snap.node_info_list]
    assert plugin.score_batch(state, pod, snap.node_info_list).tolist() == got
    assert got[0] == want


# -- helper.DefaultNormalizeScore (normalize_score.go) -----------------------------------

NORMALIZE_CASES = [
    # (id, reverse, raw, want)
    ("all zero stays zero", False, [0, 0, 0], [0, 0, 0]),
    ("all zero reversed becomes max", True, [0, 0, 0], [100, 100, 100]),
    ("max equals min (non-zero): all max", False, [4, 4], [100, 100]),
    ("max equals min reversed: all zero", True, [4, 4], [0, 0]),
    ("truncates toward zero", False, [1, 3], [33, 100]),
    # Go int64 division truncates toward zero: 100*-5/3 = -166, not -167
    ("negative scores truncate toward zero", False, [-5, 3], [-166, 100]),
    ("all negative: max count 0 leaves them", False, [-5, -1], [-5, -1]),
    ("all negative reversed: all max", True, [-5, -1], [100, 100]),
]


@pytest.mark.parametrize(
    ("reverse", "raw", "want"),
    [c[1:] for c in NORMALIZE_CASES],
    ids=[c[0] for c in NORMALIZE_CASES],
)
def test_default_normalize_score(reverse, raw, want) -> None:
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    default_normalize_score(100, reverse, scores)
    assert [s.score for s in scores] == want
    arr = np.array(raw, dtype=np.int64)
    default_normalize_scores_array(100, reverse, arr)
    assert arr.tolist() == want
