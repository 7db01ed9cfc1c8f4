"""Builders for NodeResourceTopologyMatch tests, shaped like scheduler-plugins' test helpers."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace
from typing import Any

from scheduler_engine import build_cluster
from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.quantity import parse_quantity

CPU, MEMORY = "cpu", "memory"
NIC = "vendor/nic1"
NIC_NO_NUMA = "vendor.com/old-nic-model"
NOT_EXISTING_NIC = "vendor/notexistingnic"
EXTENDED = "namespace/extended"
HUGEPAGES_2MI = "hugepages-2Mi"


def res(name: str, capacity: str, available: str) -> dict[str, str]:
    """``MakeTopologyResInfo``: allocatable is not set there; we give it the capacity."""
    return {"name": name, "capacity": capacity, "allocatable": capacity, "available": available}


def zone(i: int, *resources: dict[str, str], costs: dict[int, int] | None = None) -> dict:
    z: dict[str, Any] = {"name": f"node-{i}", "type": "Node", "resources": list(resources)}
    if costs:
        z["costs"] = [{"name": f"node-{k}", "value": v} for k, v in costs.items()]
    return z


def nrt(name: str, policy: str | None, *zones: dict) -> dict:
    obj: dict[str, Any] = {
        "apiVersion": "topology.node.k8s.io/v1alpha2",
        "kind": "NodeResourceTopology",
        "metadata": {"name": name},
        "zones": list(zones),
    }
    if policy:
        obj["topologyPolicies"] = [policy]
    return obj


def _fmt(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{float(q * 1000):.0f}m"


def node_for(topology: dict, extra: dict[str, str] | None = None) -> dict:
    """``makeResourceListFromZones``: the node's allocatable is the sum of zones' available."""
    total: dict[str, Fraction] = {}
    for z in topology["zones"]:
        for r in z["resources"]:
            total[r["name"]] = total.get(r["name"], Fraction(0)) + parse_quantity(r["available"])
    alloc = {k: _fmt(v) for k, v in total.items()}
    alloc.update(extra or {})
    return {
        "kind": "Node",
        "metadata": {"name": topology["metadata"]["name"]},
        "status": {"allocatable": alloc, "capacity": dict(alloc)},
    }


def container(
    i: int, requests: dict | None, limits: dict | None = None, prefix: str = "cnt"
) -> dict:
    resources: dict[str, Any] = {}
    if requests is not None:
        resources["requests"] = dict(requests)
    if limits is not None:
        resources["limits"] = dict(limits)
    return {"name": f"{prefix}-{i + 1}", "image": "x", "resources": resources}


def pod(
    containers: list[dict] | None = None, init: list[dict] | None = None, name: str = "testpod"
) -> dict:
    spec: dict[str, Any] = {"containers": containers or [{"name": "c", "image": "x"}]}
    if init:
        spec["initContainers"] = init
    return {
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": spec,
    }


def guaranteed(*lists: dict) -> dict:
    """``makePodByResourceLists``: requests equal limits."""
    return pod([container(i, r, r) for i, r in enumerate(lists)])


def requests_only(r: dict) -> dict:
    """``makePodWithReqByResourceList``; the API server wants limits for extended resources."""
    limits = {k: v for k, v in r.items() if "/" in k}
    return pod([container(0, r, limits or None)])


def req_and_limit(req: dict, lim: dict) -> dict:
    return pod([container(0, req, lim)])


def with_init(init: list[dict], app: list[dict]) -> dict:
    return pod(
        [container(i, r, r) for i, r in enumerate(app)],
        [container(i, r, r, "init") for i, r in enumerate(init)],
    )


class Harness:
    """The plugin over a set of NRT objects, called as the framework calls it."""

    def __init__(
        self, topologies: list[dict], args: dict | None = None, nodes: list[dict] | None = None
    ):
        from scheduler_engine.plugins import noderesourcetopology as nrt_plugin

        self.nodes = {n["metadata"]["name"]: n for n in nodes or [node_for(t) for t in topologies]}
        self.topologies = topologies
        self.plugin = nrt_plugin.new(args or {}, None)  # type: ignore[arg-type]
        self.nrt_plugin = nrt_plugin

    def _setup(self, pod_obj: dict, node_name: str) -> tuple[Any, NodeInfo]:
        cluster = build_cluster([*self.nodes.values(), *self.topologies, pod_obj])
        self.plugin.handle = SimpleNamespace(cluster=cluster)
        node = next(n for n in cluster.nodes if n.name == node_name)
        return cluster.pending_pods[0], NodeInfo(node)

    def filter(self, pod_obj: dict, node_name: str):
        p, ni = self._setup(pod_obj, node_name)
        return self.plugin.filter(CycleState(), p, ni)

    def score(self, pod_obj: dict, node_name: str):
        p, ni = self._setup(pod_obj, node_name)
        return self.plugin.score(CycleState(), p, ni)
