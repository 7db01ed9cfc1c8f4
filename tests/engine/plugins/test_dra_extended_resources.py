"""Extended resources backed by DRA (upstream extendeddynamicresources.go, DRAExtendedResource).

A pod asking for ``example.com/gpu``, which a DeviceClass maps through
``spec.extendedResourceName``, is served through a claim the scheduler makes
on nodes that do not advertise the resource; nodes without matching devices
count under ``cannot allocate all claims``; a node whose device plugin
advertises the resource serves it without DRA.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine import build_cluster, simulate
from scheduler_engine.objects import parse_pod
from scheduler_engine.plugins.dynamicresources.extended import (
    claim_name_for,
    requests_and_mappings,
)
from tests.engine.builders import make_node, make_pod

from .test_dynamicresources import GPU, dclass, gpus

EXT = "example.com/gpu"


def gpu_class(**spec: Any) -> dict[str, Any]:
    return dclass(GPU, f'device.driver == "{GPU}"', extendedResourceName=EXT, **spec)


def ext_pod(name: str, n: int = 1, **kw: Any) -> dict[str, Any]:
    # extended resources are not overcommitted: the API server wants limits equal to requests
    return make_pod(name).req(cpu="100m", **{EXT: str(n)}).limits(**{EXT: str(n)}).obj()


def run(*objs: dict[str, Any]) -> dict[str, dict[str, Any]]:
    doc = simulate(build_cluster(list(objs)), seed=1).to_dict()
    return {r["pod"]: r for r in doc["results"]}


def nodes(n: int) -> list[dict[str, Any]]:
    return [make_node(f"n{i}").cap(cpu="8", memory="32Gi", pods=110).obj() for i in range(n)]


def test_nodes_without_devices_cannot_allocate_the_claim() -> None:
    r = run(gpu_class(), *nodes(3), ext_pod("p"))["default/p"]
    assert r["status"] == "Unschedulable"
    assert r["message"] == (
        "0/3 nodes are available: 3 cannot allocate all claims. still not schedulable, "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def test_the_node_with_devices_gets_the_pod_through_a_scheduler_made_claim() -> None:
    objs = [gpu_class(), *nodes(3), gpus("n1", 2), ext_pod("p", 2)]
    r = run(*objs)["default/p"]
    assert r["status"] == "Scheduled" and r["node"] == "n1"
    [alloc] = r["allocations"]
    name = claim_name_for(parse_pod(objs[-1]))
    assert alloc["claim"] == f"default/{name}"
    assert (
        name.startswith("p-extended-resources-") and len(name) == len("p-extended-resources-") + 5
    )
    results = alloc["allocation"]["devices"]["results"]
    assert [x["request"] for x in results] == ["container-0-request-1"] * 2
    assert alloc["requestMappings"] == [
        {"containerName": "c", "resourceName": EXT, "requestName": "container-0-request-1"}
    ]


def test_devices_are_used_up_by_earlier_pods() -> None:
    res = run(gpu_class(), *nodes(2), gpus("n0", 1), ext_pod("a"), ext_pod("b"))
    placed = [r for r in res.values() if r["status"] == "Scheduled"]
    assert [r["node"] for r in placed] == ["n0"]
    [left] = [r for r in res.values() if r["status"] != "Scheduled"]
    assert left["message"].startswith("0/2 nodes are available: 2 cannot allocate all claims.")


def test_a_node_advertising_the_resource_serves_it_without_dra() -> None:
    device_plugin = make_node("dp").cap(cpu="8", memory="32Gi", pods=110).obj()
    device_plugin["status"]["allocatable"][EXT] = "4"
    r = run(gpu_class(), *nodes(2), device_plugin, ext_pod("p"))["default/p"]
    assert r["status"] == "Scheduled" and r["node"] == "dp"
    assert "allocations" not in r


def test_without_a_class_the_resource_is_an_ordinary_extended_resource() -> None:
    r = run(*nodes(2), gpus("n1", 2), ext_pod("p"))["default/p"]
    assert r["message"].startswith("0/2 nodes are available: 2 Insufficient example.com/gpu.")


def test_the_implicit_class_resource_name() -> None:
    implicit = {f"deviceclass.resource.kubernetes.io/{GPU}": "1"}
    pod = make_pod("p").req(cpu="100m", **implicit).limits(**implicit)
    r = run(dclass(GPU, f'device.driver == "{GPU}"'), *nodes(2), gpus("n0", 1), pod.obj())
    assert r["default/p"]["node"] == "n0"


@pytest.mark.parametrize(
    ("inits", "containers", "want_requests", "want_mappings"),
    [
        # two containers: one request each, indexed by position (init containers first)
        (
            [],
            [("a", 1), ("b", 2)],
            [("container-0-request-0", 1), ("container-1-request-0", 2)],
            [("a", "container-0-request-0"), ("b", "container-1-request-0")],
        ),
        # a plain init container reuses the request of the container after it
        (
            [("init", 1)],
            [("main", 2)],
            [("container-1-request-0", 2)],
            [("main", "container-1-request-0"), ("init", "container-1-request-0")],
        ),
        # an init container wanting more than what follows asks for the difference
        (
            [("init", 3)],
            [("main", 1)],
            [("container-0-request-0", 2), ("container-1-request-0", 1)],
            [
                ("main", "container-1-request-0"),
                ("init", "container-1-request-0"),
                ("init", "container-0-request-0"),
            ],
        ),
    ],
)
def test_requests_and_mappings(inits, containers, want_requests, want_mappings) -> None:
    b = make_pod("p")
    b.set(
        "spec.initContainers",
        [
            {"name": n, "resources": {"requests": {EXT: str(q)}, "limits": {EXT: str(q)}}}
            for n, q in inits
        ],
    )
    b.set(
        "spec.containers",
        [
            {"name": n, "resources": {"requests": {EXT: str(q)}, "limits": {EXT: str(q)}}}
            for n, q in containers
        ],
    )
    pod = b.pod()
    reqs, maps = requests_and_mappings(pod, {EXT: 1}, {EXT: GPU})
    assert [(r["name"], r["exactly"]["count"]) for r in reqs] == want_requests
    assert all(r["exactly"]["deviceClassName"] == GPU for r in reqs)
    assert [(m["containerName"], m["requestName"]) for m in maps] == want_mappings


def test_unreserve_after_prebind_deletes_the_claim_it_made() -> None:
    from scheduler_engine.framework.cycle_state import CycleState
    from scheduler_engine.framework.node_info import NodeInfo
    from scheduler_engine.plugins import dynamicresources as dra

    class _Handle:
        def __init__(self, objs: list[dict[str, Any]]) -> None:
            self.cluster = build_cluster(objs)

    h = _Handle([gpu_class(), *nodes(1), gpus("n0", 1), ext_pod("p")])
    pl = dra.new({}, h)
    [pod] = h.cluster.pods
    infos = [NodeInfo(n, i) for i, n in enumerate(h.cluster.nodes)]
    state = CycleState()
    assert pl.pre_filter(state, pod, infos)[1] is None
    assert pl.filter(state, pod, infos[0]) is None
    assert pl.reserve(state, pod, "n0") is None
    assert pl.pre_bind(state, pod, "n0") is None
    name = claim_name_for(pod)
    assert pl.tracker.get("default", name) is not None
    # binding failed after PreBind: the claim goes, its device is free again
    pl.unreserve(state, pod, "n0")
    assert pl.tracker.get("default", name) is None
    again = CycleState()
    assert pl.pre_filter(again, pod, infos)[1] is None
    assert pl.filter(again, pod, infos[0]) is None
