"""NodeResourcesFit: upstream's fit_test.go, least/most/requested_to_capacity_ratio tables.

Expected statuses, reasons and scores are upstream's.  Every case is also run
through the batch paths, which must agree exactly; hypothesis checks the same
on random clusters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler_engine.cluster import ClusterState
from scheduler_engine.framework import CycleState, NodeInfo, Snapshot
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.gocompat import go_div, go_round
from scheduler_engine.objects import parse_node, parse_pod
from scheduler_engine.plugins.noderesources import fit
from scheduler_engine.plugins.noderesources.resource_allocation import broken_linear_function

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_IO_A = "kubernetes.io/something"
K8S_IO_B = "subdomain.kubernetes.io/something"
HUGEPAGES = "hugepages-2Mi"
DRA_EXT = "extended.resource.dra.io/something"
EXT_RES = "abc.com/xyz"

_counter = iter(range(1_000_000))


# -- local builders ----------------------------------------------------------------


def req(cpu_m: int = 0, mem: int = 0, eph: int = 0, **scalars: int) -> dict[str, Any]:
    """A container request in upstream's test shape (always lists cpu/memory, as newResourcePod)."""
    out: dict[str, Any] = {"cpu": f"{cpu_m}m", "memory": str(mem)}
    if eph:
        out["ephemeral-storage"] = str(eph)
    out.update({k: str(v) for k, v in scalars.items()})
    return out


def make_pod(
    *containers: dict[str, Any],
    init: tuple[dict[str, Any], ...] = (),
    sidecars: tuple[dict[str, Any], ...] = (),
    overhead: dict[str, str] | None = None,
    pod_resources: dict[str, str] | None = None,
    node: str = "",
    name: str | None = None,
):
    spec: dict[str, Any] = {
        "containers": [
            {"name": f"c{i}", "resources": {"requests": r}} for i, r in enumerate(containers)
        ],
    }
    inits = [
        {"name": f"s{i}", "restartPolicy": "Always", "resources": {"requests": r}}
        for i, r in enumerate(sidecars)
    ] + [{"name": f"i{i}", "resources": {"requests": r}} for i, r in enumerate(init)]
    if inits:
        spec["initContainers"] = inits
    if overhead:
        spec["overhead"] = overhead
    if pod_resources:
        spec["resources"] = {"requests": pod_resources}
    if node:
        spec["nodeName"] = node
    return parse_pod(
        {
            "kind": "Pod",
            "metadata": {"name": name or f"p{next(_counter)}", "namespace": "default"},
            "spec": spec,
        }
    )


def make_node(name: str, alloc: dict[str, Any]):
    return parse_node(
        {
            "kind": "Node",
            "metadata": {"name": name},
            "status": {"allocatable": {k: str(v) for k, v in alloc.items()}},
        }
    )


class FakeHandle:
    def __init__(self, snapshot: Snapshot | None = None, objects: dict | None = None) -> None:
        self._snapshot = snapshot
        self.cluster = ClusterState(objects=objects or {})

    def snapshot(self) -> Snapshot | None:
        return self._snapshot


def device_class(name: str, ext: str | None = None, created: str | None = None) -> dict:
    meta: dict[str, Any] = {"name": name}
    if created:
        meta["creationTimestamp"] = created
    spec = {"extendedResourceName": ext} if ext else {}
    return {"kind": "DeviceClass", "metadata": meta, "spec": spec}


def run_filter(plugin: fit.Fit, pod, ni: NodeInfo) -> Status | None:
    state = CycleState()
    _, st_ = plugin.pre_filter(state, pod, [ni])
    assert st_ is None
    got = plugin.filter(state, pod, ni)
    batch = plugin.filter_batch(state, pod, [ni])
    assert bool(batch[0]) == (got is None)
    assert _said(plugin.filter_statuses_batch(state, pod, [ni])) == _said([got])
    return got


def _said(statuses: list[Status | None]) -> list[tuple[Code, tuple[str, ...]] | None]:
    return [None if st is None else (st.code, tuple(st.reasons)) for st in statuses]


# -- Filter: upstream TestEnoughRequests and friends -------------------------------

# node of the upstream tables: 10m cpu, 20 memory, 32 pods, 5 example.com/aaa, 20 ephemeral, 5 hugepages
ENOUGH_NODE = {
    "cpu": "10m",
    "memory": 20,
    "pods": 32,
    EXT_A: 5,
    "ephemeral-storage": 20,
    HUGEPAGES: 5,
}

U = Code.UNSCHEDULABLE
UU = Code.UNSCHEDULABLE_AND_UNRESOLVABLE

ENOUGH_CASES = [
    # (name, pod, existing pod on the node, args, device classes, want (code, reasons) or None)
    ("no resources requested always fits", make_pod(), make_pod(req(10, 20)), {}, [], None),
    (
        "too many resources fails",
        make_pod(req(1, 1)),
        make_pod(req(10, 20)),
        {},
        [],
        (U, "Insufficient cpu", "Insufficient memory"),
    ),
    (
        "too many resources fails due to init container cpu",
        make_pod(req(1, 1), init=(req(3, 1),)),
        make_pod(req(8, 19)),
        {},
        [],
        (U, "Insufficient cpu"),
    ),
    (
        "too many resources fails due to highest init container cpu",
        make_pod(req(1, 1), init=(req(3, 1), req(2, 1))),
        make_pod(req(8, 19)),
        {},
        [],
        (U, "Insufficient cpu"),
    ),
    (
        "too many resources fails due to init container memory",
        make_pod(req(1, 1), init=(req(1, 3),)),
        make_pod(req(9, 19)),
        {},
        [],
        (U, "Insufficient memory"),
    ),
    (
        "too many resources fails due to highest init container memory",
        make_pod(req(1, 1), init=(req(1, 3), req(1, 2))),
        make_pod(req(9, 19)),
        {},
        [],
        (U, "Insufficient memory"),
    ),
    (
        "init container fits because it's the max, not sum, of containers and init containers",
        make_pod(req(1, 1), init=(req(1, 1),)),
        make_pod(req(9, 19)),
        {},
        [],
        None,
    ),
    (
        "multiple init containers fit because it's the max, not sum",
        make_pod(req(1, 1), init=(req(1, 1), req(1, 1))),
        make_pod(req(9, 19)),
        {},
        [],
        None,
    ),
    ("both resources fit", make_pod(req(1, 1)), make_pod(req(5, 5)), {}, [], None),
    (
        "one resource memory fits",
        make_pod(req(2, 1)),
        make_pod(req(9, 5)),
        {},
        [],
        (U, "Insufficient cpu"),
    ),
    (
        "one resource cpu fits",
        make_pod(req(1, 2)),
        make_pod(req(5, 19)),
        {},
        [],
        (U, "Insufficient memory"),
    ),
    ("equal edge case", make_pod(req(5, 1)), make_pod(req(5, 19)), {}, [], None),
    (
        "equal edge case for init container",
        make_pod(req(4, 1), init=(req(5, 1),)),
        make_pod(req(5, 19)),
        {},
        [],
        None,
    ),
    (
        "extended resource fits",
        make_pod({EXT_A: "1"}),
        make_pod(),
        {},
        [],
        None,
    ),
    (
        "extended resource fits for init container",
        make_pod(init=({EXT_A: "1"},)),
        make_pod(),
        {},
        [],
        None,
    ),
    (
        "extended resource capacity enforced",
        make_pod({**req(1, 1), EXT_A: "10"}),
        make_pod({**req(0, 0), EXT_A: "0"}),
        {},
        [],
        (UU, f"Insufficient {EXT_A}"),
    ),
    (
        "extended resource capacity enforced for init container",
        make_pod(init=({**req(1, 1), EXT_A: "10"},)),
        make_pod({**req(0, 0), EXT_A: "0"}),
        {},
        [],
        (UU, f"Insufficient {EXT_A}"),
    ),
    (
        "extended resource allocatable enforced",
        make_pod({**req(1, 1), EXT_A: "1"}),
        make_pod({**req(0, 0), EXT_A: "5"}),
        {},
        [],
        (U, f"Insufficient {EXT_A}"),
    ),
    (
        "extended resource allocatable enforced for init container",
        make_pod(init=({**req(1, 1), EXT_A: "1"},)),
        make_pod({**req(0, 0), EXT_A: "5"}),
        {},
        [],
        (U, f"Insufficient {EXT_A}"),
    ),
    (
        "extended resource allocatable enforced for multiple containers",
        make_pod({**req(1, 1), EXT_A: "3"}, {**req(1, 1), EXT_A: "3"}),
        make_pod({**req(0, 0), EXT_A: "2"}),
        {},
        [],
        (UU, f"Insufficient {EXT_A}"),
    ),
    (
        "extended resource allocatable admits multiple init containers",
        make_pod(init=({**req(1, 1), EXT_A: "3"}, {**req(1, 1), EXT_A: "3"})),
        make_pod({**req(0, 0), EXT_A: "2"}),
        {},
        [],
        None,
    ),
    (
        "extended resource allocatable enforced for multiple init containers",
        make_pod(init=({**req(1, 1), EXT_A: "6"}, {**req(1, 1), EXT_A: "3"})),
        make_pod({**req(0, 0), EXT_A: "2"}),
        {},
        [],
        (UU, f"Insufficient {EXT_A}"),
    ),
    (
        "extended resource allocatable enforced for unknown resource",
        make_pod({**req(1, 1), EXT_B: "1"}),
        make_pod(req(0, 0)),
        {},
        [],
        (UU, f"Insufficient {EXT_B}"),
    ),
    (
        "extended resource allocatable enforced for unknown resource for init container",
        make_pod(init=({**req(1, 1), EXT_B: "1"},)),
        make_pod(req(0, 0)),
        {},
        [],
        (UU, f"Insufficient {EXT_B}"),
    ),
    (
        "kubernetes.io resource capacity enforced",
        make_pod({**req(1, 1), K8S_IO_A: "10"}),
        make_pod(req(0, 0)),
        {},
        [],
        (UU, f"Insufficient {K8S_IO_A}"),
    ),
    (
        "kubernetes.io resource capacity enforced for init container",
        make_pod(init=({**req(1, 1), K8S_IO_B: "10"},)),
        make_pod(req(0, 0)),
        {},
        [],
        (UU, f"Insufficient {K8S_IO_B}"),
    ),
    (
        "hugepages resource capacity enforced",
        make_pod({**req(1, 1), HUGEPAGES: "10"}),
        make_pod({**req(0, 0), HUGEPAGES: "0"}),
        {},
        [],
        (UU, f"Insufficient {HUGEPAGES}"),
    ),
    (
        "hugepages resource capacity enforced for init container",
        make_pod(init=({**req(1, 1), HUGEPAGES: "10"},)),
        make_pod({**req(0, 0), HUGEPAGES: "0"}),
        {},
        [],
        (UU, f"Insufficient {HUGEPAGES}"),
    ),
    (
        "hugepages resource allocatable enforced for multiple containers",
        make_pod({**req(1, 1), HUGEPAGES: "3"}, {**req(1, 1), HUGEPAGES: "3"}),
        make_pod({**req(0, 0), HUGEPAGES: "2"}),
        {},
        [],
        (UU, f"Insufficient {HUGEPAGES}"),
    ),
    (
        "skip checking ignored extended resource",
        make_pod({**req(1, 1), EXT_B: "1"}),
        make_pod(req(0, 0)),
        {"ignoredResources": ["example.com/bbb"]},
        [],
        None,
    ),
    (
        "resources + pod overhead fits",
        make_pod(req(1, 1), overhead={"cpu": "3m", "memory": "13"}),
        make_pod(req(5, 5)),
        {},
        [],
        None,
    ),
    (
        "requests + overhead does not fit for memory",
        make_pod(req(1, 1), overhead={"cpu": "1m", "memory": "15"}),
        make_pod(req(5, 5)),
        {},
        [],
        (U, "Insufficient memory"),
    ),
    (
        "skip checking ignored extended resource via resource groups",
        make_pod({**req(1, 1), EXT_B: "1", K8S_IO_A: "1"}),
        make_pod(req(0, 0)),
        {"ignoredResourceGroups": ["example.com"]},
        [],
        (UU, f"Insufficient {K8S_IO_A}"),
    ),
    (
        "ignoredResources does not apply to kubernetes.io resources",
        make_pod({**req(1, 1), K8S_IO_A: "1"}),
        make_pod(req(0, 0)),
        {"ignoredResources": [K8S_IO_A], "ignoredResourceGroups": ["kubernetes.io"]},
        [],
        (UU, f"Insufficient {K8S_IO_A}"),
    ),
    (
        "skip checking extended resource request with quantity zero",
        make_pod({**req(1, 1), EXT_A: "0"}),
        make_pod({**req(0, 0), EXT_A: "6"}),
        {},
        [],
        None,
    ),
    (
        "both pod-level and container-level resources fit",
        make_pod(req(1, 1), pod_resources={"cpu": "1m", "memory": "2"}),
        make_pod(req(5, 5)),
        {},
        [],
        None,
    ),
    (
        "pod-level cpu resource not fit",
        make_pod(req(1, 1), pod_resources={"cpu": "7m", "memory": "2"}),
        make_pod(req(5, 5)),
        {},
        [],
        (U, "Insufficient cpu"),
    ),
    (
        "pod-level memory resource not fit",
        make_pod(req(1, 1), pod_resources={"cpu": "3m", "memory": "2"}),
        make_pod(req(5, 19)),
        {},
        [],
        (U, "Insufficient memory"),
    ),
    (
        "pod-level hugepages resource fit",
        make_pod(pod_resources={"cpu": "3m", "memory": "2", HUGEPAGES: "5"}),
        None,
        {},
        [],
        None,
    ),
    (
        "pod-level hugepages resource not fit",
        make_pod(pod_resources={"cpu": "3m", "memory": "2", HUGEPAGES: "10"}),
        None,
        {},
        [],
        (UU, f"Insufficient {HUGEPAGES}"),
    ),
    (
        "one pod-level cpu resource fits and all init and non-init containers resources fit",
        make_pod(req(1, 1), init=(req(1, 1),), pod_resources={"cpu": "3m", "memory": "2"}),
        make_pod(req(5, 19)),
        {},
        [],
        (U, "Insufficient memory"),
    ),
    (
        "extended resource backed by device plugin",
        make_pod({EXT_A: "1"}),
        make_pod(),
        {},
        [device_class("device-class-name", DRA_EXT)],
        None,
    ),
    (
        "extended resource backed by DRA is left to DynamicResources",
        make_pod({**req(1, 1), DRA_EXT: "1"}),
        make_pod(req(0, 0)),
        {},
        [device_class("device-class-name", DRA_EXT)],
        None,
    ),
    (
        "implicit device class resource name is left to DynamicResources",
        make_pod({**req(1, 1), "deviceclass.resource.kubernetes.io/gpu": "1"}),
        make_pod(req(0, 0)),
        {},
        [device_class("gpu")],
        None,
    ),
    (
        "extended resource without a DeviceClass fails as unresolvable",
        make_pod({**req(1, 1), DRA_EXT: "1"}),
        make_pod(req(0, 0)),
        {},
        [],
        (UU, f"Insufficient {DRA_EXT}"),
    ),
    (
        "extended resource NOT backed by DRA",
        make_pod({**req(1, 1), EXT_B: "1"}),
        make_pod(req(0, 0)),
        {},
        [device_class("device-class-name", DRA_EXT)],
        (UU, f"Insufficient {EXT_B}"),
    ),
    (
        "resource the node advertises is checked even when a DeviceClass maps it",
        make_pod({EXT_A: "6"}),
        make_pod(),
        {},
        [device_class("device-class-name", EXT_A)],
        (UU, f"Insufficient {EXT_A}"),
    ),
]


@pytest.mark.parametrize(
    ("pod", "existing", "args", "classes", "want"),
    [c[1:] for c in ENOUGH_CASES],
    ids=[c[0] for c in ENOUGH_CASES],
)
def test_filter_enough_requests(pod, existing, args, classes, want) -> None:
    ni = NodeInfo(make_node("n", ENOUGH_NODE))
    if existing is not None:
        ni.add_pod(existing)
    plugin = fit.new(args, FakeHandle(objects={"DeviceClass": classes}))
    got = run_filter(plugin, pod, ni)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert (got.code, *got.reasons) == want


NOT_ENOUGH_PODS = [
    ("even without specified resources, predicate fails when there's no space for additional pod", make_pod(), make_pod(req(10, 20))),
    ("even if both resources fit, predicate fails when there's no space for additional pod", make_pod(req(1, 1)), make_pod(req(5, 5))),
    ("even for equal edge case, predicate fails when there's no space for additional pod", make_pod(req(5, 1)), make_pod(req(5, 19))),
    (
        "even for equal edge case, predicate fails when there's no space for additional pod due to init container",
        make_pod(req(5, 1), init=(req(5, 1),)),
        make_pod(req(5, 19)),
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pod", "existing"), [c[1:] for c in NOT_ENOUGH_PODS], ids=[c[0] for c in NOT_ENOUGH_PODS]
)
def test_filter_too_many_pods_is_resolvable(pod, existing) -> None:
    ni = NodeInfo(make_node("n", {"cpu": "10m", "memory": 20, "pods": 1}))
    ni.add_pod(existing)
    got = run_filter(fit.new({}, None), pod, ni)
    assert got == Status(Code.UNSCHEDULABLE, "Too many pods")


def test_filter_too_many_pods_with_unresolvable_cpu_is_unresolvable() -> None:
    ni = NodeInfo(make_node("n", {"cpu": "10m", "memory": 20, "pods": 1}))
    ni.add_pod(make_pod(req(1, 1)))
    got = run_filter(fit.new({}, None), make_pod(req(11, 1)), ni)
    assert got == Status(UU, "Too many pods", "Insufficient cpu")


STORAGE_CASES = [
    ("empty storage requested, and pod fits", make_pod(req(1, 1)), make_pod(req(2, 10)), None),
    (
        "storage ephemeral local storage request exceeds allocatable",
        make_pod(req(0, 0, eph=25)),
        make_pod(req(2, 2)),
        (UU, "Insufficient ephemeral-storage"),
    ),
    (
        "ephemeral local storage is sufficient",
        make_pod(req(0, 0, eph=5)),
        make_pod(req(2, 2, eph=10)),
        None,
    ),
    (
        "ephemeral local storage shortfall is resolvable",
        make_pod(req(0, 0, eph=15)),
        make_pod(req(2, 2, eph=10)),
        (U, "Insufficient ephemeral-storage"),
    ),
    ("pod fits", make_pod(req(0, 0, eph=10)), make_pod(req(2, 2)), None),
]


@pytest.mark.parametrize(
    ("pod", "existing", "want"), [c[1:] for c in STORAGE_CASES], ids=[c[0] for c in STORAGE_CASES]
)
def test_filter_storage_requests(pod, existing, want) -> None:
    ni = NodeInfo(make_node("n", ENOUGH_NODE))
    ni.add_pod(existing)
    got = run_filter(fit.new({}, None), pod, ni)
    assert (None if got is None else (got.code, *got.reasons)) == want


def test_filter_sidecar_requests_count_against_allocatable() -> None:
    ni = NodeInfo(make_node("n", {"cpu": "2m", "pods": 1}))
    plugin = fit.new({}, None)
    assert run_filter(plugin, make_pod({"cpu": "1m"}, sidecars=({"cpu": "1m"},)), ni) is None
    got = run_filter(plugin, make_pod({"cpu": "1m"}, sidecars=({"cpu": "2m"},)), ni)
    assert got == Status(UU, "Insufficient cpu")


def test_filter_without_prefilter_is_an_error() -> None:
    ni = NodeInfo(make_node("n", {}))
    got = fit.new({}, None).filter(CycleState(), make_pod(), ni)
    assert got is not None and got.code == Code.ERROR
    assert got.message() == 'error reading "PreFilterNodeResourcesFit" from cycleState: not found'


def test_newer_device_class_wins_an_extended_resource_name() -> None:
    mapping = fit.device_class_resolver(
        [
            device_class("old", "x.com/gpu", "2024-01-01T00:00:00Z"),
            device_class("new", "x.com/gpu", "2025-01-01T00:00:00Z"),
            device_class("b-tie", "y.com/gpu", "2025-01-01T00:00:00Z"),
            device_class("a-tie", "y.com/gpu", "2025-01-01T00:00:00Z"),
        ]
    )
    assert mapping["x.com/gpu"] == "new"
    assert mapping["y.com/gpu"] == "a-tie"
    assert mapping["deviceclass.resource.kubernetes.io/old"] == "old"


# -- Score: upstream least/most/requested-to-capacity-ratio tables -----------------

DEFAULT_RES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
EXT_RES_SET = [*DEFAULT_RES, {"name": EXT_RES, "weight": 1}]
SHAPE_DOWN = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]
SHAPE_UP = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]


def cm(cpu: str, mem: str, **extra: str) -> dict[str, str]:
    return {"cpu": cpu, "memory": mem, **extra}


def scored(strategy: str, resources, shape=None) -> dict[str, Any]:
    s: dict[str, Any] = {"type": strategy, "resources": resources}
    if shape is not None:
        s["requestedToCapacityRatio"] = {"shape": shape}
    return {"scoringStrategy": s}


N4 = ("node1", cm("4000", "10000"))
N6 = ("node2", cm("6000", "10000"))

SCORE_CASES = [
    # (name, args, pod, nodes, existing pods [(node, containers...)], expected)
    ("least: nothing scheduled, nothing requested", scored("LeastAllocated", DEFAULT_RES),
     make_pod(), [N4, ("node2", cm("4000", "10000"))], [], [100, 100]),
    ("least: nothing scheduled, resources requested, differently sized nodes", scored("LeastAllocated", DEFAULT_RES),
     make_pod(cm("1000", "2000"), cm("2000", "3000")), [N4, N6], [], [37, 50]),
    ("least: no resources requested, pods scheduled", scored("LeastAllocated", DEFAULT_RES),
     make_pod(), [N4, ("node2", cm("4000", "10000"))],
     [("node1",), ("node1",), ("node2",), ("node2",)], [100, 100]),
    ("least: no resources requested, pods scheduled with resources", scored("LeastAllocated", DEFAULT_RES),
     make_pod(), [("node1", cm("10000", "20000")), ("node2", cm("10000", "20000"))],
     [("node1", cm("3000", "0")), ("node1", cm("3000", "0")), ("node2", cm("3000", "0")), ("node2", cm("3000", "5000"))],
     [70, 57]),
    ("least: resources requested, pods scheduled with resources", scored("LeastAllocated", DEFAULT_RES),
     make_pod(cm("1000", "2000"), cm("2000", "3000")), [("node1", cm("10000", "20000")), ("node2", cm("10000", "20000"))],
     [("node1", cm("3000", "0")), ("node2", cm("3000", "5000"))], [57, 45]),
    ("least: resources requested, pods scheduled with resources, differently sized nodes", scored("LeastAllocated", DEFAULT_RES),
     make_pod(cm("1000", "2000"), cm("2000", "3000")), [("node1", cm("10000", "20000")), ("node2", cm("10000", "50000"))],
     [("node1", cm("3000", "0")), ("node2", cm("3000", "5000"))], [57, 60]),
    ("least: requested resources exceed node capacity", scored("LeastAllocated", DEFAULT_RES),
     make_pod(cm("3000", "0")), [N4, ("node2", cm("4000", "10000"))],
     [("node1", cm("3000", "0")), ("node2", cm("3000", "5000"))], [50, 25]),
    ("least: zero node resources, pods scheduled with resources", scored("LeastAllocated", DEFAULT_RES),
     make_pod(), [("node1", {}), ("node2", {})],
     [("node1", cm("3000", "0")), ("node2", cm("3000", "5000"))], [0, 0]),
    ("least: different weight on CPU and memory", scored("LeastAllocated", [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]),
     make_pod(cm("1000", "2000"), cm("2000", "3000")), [N4, N6], [], [41, 50]),
    ("least: bypass extended resource if the pod does not request", scored("LeastAllocated", EXT_RES_SET),
     make_pod(cm("1000", "2000"), cm("2000", "3000")),
     [("node1", cm("6000", "10000")), ("node2", cm("6000", "10000", **{EXT_RES: "4"}))], [], [50, 50]),
    ("least: honor extended resource if the pod requests", scored("LeastAllocated", EXT_RES_SET),
     make_pod(cm("3000", "5000", **{EXT_RES: "2"})),
     [("node1", cm("6000", "10000", **{EXT_RES: "4"})), ("node2", cm("6000", "10000", **{EXT_RES: "10"}))], [], [50, 60]),
    ("least: if the node doesn't have a resource",
     scored("LeastAllocated", [{"name": EXT_RES, "weight": 2}, *DEFAULT_RES]),
     make_pod(cm("3000", "4000")),
     [("node1", cm("6000", "10000")), ("node2", cm("6000", "10000", **{EXT_RES: "4"}))], [], [55, 55]),
    ("most: nothing scheduled, nothing requested", scored("MostAllocated", DEFAULT_RES),
     make_pod(), [N4, ("node2", cm("4000", "10000"))], [], [0, 0]),
    ("most: nothing scheduled, resources requested, differently sized nodes", scored("MostAllocated", DEFAULT_RES),
     make_pod(cm("1000", "2000"), cm("2000", "3000")), [N4, N6], [], [62, 50]),
    ("most: no resources requested, pods scheduled with resources", scored("MostAllocated", DEFAULT_RES),
     make_pod(), [("node1", cm("10000", "20000")), ("node2", cm("10000", "20000"))],
     [("node1", cm("3000", "0")), ("node1", cm("3000", "0")), ("node2", cm("3000", "0")), ("node2", cm("3000", "5000"))],
     [30, 42]),
    ("most: resources requested, pods scheduled with resources", scored("MostAllocated", DEFAULT_RES),
     make_pod(cm("1000", "2000"), cm("2000", "3000")), [("node1", cm("10000", "20000")), ("node2", cm("10000", "20000"))],
     [("node1", cm("3000", "0")), ("node2", cm("3000", "5000"))], [42, 55]),
    ("most: resources requested equal node capacity", scored("MostAllocated", DEFAULT_RES),
     make_pod(cm("2000", "4000"), cm("3000", "5000")), [("node1", cm("5000", "10000")), ("node2", cm("10000", "9000"))],
     [], [95, 75]),
    ("most: different weight on CPU and memory", scored("MostAllocated", [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}]),
     make_pod(cm("1000", "2000"), cm("2000", "3000")), [N4, N6], [], [58, 50]),
    ("most: no resources requested, pods scheduled, nonzero request for resource", scored("MostAllocated", DEFAULT_RES),
     make_pod({}), [("node1", cm("250m", "1000Mi")), ("node2", cm("250m", "1000Mi"))],
     [("node1", {}), ("node1", {})], [80, 30]),
    ("rtc: nothing scheduled, nothing requested", scored("RequestedToCapacityRatio", DEFAULT_RES, SHAPE_DOWN),
     make_pod(), [N4, ("node2", cm("4000", "10000"))], [("node1",), ("node1",)], [100, 100]),
    ("rtc: nothing scheduled, resources requested, differently sized nodes", scored("RequestedToCapacityRatio", DEFAULT_RES, SHAPE_DOWN),
     make_pod(cm("1000", "2000"), cm("2000", "3000")), [N4, N6], [("node1",), ("node1",)], [38, 50]),
    ("rtc: no resources requested, pods scheduled with resources", scored("RequestedToCapacityRatio", DEFAULT_RES, SHAPE_DOWN),
     make_pod(), [N4, N6], [("node1", cm("3000", "5000")), ("node2", cm("3000", "5000"))], [38, 50]),
    ("rtc: case1 (fit score table)", scored("RequestedToCapacityRatio", DEFAULT_RES, SHAPE_DOWN),
     make_pod(cm("3000", "5000")), [N4, N6], [("node1", cm("2000", "4000")), ("node2", cm("1000", "2000"))], [10, 32]),
    ("rtc: case2 (fit score table)", scored("RequestedToCapacityRatio", DEFAULT_RES, SHAPE_UP),
     make_pod(cm("3000", "5000")), [N4, N6], [("node1", cm("2000", "4000")), ("node2", cm("1000", "2000"))], [95, 68]),
    ("most: fit score table", scored("MostAllocated", DEFAULT_RES),
     make_pod(cm("1000", "2000")), [N4, N6], [("node1", cm("2000", "4000")), ("node2", cm("1000", "2000"))], [67, 36]),
    ("least: fit score table", scored("LeastAllocated", DEFAULT_RES),
     make_pod(cm("1000", "2000")), [N4, N6], [("node1", cm("2000", "4000")), ("node2", cm("1000", "2000"))], [32, 63]),
    ("most: with sidecar container", scored("MostAllocated", DEFAULT_RES),
     make_pod(cm("1000", "2000")), [N4, ("node2", cm("4000", "10000"))],
     [("node1", "sidecar", cm("1000", "2000"), cm("1000", "2000")), ("node2", cm("1000", "2000"))], [67, 45]),
]  # fmt: skip


def _cluster(nodes, existing) -> Snapshot:
    node_objs = [make_node(n, alloc) for n, alloc in nodes]
    pods = []
    for e in existing:
        if len(e) > 1 and e[1] == "sidecar":
            pods.append(make_pod(e[2], sidecars=(e[3],), node=e[0]))
        else:
            pods.append(make_pod(*e[1:], node=e[0]))
    return Snapshot(node_objs, pods)


def score_all(plugin, snapshot: Snapshot, pod, run_pre_score: bool = True) -> list[int]:
    state = CycleState()
    nodes = snapshot.node_info_list
    if run_pre_score:
        assert plugin.pre_score(state, pod, nodes) is None
    got = [plugin.score(state, pod, ni) for ni in nodes]
    batch = plugin.score_batch(state, pod, nodes)
    assert batch.dtype == np.int64
    assert batch.tolist() == got
    return got


@pytest.mark.parametrize(
    ("args", "pod", "nodes", "existing", "want"),
    [c[1:] for c in SCORE_CASES],
    ids=[c[0] for c in SCORE_CASES],
)
@pytest.mark.parametrize("run_pre_score", [True, False], ids=["prescore", "no-prescore"])
def test_score_strategies(args, pod, nodes, existing, want, run_pre_score) -> None:
    snapshot = _cluster(nodes, existing)
    plugin = fit.new(args, FakeHandle(snapshot))
    assert score_all(plugin, snapshot, pod, run_pre_score) == want


def test_score_extensions_is_none_and_default_strategy_is_least_allocated() -> None:
    plugin = fit.new({}, None)
    assert plugin.score_extensions() is None
    assert plugin.strategy == "LeastAllocated"
    assert [(r.name, r.weight) for r in plugin.resources] == [("cpu", 1), ("memory", 1)]


BROKEN_LINE = [
    ([(10, 1), (90, 9)], [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)]),
    ([(0, 2), (40, 10), (100, 0)], [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
    ([(0, 2), (40, 2), (100, 2)], [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
]  # fmt: skip


@pytest.mark.parametrize(("shape", "points"), BROKEN_LINE, ids=["rising", "peak", "flat"])
def test_broken_linear_function(shape, points) -> None:
    for p, want in points:
        assert broken_linear_function(shape, p) == want


def test_broken_linear_function_truncates_toward_zero_on_falling_segments() -> None:
    # (0-100)*(1-0)/(100-0) = -1 exactly; (0-100)*(3-0)/(200) = -1.5 -> -1 in Go, not -2
    assert broken_linear_function([(0, 100), (200, 0)], 3) == 99


def test_go_integer_helpers() -> None:
    assert go_div(-3, 2) == -1 and go_div(3, 2) == 1 and go_div(-4, 2) == -2
    assert go_round(2.5) == 3 and go_round(3.5) == 4 and go_round(0.49999999999999994) == 0
    assert go_round(-2.5) == -3


# -- property: batch == per node on random clusters ---------------------------------

SCALARS = ["example.com/gpu", "hugepages-2Mi", "example.com/fpga"]


@st.composite
def clusters(draw):
    n_nodes = draw(st.integers(1, 8))
    nodes = []
    for i in range(n_nodes):
        alloc: dict[str, Any] = {
            "cpu": f"{draw(st.integers(0, 8000))}m",
            "memory": str(draw(st.integers(0, 64)) * 2**28),
            "pods": str(draw(st.integers(0, 6))),
        }
        if draw(st.booleans()):
            alloc["ephemeral-storage"] = str(draw(st.integers(0, 10**6)))
        for s in SCALARS:
            if draw(st.integers(0, 2)) == 0:
                alloc[s] = str(draw(st.integers(0, 8)))
        nodes.append((f"n{i}", alloc))

    def requests():
        r: dict[str, str] = {}
        if draw(st.booleans()):
            r["cpu"] = f"{draw(st.integers(0, 3000))}m"
        if draw(st.booleans()):
            r["memory"] = str(draw(st.integers(0, 2**34)))
        if draw(st.integers(0, 3)) == 0:
            r["ephemeral-storage"] = str(draw(st.integers(0, 10**6)))
        for s in [*SCALARS, "example.com/nowhere"]:
            if draw(st.integers(0, 4)) == 0:
                r[s] = str(draw(st.integers(0, 4)))
        return r

    existing = [
        (f"n{draw(st.integers(0, n_nodes - 1))}", requests())
        for _ in range(draw(st.integers(0, 12)))
    ]
    pod = make_pod(requests())
    return nodes, existing, pod


STRATEGIES = st.sampled_from(
    [
        scored("LeastAllocated", DEFAULT_RES),
        scored("MostAllocated", [{"name": "memory", "weight": 3}, {"name": "cpu", "weight": 1}]),
        scored(
            "LeastAllocated",
            [
                *DEFAULT_RES,
                {"name": "ephemeral-storage", "weight": 2},
                {"name": "example.com/gpu", "weight": 5},
                {"name": "example.com/nowhere", "weight": 1},
            ],
        ),  # fmt: skip
        scored("RequestedToCapacityRatio", DEFAULT_RES, SHAPE_DOWN),
        scored(
            "RequestedToCapacityRatio",
            [*DEFAULT_RES, {"name": "example.com/gpu", "weight": 3}],
            [
                {"utilization": 0, "score": 0},
                {"utilization": 30, "score": 7},
                {"utilization": 70, "score": 3},
                {"utilization": 100, "score": 10},
            ],
        ),  # fmt: skip
        {**scored("MostAllocated", DEFAULT_RES), "ignoredResourceGroups": ["example.com"]},
        {**scored("LeastAllocated", DEFAULT_RES), "ignoredResources": ["example.com/gpu"]},
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters(), STRATEGIES, st.booleans())
def test_batch_paths_equal_per_node_paths(cluster, args, with_class) -> None:
    nodes, existing, pod = cluster
    snapshot = _cluster(nodes, [(n, r) for n, r in existing])
    classes = [device_class("fpga", "example.com/fpga")] if with_class else []
    plugin = fit.new(args, FakeHandle(snapshot, {"DeviceClass": classes}))
    state = CycleState()
    infos = snapshot.node_info_list
    plugin.pre_filter(state, pod, infos)
    statuses = [plugin.filter(state, pod, ni) for ni in infos]
    per_node = [st is None for st in statuses]
    assert plugin.filter_batch(state, pod, infos).tolist() == per_node
    assert _said(plugin.filter_statuses_batch(state, pod, infos)) == _said(statuses)
    # a rotated subset, as percentageOfNodesToScore hands it over
    sub = infos[1:] + infos[:1]
    assert plugin.filter_batch(state, pod, sub).tolist() == per_node[1:] + per_node[:1]
    plugin.pre_score(state, pod, infos)
    want = [plugin.score(state, pod, ni) for ni in infos]
    assert plugin.score_batch(state, pod, infos).tolist() == want
    # placing the pod moves the table's row with it
    snapshot.add_pod(pod, infos[0].name)
    state2 = CycleState()
    plugin.pre_filter(state2, pod, infos)
    plugin.pre_score(state2, pod, infos)
    assert plugin.filter_batch(state2, pod, infos).tolist() == [
        plugin.filter(state2, pod, ni) is None for ni in infos
    ]
    assert plugin.score_batch(state2, pod, infos).tolist() == [
        plugin.score(state2, pod, ni) for ni in infos
    ]


def test_batch_on_copied_node_infos_uses_the_copies() -> None:
    snapshot = _cluster([("a", cm("4", "8Gi") | {"pods": "10"})], [("a", cm("3", "1Gi"))])
    plugin = fit.new({}, FakeHandle(snapshot))
    pod = make_pod(cm("2", "1Gi"))
    state = CycleState()
    plugin.pre_filter(state, pod, snapshot.node_info_list)
    assert plugin.filter_batch(state, pod, snapshot.node_info_list).tolist() == [False]
    copy = snapshot.node_info_list[0].clone()
    copy.remove_pod(copy.pods[0])
    assert plugin.filter_batch(state, pod, [copy]).tolist() == [True]


def test_statuses_at_once_tell_a_request_of_the_whole_node_from_one_beyond_it() -> None:
    """Short of cpu on both nodes; only on "small" is the request beyond all it has."""
    snapshot = _cluster(
        [("whole", cm("4", "8Gi") | {"pods": "10"}), ("small", cm("2", "8Gi") | {"pods": "10"})],
        [("whole", cm("1", "1Gi")), ("small", cm("1", "1Gi"))],
    )
    plugin = fit.new({}, FakeHandle(snapshot))
    pod = make_pod(cm("4", "1Gi"))
    state = CycleState()
    infos = snapshot.node_info_list
    plugin.pre_filter(state, pod, infos)
    want = {"whole": (U, ("Insufficient cpu",)), "small": (UU, ("Insufficient cpu",))}
    assert _said(plugin.filter_statuses_batch(state, pod, infos)) == [want[ni.name] for ni in infos]
    assert _said([plugin.filter(state, pod, ni) for ni in infos]) == [want[ni.name] for ni in infos]
