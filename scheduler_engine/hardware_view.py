"""What a node's GPUs really are, beside what the scheduler believes.

For every GPU node of a :class:`~scheduler_engine.cluster.ClusterState`, three
views of its GPU count (the device plugin's ``nvidia.com/gpu`` allocatable, the
``nvidia.com/gpu.count`` label of GPU Feature Discovery, the GPUs its DRA
ResourceSlices list), the running pods' GPU requests, each GPU as a device
with its NUMA node, PCIe root, NVLink domain, MIG partitions and the claim and
pods that hold it, the NodeResourceTopology zones, and the places where the
views disagree.  Pure functions over the snapshot: pages, the API and the
hardware-view dry-run all read this one shape.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .cluster import ClusterState
from .objects import Node, Pod, parse_node
from .objects.noderesourcetopology import NodeResourceTopology
from .quantity import QuantityError, parse_quantity, value

__all__ = [
    "DEVICE_SOURCES",
    "DEVICE_TYPES",
    "GPU_RESOURCE",
    "INCONSISTENCY_KINDS",
    "GpuDevice",
    "Inconsistency",
    "NodeGpuView",
    "NumaZone",
    "gpu_views",
    "hardware_cluster",
    "hardware_gpu_count",
    "node_gpu_view",
    "phantom_placements",
    "simulate_hardware_view",
]

GPU_RESOURCE = "nvidia.com/gpu"
GFD_COUNT = "nvidia.com/gpu.count"
GFD_PRODUCT = "nvidia.com/gpu.product"
GFD_MEMORY = "nvidia.com/gpu.memory"
GFD_CLIQUE = "nvidia.com/gpu.clique"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"

# inconsistency kinds
ALLOCATABLE_VS_GFD = "allocatable-vs-gfd"
ALLOCATABLE_VS_DEVICES = "allocatable-vs-devices"
GFD_VS_DEVICES = "gfd-vs-devices"
REQUESTS_ABOVE_ALLOCATABLE = "requests-above-allocatable"
CLAIM_OF_MISSING_POD = "claim-of-missing-pod"
INCONSISTENCY_KINDS = (
    ALLOCATABLE_VS_GFD,
    ALLOCATABLE_VS_DEVICES,
    GFD_VS_DEVICES,
    REQUESTS_ABOVE_ALLOCATABLE,
    CLAIM_OF_MISSING_POD,
)

# where a device comes from (a ResourceSlice, or a cell standing in for a count), what it is
SOURCE_DRA = "dra"
SOURCE_DEVICE_PLUGIN = "device-plugin"
DEVICE_SOURCES = (SOURCE_DRA, SOURCE_DEVICE_PLUGIN)
TYPE_GPU = "gpu"
TYPE_MIG = "mig"
DEVICE_TYPES = (TYPE_GPU, TYPE_MIG)


@dataclass(frozen=True, slots=True)
class GpuDevice:
    """One GPU (or MIG partition) of a node.

    ``source`` is ``dra`` for devices a ResourceSlice lists, ``device-plugin``
    for cells stood in for a count (their holders are inferred, since the
    device plugin does not publish which pod holds which GPU).
    """

    name: str
    source: str  # one of DEVICE_SOURCES
    type: str = TYPE_GPU  # one of DEVICE_TYPES
    index: int | None = None
    uuid: str | None = None
    product: str | None = None
    architecture: str | None = None
    memory_bytes: int | None = None
    numa_node: int | None = None
    pcie_root: str | None = None
    nvlink_domain: str | None = None
    driver: str | None = None
    pool: str | None = None
    # MIG: the parent GPU's device name, the profile; on a parent, its partitions
    mig_parent: str | None = None
    mig_profile: str | None = None
    partitions: tuple[str, ...] = ()
    # "ns/name" of the claim holding it, and the pods it is reserved for
    claim: str | None = None
    pods: tuple[str, ...] = ()
    holder_inferred: bool = False

    @property
    def in_use(self) -> bool:
        return bool(self.claim or self.pods)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "type": self.type,
            "index": self.index,
            "uuid": self.uuid,
            "product": self.product,
            "architecture": self.architecture,
            "memoryBytes": self.memory_bytes,
            "numaNode": self.numa_node,
            "pcieRoot": self.pcie_root,
            "nvlinkDomain": self.nvlink_domain,
            "driver": self.driver,
            "pool": self.pool,
            "migParent": self.mig_parent,
            "migProfile": self.mig_profile,
            "partitions": list(self.partitions),
            "claim": self.claim,
            "pods": list(self.pods),
            "holderInferred": self.holder_inferred,
        }


@dataclass(frozen=True, slots=True)
class Inconsistency:
    kind: str
    message: str
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "details": dict(self.details)}


@dataclass(frozen=True, slots=True)
class NumaZone:
    """A NodeResourceTopology zone: resource → (capacity, allocatable, available)."""

    name: str
    numa_node: int | None
    resources: Mapping[str, tuple[int, int, int]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "numaNode": self.numa_node,
            "resources": {
                k: {"capacity": c, "allocatable": a, "available": v}
                for k, (c, a, v) in self.resources.items()
            },
        }


@dataclass(frozen=True, slots=True)
class NodeGpuView:
    node: str
    # nvidia.com/gpu allocatable; None when the node does not publish it
    allocatable: int | None
    # GFD's nvidia.com/gpu.count; None without the label
    gfd_count: int | None
    # whole GPUs (MIG parents counted once) in the node's ResourceSlices; None without slices
    devices: int | None
    # running pods' nvidia.com/gpu requests
    requested: int
    product: str | None
    memory_mib: int | None
    nvlink_domain: str | None
    gpus: tuple[GpuDevice, ...]
    zones: tuple[NumaZone, ...]
    topology_policy: str | None
    topology_scope: str | None
    inconsistencies: tuple[Inconsistency, ...]

    @property
    def hardware_count(self) -> int | None:
        """GPUs the hardware has: the devices listed, else GFD's count."""
        return self.devices if self.devices is not None else self.gfd_count

    @property
    def count_only(self) -> bool:
        """True when the node publishes only a device-plugin count (no devices)."""
        return self.devices is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "allocatable": self.allocatable,
            "gfdCount": self.gfd_count,
            "devices": self.devices,
            "hardwareCount": self.hardware_count,
            "requested": self.requested,
            "countOnly": self.count_only,
            "product": self.product,
            "memoryMiB": self.memory_mib,
            "nvlinkDomain": self.nvlink_domain,
            "topologyPolicy": self.topology_policy,
            "topologyScope": self.topology_scope,
            "gpus": [g.to_dict() for g in self.gpus],
            "zones": [z.to_dict() for z in self.zones],
            "inconsistencies": [i.to_dict() for i in self.inconsistencies],
        }


# -- reading the objects ---------------------------------------------------------


def _int_label(labels: Mapping[str, str], key: str) -> int | None:
    raw = labels.get(key)
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def _attr(attrs: Mapping[str, Any], name: str, driver: str) -> Any:
    """A device attribute by plain or driver-qualified name, unwrapped."""
    raw = attrs.get(name)
    if raw is None:
        raw = attrs.get(f"{driver}/{name}")
    if isinstance(raw, Mapping):
        # a DeviceAttribute holds exactly one of int, bool, string, version
        for v in raw.values():
            return v
    return None


@functools.lru_cache(maxsize=256)
def _bytes(raw: str | int | float) -> int | None:
    try:
        return value(parse_quantity(raw))
    except QuantityError:
        return None


def _memory(capacity: Mapping[str, Any]) -> int | None:
    raw = capacity.get("memory")
    if isinstance(raw, Mapping):
        raw = raw.get("value")
    if raw is None or isinstance(raw, bool) or not isinstance(raw, str | int | float):
        return None
    return _bytes(raw)


def _is_gpu_device(driver: str, dev_type: Any) -> bool:
    if dev_type is not None:
        return dev_type in DEVICE_TYPES
    return "gpu" in driver


class _Holders:
    """(driver, pool, device) → (claim "ns/name", pods it is reserved for)."""

    def __init__(self, cluster: ClusterState) -> None:
        self.by_device: dict[tuple[str, str, str], tuple[str, tuple[str, ...]]] = {}
        self.orphans: dict[str, list[tuple[str, tuple[str, ...], list[str]]]] = {}
        pods_by_uid = {p.uid for p in cluster.pods if p.uid}
        pods_by_key = {p.key for p in cluster.pods}
        pool_nodes: dict[tuple[str, str], set[str]] | None = None
        for claim in cluster.of_kind("ResourceClaim"):
            meta = claim.get("metadata") or {}
            status = claim.get("status") or {}
            alloc = status.get("allocation") or {}
            results = (alloc.get("devices") or {}).get("results") or []
            if not results:
                continue
            ns = str(meta.get("namespace") or "default")
            key = f"{ns}/{meta.get('name')}"
            reserved = [r for r in status.get("reservedFor") or [] if r.get("resource") == "pods"]
            pods = tuple(f"{ns}/{r.get('name')}" for r in reserved)
            missing = [
                f"{ns}/{r.get('name')}"
                for r in reserved
                if not (r.get("uid") and r.get("uid") in pods_by_uid)
                and f"{ns}/{r.get('name')}" not in pods_by_key
            ]
            devices = []
            for r in results:
                dev = (str(r.get("driver")), str(r.get("pool")), str(r.get("device")))
                self.by_device[dev] = (key, pods)
                devices.append(dev)
            if reserved and len(missing) == len(reserved):
                if pool_nodes is None:
                    pool_nodes = self._pool_nodes(cluster)
                for node in self._nodes_of(alloc, devices, pool_nodes):
                    self.orphans.setdefault(node, []).append((key, pods, [d[2] for d in devices]))

    @staticmethod
    def _pool_nodes(cluster: ClusterState) -> dict[tuple[str, str], set[str]]:
        out: dict[tuple[str, str], set[str]] = {}
        for s in cluster.of_kind("ResourceSlice"):
            spec = s.get("spec") or {}
            pool = (spec.get("pool") or {}).get("name")
            if spec.get("nodeName"):
                out.setdefault((str(spec.get("driver")), str(pool)), set()).add(
                    str(spec["nodeName"])
                )
        return out

    @staticmethod
    def _nodes_of(
        alloc: Mapping[str, Any],
        devices: list[tuple[str, str, str]],
        pool_nodes: Mapping[tuple[str, str], set[str]],
    ) -> set[str]:
        nodes: set[str] = set()
        for d in devices:
            nodes |= pool_nodes.get((d[0], d[1]), set())
        if not nodes:
            for term in (alloc.get("nodeSelector") or {}).get("nodeSelectorTerms") or []:
                for f in term.get("matchFields") or []:
                    if f.get("key") == "metadata.name" and f.get("operator") == "In":
                        nodes.update(f.get("values") or [])
        return nodes


# what a stood-in MIG parent takes from its partitions: the physical GPU's model and place
_SHARED_WITH_PARTITIONS = (
    "product",
    "architecture",
    "numa_node",
    "pcie_root",
    "nvlink_domain",
    "driver",
    "pool",
)


def _dra_devices(
    node: Node, slices: Iterable[Mapping[str, Any]], holders: _Holders
) -> list[GpuDevice]:
    clique = node.labels.get(GFD_CLIQUE)
    out: list[GpuDevice] = []
    for s in slices:
        spec = s.get("spec") or {}
        driver = str(spec.get("driver") or "")
        pool = str((spec.get("pool") or {}).get("name") or node.name)
        for d in spec.get("devices") or []:
            attrs = d.get("attributes") or {}
            dev_type = _attr(attrs, "type", driver)
            if not _is_gpu_device(driver, dev_type):
                continue
            name = str(d.get("name"))
            claim, pods = holders.by_device.get((driver, pool, name), (None, ()))
            numa = _attr(attrs, "numa", driver)
            if numa is None:
                numa = _attr(attrs, "numaNode", driver)
            out.append(
                GpuDevice(
                    name=name,
                    source=SOURCE_DRA,
                    type=str(dev_type or TYPE_GPU),
                    index=_attr(attrs, "index", driver),
                    uuid=_attr(attrs, "uuid", driver),
                    product=_attr(attrs, "productName", driver),
                    architecture=_attr(attrs, "architecture", driver),
                    memory_bytes=_memory(d.get("capacity") or {}),
                    numa_node=numa if isinstance(numa, int) else None,
                    pcie_root=_attr(attrs, PCIE_ROOT, driver),
                    nvlink_domain=_attr(attrs, "cliqueID", driver) or clique,
                    driver=driver,
                    pool=pool,
                    mig_parent=_attr(attrs, "parentUUID", driver),
                    mig_profile=_attr(attrs, "profile", driver),
                    claim=claim,
                    pods=pods,
                )
            )
    if not any(g.type == TYPE_MIG for g in out):
        return out
    # MIG partitions name their parent by UUID; show it by device name and give
    # the parent (published or not) its partitions
    by_uuid = {g.uuid: g for g in out if g.type == TYPE_GPU and g.uuid}
    parents: dict[str, list[str]] = {}
    for i, g in enumerate(out):
        if g.type == TYPE_MIG and g.mig_parent:
            parent = by_uuid.get(g.mig_parent)
            parent_name = parent.name if parent else g.name.split("-mig-")[0]
            out[i] = dataclasses.replace(g, mig_parent=parent_name)
            parents.setdefault(parent_name, []).append(g.name)
    for i, g in enumerate(out):
        if g.name in parents:
            out[i] = dataclasses.replace(g, partitions=tuple(parents.pop(g.name)))
    # a MIG-enabled parent is not published itself: stand in for it
    for parent_name, parts in parents.items():
        first = next(g for g in out if g.name == parts[0])
        shared = {f: getattr(first, f) for f in _SHARED_WITH_PARTITIONS}
        out.append(
            GpuDevice(name=parent_name, source=SOURCE_DRA, partitions=tuple(parts), **shared)
        )
    return out


def _zones(nrt: NodeResourceTopology | None) -> tuple[NumaZone, ...]:
    if nrt is None:
        return ()
    return tuple(
        NumaZone(
            z.name,
            z.numa_id,
            {r.name: (r.capacity, r.allocatable, r.available) for r in z.resources},
        )
        for z in nrt.numa_zones
    )


def _plugin_cells(
    node: Node, count: int, zones: tuple[NumaZone, ...], running: list[Pod]
) -> list[GpuDevice]:
    """Cells standing in for device-plugin GPUs, placed on NUMA zones as NRT reports them.

    Holders are inferred: pods (oldest first) fill the GPUs each zone reports in use.
    """
    numa: list[int | None] = []
    used_per_zone: list[int] = []
    for z in zones:
        cap, _alloc, avail = z.resources.get(GPU_RESOURCE, (0, 0, 0))
        numa.extend([z.numa_node] * cap)
        used_per_zone.extend([1] * (cap - avail) + [0] * avail)
    numa += [None] * (count - len(numa))
    used_per_zone += [1] * (count - len(used_per_zone))
    holders: list[str | None] = [None] * count
    free_used = [i for i in range(count) if used_per_zone[i]]
    free_any = [i for i in range(count) if not used_per_zone[i]]
    for p in sorted(running, key=lambda p: (p.start_ts or p.creation_ts, p.key)):
        for _ in range(p.requests.get(GPU_RESOURCE)):
            pool = free_used or free_any
            if not pool:
                break
            holders[pool.pop(0)] = p.key
    clique = node.labels.get(GFD_CLIQUE)
    product = node.labels.get(GFD_PRODUCT)
    mib = _int_label(node.labels, GFD_MEMORY)
    return [
        GpuDevice(
            name=f"gpu-{i}",
            source=SOURCE_DEVICE_PLUGIN,
            index=i,
            product=product,
            memory_bytes=mib * 2**20 if mib is not None else None,
            numa_node=numa[i] if i < len(numa) else None,
            nvlink_domain=clique,
            pods=(holders[i],) if holders[i] else (),
            holder_inferred=True,
        )
        for i in range(count)
    ]


# the GPU counts compared two by two: kind, the two views (their detail keys), message
_VIEW_PAIRS = (
    (
        ALLOCATABLE_VS_GFD,
        "allocatable",
        "gfdCount",
        GPU_RESOURCE + " allocatable is {} but GPU Feature Discovery counts {} GPUs",
    ),
    (
        ALLOCATABLE_VS_DEVICES,
        "allocatable",
        "devices",
        GPU_RESOURCE + " allocatable is {} but ResourceSlices list {} GPUs",
    ),
    (
        GFD_VS_DEVICES,
        "gfdCount",
        "devices",
        "GPU Feature Discovery counts {} GPUs but ResourceSlices list {}",
    ),
)


def _inconsistencies(
    node: Node,
    allocatable: int | None,
    gfd: int | None,
    devices: int | None,
    requested: int,
    orphans: list[tuple[str, tuple[str, ...], list[str]]],
) -> list[Inconsistency]:
    out: list[Inconsistency] = []
    views = {"allocatable": allocatable, "gfdCount": gfd, "devices": devices}
    for kind, a, b, message in _VIEW_PAIRS:
        x, y = views[a], views[b]
        if x is not None and y is not None and x != y:
            out.append(Inconsistency(kind, message.format(x, y), {a: x, b: y}))
    if requested and requested > (allocatable or 0):
        out.append(
            Inconsistency(
                REQUESTS_ABOVE_ALLOCATABLE,
                f"running pods request {requested} {GPU_RESOURCE}, "
                f"above its allocatable {allocatable or 0}",
                {"requested": requested, "allocatable": allocatable or 0},
            )
        )
    for claim, pods, devs in orphans:
        out.append(
            Inconsistency(
                CLAIM_OF_MISSING_POD,
                f"claim {claim} holds {', '.join(devs)} for {', '.join(pods)}, "
                f"which no longer exist{'s' if len(pods) == 1 else ''}",
                {"claim": claim, "pods": list(pods), "devices": devs},
            )
        )
    return out


def _is_gpu_node(node: Node, slices: list[Mapping[str, Any]], requested: int) -> bool:
    return bool(
        GPU_RESOURCE in node.allocatable.scalar or GFD_COUNT in node.labels or slices or requested
    )


def _views(cluster: ClusterState, only: str | None = None) -> dict[str, NodeGpuView]:
    holders = _Holders(cluster)
    slices_by_node: dict[str, list[Mapping[str, Any]]] = {}
    for s in cluster.of_kind("ResourceSlice"):
        node_name = (s.get("spec") or {}).get("nodeName")
        if node_name:
            slices_by_node.setdefault(str(node_name), []).append(s)
    running: dict[str, list[Pod]] = {}
    for p in cluster.pods:
        if p.node_name and p.requests.get(GPU_RESOURCE):
            running.setdefault(p.node_name, []).append(p)
    out: dict[str, NodeGpuView] = {}
    for node in cluster.nodes:
        if only is not None and node.name != only:
            continue
        pods = running.get(node.name, [])
        requested = sum(p.requests.get(GPU_RESOURCE) for p in pods)
        slices = slices_by_node.get(node.name, [])
        dra = _dra_devices(node, slices, holders)
        gpu_slices = slices if dra else []
        if not _is_gpu_node(node, gpu_slices, requested):
            continue
        allocatable = node.allocatable.scalar.get(GPU_RESOURCE)
        gfd = _int_label(node.labels, GFD_COUNT)
        devices = sum(1 for g in dra if g.type == TYPE_GPU) if dra else None
        nrt = cluster.node_topologies.get(node.name)
        zones = _zones(nrt)
        # a count-only node shows the GPUs its hardware has (GFD), else the plugin's count
        cells = gfd if gfd is not None else (allocatable or 0)
        gpus = dra or _plugin_cells(node, cells, zones, pods)
        out[node.name] = NodeGpuView(
            node=node.name,
            allocatable=allocatable,
            gfd_count=gfd,
            devices=devices,
            requested=requested,
            product=node.labels.get(GFD_PRODUCT) or next((g.product for g in dra), None),
            memory_mib=_int_label(node.labels, GFD_MEMORY),
            nvlink_domain=node.labels.get(GFD_CLIQUE),
            gpus=tuple(gpus),
            zones=zones,
            topology_policy=nrt.manager.policy if nrt else None,
            topology_scope=nrt.manager.scope if nrt else None,
            inconsistencies=tuple(
                _inconsistencies(
                    node, allocatable, gfd, devices, requested, holders.orphans.get(node.name, [])
                )
            ),
        )
    return out


def gpu_views(cluster: ClusterState) -> dict[str, NodeGpuView]:
    """Every GPU node's view, by node name, in the cluster's node order."""
    return _views(cluster)


def node_gpu_view(cluster: ClusterState, node_name: str) -> NodeGpuView | None:
    """One node's view; None for a node without GPUs (or no such node)."""
    return _views(cluster, node_name).get(node_name)


def hardware_gpu_count(view: NodeGpuView) -> int | None:
    """The GPU count the hardware view schedules with (None: keep the node's own)."""
    return view.hardware_count


# -- the hardware-view dry-run ---------------------------------------------------------


def hardware_cluster(cluster: ClusterState) -> tuple[ClusterState, list[dict[str, Any]]]:
    """The cluster with each GPU node's ``nvidia.com/gpu`` set to the GPUs its hardware has.

    Returns the new state and, per changed node, ``{"node", "allocatable", "hardware"}``.
    """
    views = gpu_views(cluster)
    nodes: list[Node] = []
    changed: list[dict[str, Any]] = []
    for n in cluster.nodes:
        v = views.get(n.name)
        hw = v.hardware_count if v is not None else None
        if v is None or v.allocatable is None or hw is None or hw == v.allocatable:
            nodes.append(n)
            continue
        raw = copy.deepcopy(dict(n.raw))
        status = raw.setdefault("status", {})
        for key in ("allocatable", "capacity"):
            if isinstance(status.get(key), dict) and GPU_RESOURCE in status[key]:
                status[key][GPU_RESOURCE] = str(hw)
        nodes.append(parse_node(raw, source=cluster.source))
        changed.append({"node": n.name, "allocatable": v.allocatable, "hardware": hw})
    return dataclasses.replace(cluster, nodes=nodes), changed


def phantom_placements(
    cluster: ClusterState, results: Iterable[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Placements of a (scheduler-view) run that land on GPUs the hardware does not have.

    Results are taken in order; evicted victims give their GPUs back.
    """
    views = gpu_views(cluster)
    pods = {p.key: p for p in cluster.pods}
    used: dict[str, int] = {}
    for p in cluster.running_pods:
        used[p.node_name] = used.get(p.node_name, 0) + p.requests.get(GPU_RESOURCE)
    out: list[dict[str, Any]] = []
    for r in results:
        for victim in r.get("victims") or ():
            vp = pods.get(victim)
            if vp is not None and vp.node_name:
                used[vp.node_name] = used.get(vp.node_name, 0) - vp.requests.get(GPU_RESOURCE)
        node = r.get("node")
        pod = pods.get(r.get("pod", ""))
        if r.get("status") != "Scheduled" or not node or pod is None:
            continue
        gpus = pod.requests.get(GPU_RESOURCE)
        if not gpus:
            continue
        before = used.get(node, 0)
        used[node] = before + gpus
        view = views.get(node)
        hw = view.hardware_count if view is not None else None
        if hw is not None and used[node] > hw:
            missing = min(gpus, used[node] - hw)
            out.append(
                {
                    "pod": r["pod"],
                    "node": node,
                    "gpus": gpus,
                    "inUseBefore": before,
                    "allocatable": view.allocatable if view is not None else None,
                    "hardware": hw,
                    "missing": missing,
                    "message": (
                        f"{r['pod']} would get {missing} of its {gpus} GPU(s) on {node}, "
                        f"which has {hw} GPU(s) ({before} in use) but advertises "
                        f"{view.allocatable if view is not None else '?'} {GPU_RESOURCE}"
                    ),
                }
            )
    return out


def simulate_hardware_view(
    cluster: ClusterState, config: Any = None, **kwargs: Any
) -> dict[str, Any]:
    """Replay the pending pods with the hardware's GPU counts instead of ``nvidia.com/gpu``.

    The answer is the CLI contract's document of the hardware-view run, plus
    ``hardwareView``: the nodes whose count changed, the scheduler-view
    placements that land on GPUs that do not exist (``phantomPlacements``),
    and the pods the two views place differently (``moved``).  ``kwargs`` go
    to :func:`~scheduler_engine.simulate.simulate` (seed, explain, registry...).
    """
    from .simulate import simulate

    scheduler_doc = simulate(cluster, config, **kwargs).to_dict()
    hw_cluster, changed = hardware_cluster(cluster)
    doc = simulate(hw_cluster, config, **kwargs).to_dict()
    before = {r["pod"]: r for r in scheduler_doc["results"]}
    moved = [
        {
            "pod": r["pod"],
            "schedulerView": {
                "status": before[r["pod"]]["status"],
                "node": before[r["pod"]]["node"],
            },
            "hardwareView": {"status": r["status"], "node": r["node"]},
        }
        for r in doc["results"]
        if r["pod"] in before
        and (before[r["pod"]]["node"], before[r["pod"]]["status"]) != (r["node"], r["status"])
    ]
    doc["hardwareView"] = {
        "nodes": changed,
        "phantomPlacements": phantom_placements(cluster, scheduler_doc["results"]),
        "moved": moved,
    }
    return doc
