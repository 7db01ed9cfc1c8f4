"""GPU topology and resource-view consistency of a mirrored cluster, for the pages and the API.

Reads the engine's hardware view (:mod:`scheduler_engine.hardware_view`) of the
cluster's warm state, kept until that state changes; lays a node's GPUs out by
NVLink domain, NUMA node and PCIe root (MIG partitions inside their parent), and
sums up the fleet: whole free 8-GPU nodes, whole free NVLink domains, and every
place where the scheduler's view and the hardware's disagree.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dashboard.cluster.models import Cluster
from scheduler_engine import hardware_view
from scheduler_engine.cluster import ClusterState
from scheduler_engine.hardware_view import GPU_RESOURCE, TYPE_MIG, GpuDevice, NodeGpuView

from . import live

__all__ = [
    "WHOLE_NODE_GPUS",
    "Cell",
    "Fleet",
    "Group",
    "fleet",
    "gpu_views",
    "inconsistencies",
    "layout",
    "node_view",
]

WHOLE_NODE_GPUS = 8


@dataclass(frozen=True, slots=True)
class Cell:
    """One GPU as drawn: ``state`` is free, used or partial (a MIG parent partly used)."""

    gpu: GpuDevice
    state: str
    partitions: tuple[Cell, ...] = ()

    @property
    def label(self) -> str:
        g = self.gpu
        if g.type == TYPE_MIG:
            return g.mig_profile or g.name
        if g.index is not None:
            return f"GPU {g.index}"
        # a MIG-enabled parent the driver does not publish: named gpu-<index>
        head, _, tail = g.name.rpartition("-")
        return f"GPU {tail}" if head == "gpu" and tail.isdigit() else g.name


@dataclass(frozen=True, slots=True)
class Group:
    """GPUs sharing an NVLink domain, a NUMA node and a PCIe root (None: not published)."""

    domain: str | None
    numa: int | None
    pcie_root: str | None
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class FleetNode:
    node: str
    product: str | None
    gpus: int
    used: int
    count_only: bool
    domain: str | None
    unschedulable: bool
    inconsistencies: int

    @property
    def free(self) -> int:
        return self.gpus - self.used


@dataclass(frozen=True, slots=True)
class Domain:
    name: str
    nodes: tuple[str, ...]
    gpus: int
    free: int

    @property
    def whole_free(self) -> bool:
        return self.gpus > 0 and self.free == self.gpus


@dataclass(frozen=True, slots=True)
class Fleet:
    nodes: tuple[FleetNode, ...]
    domains: tuple[Domain, ...]

    @property
    def gpus(self) -> int:
        return sum(n.gpus for n in self.nodes)

    @property
    def free(self) -> int:
        return sum(n.free for n in self.nodes)

    @property
    def whole_free_nodes(self) -> tuple[FleetNode, ...]:
        """Schedulable nodes of 8 GPUs or more with none in use."""
        return tuple(
            n
            for n in self.nodes
            if n.gpus >= WHOLE_NODE_GPUS and n.used == 0 and not n.unschedulable
        )

    @property
    def whole_free_domains(self) -> tuple[Domain, ...]:
        return tuple(d for d in self.domains if d.whole_free)

    def by_product(self) -> list[dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {}
        whole = {n.node for n in self.whole_free_nodes}
        for n in self.nodes:
            r = rows.setdefault(
                n.product or "unknown",
                {"product": n.product or "unknown", "nodes": 0, "gpus": 0, "free": 0, "whole": 0},
            )
            r["nodes"] += 1
            r["gpus"] += n.gpus
            r["free"] += n.free
            r["whole"] += n.node in whole
        return sorted(rows.values(), key=lambda r: (-r["whole"], -r["free"], r["product"]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpuNodes": len(self.nodes),
            "gpus": self.gpus,
            "free": self.free,
            "wholeFreeNodes": [n.node for n in self.whole_free_nodes],
            "wholeFreeDomains": [d.name for d in self.whole_free_domains],
            "products": [
                {
                    "product": r["product"],
                    "nodes": r["nodes"],
                    "gpus": r["gpus"],
                    "free": r["free"],
                    "wholeFreeNodes": r["whole"],
                }
                for r in self.by_product()
            ],
            "domains": [
                {"name": d.name, "nodes": list(d.nodes), "gpus": d.gpus, "free": d.free}
                for d in self.domains
            ],
            "nodes": [
                {
                    "node": n.node,
                    "product": n.product,
                    "gpus": n.gpus,
                    "used": n.used,
                    "free": n.free,
                    "countOnly": n.count_only,
                    "nvlinkDomain": n.domain,
                    "unschedulable": n.unschedulable,
                    "inconsistencies": n.inconsistencies,
                }
                for n in self.nodes
            ],
        }


# -- reading the warm state --------------------------------------------------------


def gpu_views(cluster: Cluster) -> dict[str, NodeGpuView]:
    """Every GPU node's view, by node name, as of now."""
    return live.derived(cluster, "gpu views", lambda w: _views(cluster.pk, w.state()))


def node_view(cluster: Cluster, node: str) -> NodeGpuView | None:
    """One node's view (None for a node without GPUs, or no such node)."""

    def compute(warm: Any) -> NodeGpuView | None:
        return _views(cluster.pk, warm.state(), only=node).get(node)

    return live.derived(cluster, ("gpu view", node), compute)


def fleet(cluster: Cluster) -> Fleet:
    """Free GPUs, whole free nodes and NVLink domains across the cluster."""
    views = gpu_views(cluster)  # first: derived() does not nest
    return live.derived(cluster, ("gpu fleet", id(views)), lambda w: _fleet(w, views))


def inconsistencies(cluster: Cluster) -> list[dict[str, Any]]:
    """Every disagreement between the views, node by node: ``{"node", "kind", ...}``."""
    return [
        {"node": name, **i.to_dict()}
        for name, view in gpu_views(cluster).items()
        for i in view.inconsistencies
    ]


# -- one node at a time -------------------------------------------------------------
#
# A node's view reads only its own objects: the node, its ResourceSlices, the claims
# allocated from its pools (and whether the pods they are reserved for exist), its
# running GPU pods and its NodeResourceTopology. Each node's view is kept with those
# inputs and computed again only when one of them is another object: a change of one
# pod costs one node's view, not the fleet's. The kept inputs hold the old objects,
# so their identities cannot be reused by new ones.

Inputs = tuple[Any, ...]
_kept: dict[int, dict[str, tuple[Inputs, NodeGpuView | None]]] = {}
_kept_lock = threading.Lock()


def _inputs(state: ClusterState) -> dict[str, tuple[Inputs, Any]]:
    """Per node: what its view reads (for comparison), and how to make that part of the state."""
    slices: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    pool_node: dict[tuple[Any, Any], str] = {}
    for s in state.of_kind("ResourceSlice"):
        spec = s.get("spec") or {}
        node = spec.get("nodeName")
        if node:
            slices[str(node)].append(s)
            pool_node[(spec.get("driver"), (spec.get("pool") or {}).get("name") or node)] = node
    claims: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    reserved: dict[str, list[Any]] = defaultdict(list)
    allocated = [
        c for c in state.of_kind("ResourceClaim") if (c.get("status") or {}).get("allocation")
    ]
    if allocated:
        pods_by_uid = {p.uid: p for p in state.pods if p.uid}
        pods_by_key = {p.key: p for p in state.pods}
    for c in allocated:
        status = c.get("status") or {}
        alloc = status.get("allocation") or {}
        nodes = {
            pool_node.get((r.get("driver"), r.get("pool")))
            for r in (alloc.get("devices") or {}).get("results") or []
        }
        for term in (alloc.get("nodeSelector") or {}).get("nodeSelectorTerms") or []:
            for f in term.get("matchFields") or []:
                if f.get("key") == "metadata.name":
                    nodes.update(f.get("values") or [])
        nodes.discard(None)
        if not nodes:
            continue
        ns = (c.get("metadata") or {}).get("namespace") or "default"
        holders = [
            pods_by_uid.get(r.get("uid")) or pods_by_key.get(f"{ns}/{r.get('name')}")
            for r in status.get("reservedFor") or []
        ]
        for n in nodes:
            claims[n].append(c)
            reserved[n].extend(holders)
    running: dict[str, list[Any]] = defaultdict(list)
    for p in state.pods:  # 50,000 pods: the scalar map directly, not Resource.get
        if p.node_name and p.requests.scalar.get(GPU_RESOURCE):
            running[p.node_name].append(p)
    out = {}
    for node in state.nodes:
        n = node.name
        nrt = state.node_topologies.get(n)
        pods = running.get(n, [])
        found = [p for p in reserved.get(n, ()) if p is not None]
        n_slices, n_claims = slices.get(n, []), claims.get(n, [])
        inputs = (node, nrt, *n_slices, "|", *n_claims, "|", *pods, "|", *found)
        out[n] = (inputs, (node, nrt, n_slices, n_claims, pods, found))
    return out


def _part(state: ClusterState, parts: Any) -> ClusterState:
    """The part of the state one node's view reads."""
    node, nrt, slices, claims, pods, found = parts
    return ClusterState(
        nodes=[node],
        pods=[*pods, *(p for p in found if p not in pods)],
        objects={"ResourceSlice": slices, "ResourceClaim": claims},
        node_topologies={node.name: nrt} if nrt is not None else {},
        source=state.source,
    )


def _same(a: Inputs, b: Inputs) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _views(cluster_id: int, state: ClusterState, only: str | None = None) -> dict[str, NodeGpuView]:
    """The GPU nodes' views (or ``only`` one node's), reusing those whose inputs are the same."""
    inputs = _inputs(state)
    with _kept_lock:
        kept = _kept.setdefault(cluster_id, {})
        if only is None:
            for gone in kept.keys() - inputs.keys():
                del kept[gone]
    out: dict[str, NodeGpuView] = {}
    for name, (key, parts) in inputs.items():
        if only is not None and name != only:
            continue
        with _kept_lock:
            old = kept.get(name)
        if old is not None and _same(old[0], key):
            view = old[1]
        else:
            view = hardware_view.node_gpu_view(_part(state, parts), name)
            with _kept_lock:
                kept[name] = (key, view)
        if view is not None:
            out[name] = view
    return out


# -- shaping -----------------------------------------------------------------------


def _whole_gpus(view: NodeGpuView) -> list[GpuDevice]:
    return [g for g in view.gpus if g.type != "mig"]


def _used(g: GpuDevice, by_name: dict[str, GpuDevice]) -> tuple[int, int]:
    """(partitions or GPU in use, of how many) for one whole GPU."""
    if g.partitions:
        parts = [by_name[p] for p in g.partitions if p in by_name]
        return sum(p.in_use for p in parts) + g.in_use, len(parts)
    return int(g.in_use), 1


def _fleet(warm: Any, views: dict[str, NodeGpuView]) -> Fleet:
    unschedulable = {n.name for n in warm.state().nodes if n.unschedulable}
    rows = []
    domains: dict[str, dict[str, Any]] = defaultdict(lambda: {"nodes": [], "gpus": 0, "free": 0})
    for name, view in views.items():
        by_name = {g.name: g for g in view.gpus}
        used = free = 0
        for g in _whole_gpus(view):
            n_used, _of = _used(g, by_name)
            used += n_used > 0
            if g.nvlink_domain:
                d = domains[g.nvlink_domain]
                if name not in d["nodes"]:
                    d["nodes"].append(name)
                d["gpus"] += 1
                d["free"] += n_used == 0
            free += n_used == 0
        rows.append(
            FleetNode(
                node=name,
                product=view.product,
                gpus=used + free,
                used=used,
                count_only=view.count_only,
                domain=view.nvlink_domain,
                unschedulable=name in unschedulable,
                inconsistencies=len(view.inconsistencies),
            )
        )
    return Fleet(
        tuple(rows),
        tuple(
            Domain(k, tuple(v["nodes"]), v["gpus"], v["free"]) for k, v in sorted(domains.items())
        ),
    )


def _cell(g: GpuDevice, by_name: dict[str, GpuDevice]) -> Cell:
    if not g.partitions:
        return Cell(g, "used" if g.in_use else "free")
    parts = tuple(_cell(by_name[p], by_name) for p in g.partitions if p in by_name)
    n_used = sum(p.state == "used" for p in parts)
    if g.in_use or (parts and n_used == len(parts)):
        state = "used"
    else:
        state = "partial" if n_used else "free"
    return Cell(g, state, parts)


def _order(value: Any) -> tuple[bool, str]:
    return (value is None, f"{value:>8}" if isinstance(value, int) else str(value or ""))


def layout(view: NodeGpuView) -> list[Group]:
    """The node's GPUs grouped by NVLink domain, NUMA node and PCIe root, in index order."""
    by_name = {g.name: g for g in view.gpus}
    groups: dict[tuple[Any, Any, Any], list[Cell]] = defaultdict(list)
    for g in _whole_gpus(view):
        groups[(g.nvlink_domain, g.numa_node, g.pcie_root)].append(_cell(g, by_name))
    keys = sorted(groups, key=lambda k: tuple(_order(v) for v in k))
    return [
        Group(
            *k,
            tuple(
                sorted(groups[k], key=lambda c: (c.gpu.index is None, c.gpu.index or 0, c.gpu.name))
            ),
        )
        for k in keys
    ]
