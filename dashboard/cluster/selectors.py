"""Reads: what pages, consumers and the API show. No writes here."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    Case,
    Count,
    Exists,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    TextField,
    Value,
    When,
)
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce

from scheduler_engine.objects.pod import SYSTEM_PRIORITIES

from .models import Cluster, Event, Node, Pod, PriorityClass

__all__ = [
    "Page",
    "PendingFilters",
    "PendingPage",
    "cluster_names",
    "clusters",
    "failed_scheduling_events",
    "gpu_topology",
    "mirror_health",
    "nodes_page",
    "overview",
    "parse_reasons",
    "pending_filter_choices",
    "pending_page",
    "pending_pods",
    "pod_row",
    "resolved_priority",
    "top_reasons",
]


def clusters() -> QuerySet[Cluster]:
    return Cluster.objects.all()


def failed_scheduling_events(cluster: Cluster, namespace: str, name: str) -> QuerySet[Event]:
    return Event.objects.filter(
        cluster=cluster, involved_namespace=namespace, involved_name=name
    ).order_by("-last_seen")


# --- Dashboard pages --------------------------------------------------------------
# Every read below selects only the columns a page shows and aggregates in SQL,
# so that pages stay fast at 5,000 nodes and 50,000 pods.

PAGE_SIZE = 50
TOP_REASONS = 8
# Pod phases that no longer hold resources on their node.
DONE_PHASES = ("Succeeded", "Failed")
# Labels that name a node pool, most specific first.
POOL_LABELS = (
    "pool",
    "node-pool",
    "cloud.google.com/gke-nodepool",
    "karpenter.sh/nodepool",
    "eks.amazonaws.com/nodegroup",
    "kubernetes.azure.com/agentpool",
    "node.kubernetes.io/instance-type",
)
ZONE_LABEL = "topology.kubernetes.io/zone"
GPU_LABELS = (
    "nvidia.com/gpu.product",
    "nvidia.com/gpu.count",
    "nvidia.com/gpu.memory",
    "nvidia.com/gpu.family",
    "nvidia.com/gpu.machine",
    "nvidia.com/mig.strategy",
    "nvidia.com/gpu.sharing-strategy",
    "amd.com/gpu.product-name",
    "amd.com/gpu.family",
)

# the engine's FailedScheduling message per pending pod, by (namespace, name)
EngineMessages = dict[tuple[str, str], str]

_AVAILABLE = re.compile(r"^\d+/\d+ nodes are available: (?P<body>.*?)(?:\.(?: |$)|$)", re.S)
_ITEM = re.compile(r"^(?P<n>\d+) (?P<reason>.+)$")


def cluster_names() -> list[str]:
    return list(Cluster.objects.order_by("name").values_list("name", flat=True))


def parse_reasons(message: str) -> dict[str, int]:
    """``{reason: node count}`` from a FailedScheduling message; the message itself otherwise.

    ``0/18 nodes are available: 1 Insufficient memory, 14 Insufficient nvidia.com/gpu.
    preemption: ...`` gives ``{"Insufficient memory": 1, "Insufficient nvidia.com/gpu": 14}``.
    """
    m = _AVAILABLE.match(message or "")
    if m is None:
        text = (message or "").strip()
        return {text[:120]: 0} if text else {}
    out: dict[str, int] = {}
    for part in m.group("body").split(", "):
        item = _ITEM.match(part.strip())
        if item:
            out[item.group("reason")] = out.get(item.group("reason"), 0) + int(item.group("n"))
    return out


def resolved_priority() -> Coalesce:
    """A pod's priority as the engine resolves it (annotate querysets of Pod with it).

    ``spec.priority`` when set (the API server's admission sets it), else the
    value of its ``priorityClassName``'s class (a system class's built-in value),
    else the cluster's globalDefault class for a pod that names none, else 0.
    """
    classes = PriorityClass.objects.filter(cluster_id=OuterRef("cluster_id"))
    named = Subquery(classes.filter(name=OuterRef("priority_class_name")).values("value")[:1])
    default = Subquery(classes.filter(global_default=True).order_by("name").values("value")[:1])
    system = Case(
        *(When(priority_class_name=n, then=Value(v)) for n, v in SYSTEM_PRIORITIES.items()),
        default=Value(0),
    )
    return Coalesce(
        "priority",
        Case(
            When(priority_class_name="", then=Coalesce(default, Value(0))),
            default=Coalesce(named, system),
        ),
    )


def unplaced_objects(cluster: Cluster) -> list[dict[str, Any]]:
    """The pods the engine counts as pending (no node, not finished), as objects, in the
    order a snapshot export lists them, which breaks queue ties."""
    return list(
        Pod.objects.filter(cluster=cluster, node_name="")
        .exclude(phase__in=DONE_PHASES)
        .order_by("namespace", "name")
        .values_list("obj", flat=True)
    )


def pending_pods(cluster: Cluster) -> QuerySet[Pod]:
    """Pods in phase Pending without a node (unordered: callers filter and order)."""
    return Pod.objects.filter(cluster=cluster, phase="Pending", node_name="").annotate(
        effective_priority=resolved_priority()
    )


def _latest_message() -> Subquery:
    return Subquery(
        Event.objects.filter(
            cluster_id=OuterRef("cluster_id"),
            involved_namespace=OuterRef("namespace"),
            involved_name=OuterRef("name"),
        )
        .order_by("-last_seen", "-id")
        .values("message")[:1]
    )


def top_reasons(
    cluster: Cluster, engine: EngineMessages | None = None, limit: int = TOP_REASONS
) -> tuple[list[dict[str, Any]], str]:
    """The reasons that keep pods pending: ``[{reason, pods, nodes}]`` and their source.

    From ``engine`` (the engine's message per pending pod) when given, else from
    the pods' FailedScheduling events, grouped by message in SQL (pods of one
    workload share them), so only the distinct messages are parsed.
    """
    if engine is not None:
        grouped: dict[str, int] = {}
        for message in engine.values():
            grouped[message] = grouped.get(message, 0) + 1
        source = "engine"
    else:
        # Events of pods still pending, grouped by message in SQL (a semi-join,
        # not a subquery per pod); pods of one workload share their message.
        still_pending = pending_pods(cluster).filter(
            namespace=OuterRef("involved_namespace"), name=OuterRef("involved_name")
        )
        rows = (
            Event.objects.filter(cluster=cluster, reason="FailedScheduling")
            .filter(Exists(still_pending))
            .values("message")
            .annotate(n=Count("involved_name", distinct=True))
            .order_by()
        )
        grouped = {r["message"]: r["n"] for r in rows}
        source = "events"
    pods: dict[str, int] = {}
    nodes: dict[str, int] = {}
    for message, n in grouped.items():
        for reason, count in parse_reasons(message).items():
            pods[reason] = pods.get(reason, 0) + n
            nodes[reason] = nodes.get(reason, 0) + count * n
    ranked = sorted(pods, key=lambda r: (-pods[r], r))[:limit]
    return [{"reason": r, "pods": pods[r], "nodes": nodes[r]} for r in ranked], source


def overview(cluster: Cluster) -> dict[str, Any]:
    """Counts and allocation for the overview page and its live JSON."""
    nodes = Node.objects.filter(cluster=cluster).aggregate(
        nodes=Count("id"),
        ready=Count("id", filter=Q(ready=True)),
        unschedulable=Count("id", filter=Q(unschedulable=True)),
        gpu_nodes=Count("id", filter=Q(gpu_capacity__gt=0)),
        cpu=Sum("cpu_allocatable_milli"),
        memory=Sum("memory_allocatable_bytes"),
        gpu=Sum("gpu_allocatable"),
    )
    pods = Pod.objects.filter(cluster=cluster).aggregate(
        pods=Count("id"),
        pending=Count("id", filter=Q(phase="Pending", node_name="")),
        running=Count("id", filter=Q(phase="Running")),
        pending_gpu=Coalesce(
            Sum("gpu_requested", filter=Q(phase="Pending", node_name="")), Value(0)
        ),
        cpu=Coalesce(Sum("cpu_requested_milli", filter=_holding()), Value(0)),
        memory=Coalesce(Sum("memory_requested_bytes", filter=_holding()), Value(0)),
        gpu=Coalesce(Sum("gpu_requested", filter=_holding()), Value(0)),
    )

    def share(used: int, total: int | None) -> float | None:
        return round(used / total, 4) if total else None

    return {
        "nodes": nodes["nodes"],
        "nodesReady": nodes["ready"],
        "nodesUnschedulable": nodes["unschedulable"],
        "gpuNodes": nodes["gpu_nodes"],
        "pods": pods["pods"],
        "podsRunning": pods["running"],
        "podsPending": pods["pending"],
        "gpusPending": pods["pending_gpu"],
        "allocation": {
            r: {
                "requested": pods[r],
                "allocatable": nodes[r] or 0,
                "share": share(pods[r], nodes[r]),
            }
            for r in ("cpu", "memory", "gpu")
        },
    }


def _holding() -> Q:
    """Pods that hold resources on a node."""
    return ~Q(node_name="") & ~Q(phase__in=DONE_PHASES)


def mirror_health(cluster: Cluster) -> dict[str, Any]:
    """The health as shown: a mirror silent for MIRROR_GONE_SECONDS is "gone"."""
    return {
        **cluster.shown_health(),
        "last_event_at": cluster.last_event_at.isoformat() if cluster.last_event_at else None,
        "last_sync_at": cluster.last_sync_at.isoformat() if cluster.last_sync_at else None,
        "heartbeat_at": cluster.heartbeat_at.isoformat() if cluster.heartbeat_at else None,
        "lag_seconds": cluster.lag_seconds,
    }


@dataclass(frozen=True, slots=True)
class PendingFilters:
    namespace: str = ""
    priority: int | None = None
    reason: str = ""
    # "" any, "none" no GPU, "any" at least one, or an exact count ("8")
    gpu: str = ""

    def query(self) -> dict[str, str]:
        q = {"namespace": self.namespace, "reason": self.reason, "gpu": self.gpu}
        if self.priority is not None:
            q["priority"] = str(self.priority)
        return {k: v for k, v in q.items() if v}


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a table: its rows, the rows in all, this page's number, pages in all."""

    rows: list[dict[str, Any]]
    total: int
    page: int
    pages: int


@dataclass(frozen=True, slots=True)
class PendingPage(Page):
    source: str  # where messages come from: "events" or "engine"


def _page_bounds(total: int, page: int) -> tuple[int, int]:
    """(page clamped to 1..pages, pages) for ``total`` rows in pages of PAGE_SIZE."""
    pages = max(1, -(-total // PAGE_SIZE))
    return min(max(page, 1), pages), pages


def pending_page(
    cluster: Cluster,
    filters: PendingFilters,
    page: int = 1,
    engine: EngineMessages | None = None,
) -> PendingPage:
    """One page of pending pods with each pod's scheduler message, filtered in SQL.

    The message is the engine's from ``engine`` when given, else the pod's
    latest FailedScheduling event.
    """
    qs = pending_pods(cluster)
    if filters.namespace:
        qs = qs.filter(namespace=filters.namespace)
    if filters.priority is not None:
        qs = qs.filter(effective_priority=filters.priority)
    if filters.gpu == "none":
        qs = qs.filter(gpu_requested=0)
    elif filters.gpu == "any":
        qs = qs.filter(gpu_requested__gt=0)
    elif filters.gpu.isdigit():
        qs = qs.filter(gpu_requested=int(filters.gpu))
    if engine is not None and filters.reason:
        wanted = filters.reason.lower()
        keys = [k for k, m in engine.items() if wanted in m.lower()]
        match = Q(pk__in=[])
        for ns, name in keys:
            match |= Q(namespace=ns, name=name)
        qs = qs.filter(match)
    elif filters.reason:
        qs = qs.filter(
            Exists(
                Event.objects.filter(
                    cluster_id=OuterRef("cluster_id"),
                    involved_namespace=OuterRef("namespace"),
                    involved_name=OuterRef("name"),
                    message__icontains=filters.reason,
                )
            )
        )
    total = qs.count()
    page, pages = _page_bounds(total, page)
    cols = (
        "namespace",
        "name",
        "effective_priority",
        "priority_class_name",
        "gpu_requested",
        "cpu_requested_milli",
        "memory_requested_bytes",
        "pending_since",
    )
    qs = qs.order_by("pending_since", "namespace", "name")[
        (page - 1) * PAGE_SIZE : page * PAGE_SIZE
    ]
    if engine is None:
        rows = list(qs.annotate(message=_latest_message()).values(*cols, "message"))
    else:
        rows = list(qs.values(*cols))
        for r in rows:
            r["message"] = engine.get((r["namespace"], r["name"]))
    return PendingPage(rows, total, page, pages, "engine" if engine is not None else "events")


def pending_filter_choices(cluster: Cluster) -> dict[str, list[Any]]:
    """Namespaces, priorities and GPU sizes that occur among pending pods (for the filter form)."""
    qs = pending_pods(cluster).order_by()
    return {
        "namespaces": list(qs.values_list("namespace", flat=True).distinct().order_by("namespace")),
        "priorities": [
            p
            for p in qs.values_list("effective_priority", flat=True)
            .distinct()
            .order_by("-effective_priority")
        ],
        "gpu_sizes": list(
            qs.filter(gpu_requested__gt=0)
            .values_list("gpu_requested", flat=True)
            .distinct()
            .order_by("gpu_requested")
        ),
    }


def pod_row(cluster: Cluster, namespace: str, name: str) -> Pod | None:
    return (
        Pod.objects.filter(cluster=cluster, namespace=namespace, name=name)
        .annotate(effective_priority=resolved_priority())
        .first()
    )


def _label(key: str) -> KT:
    return KT(f"obj__metadata__labels__{key}")


def _requested_by_node(cluster: Cluster, names: list[str] | None = None) -> dict[str, dict]:
    qs = Pod.objects.filter(cluster=cluster).exclude(node_name="").exclude(phase__in=DONE_PHASES)
    if names is not None:
        qs = qs.filter(node_name__in=names)
    rows = (
        qs.values("node_name")
        .annotate(
            cpu=Sum("cpu_requested_milli"),
            memory=Sum("memory_requested_bytes"),
            gpu=Sum("gpu_requested"),
            pods=Count("id"),
        )
        .order_by()
    )
    return {r["node_name"]: r for r in rows}


def nodes_page(cluster: Cluster, page: int = 1, *, gpu_only: bool = False, q: str = "") -> Page:
    """One page of nodes: allocatable vs requested for CPU, memory and each GPU resource."""
    qs = Node.objects.filter(cluster=cluster)
    if gpu_only:
        qs = qs.filter(gpu_capacity__gt=0)
    if q:
        qs = qs.filter(name__icontains=q)
    total = qs.count()
    page, pages = _page_bounds(total, page)
    rows = list(
        qs.order_by("name")
        .annotate(
            labels=KT("obj__metadata__labels"),
            allocatable=KT("obj__status__allocatable"),
        )
        .values(
            "name",
            "ready",
            "unschedulable",
            "cpu_allocatable_milli",
            "memory_allocatable_bytes",
            "gpu_allocatable",
            "gpu_resources",
            "labels",
            "allocatable",
        )[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    )
    used = _requested_by_node(cluster, [r["name"] for r in rows])
    for r in rows:
        labels = _json(r.pop("labels"))
        allocatable = _json(r.pop("allocatable"))
        u = used.get(r["name"], {})
        r["cpu_requested_milli"] = u.get("cpu") or 0
        r["memory_requested_bytes"] = u.get("memory") or 0
        r["gpu_requested"] = u.get("gpu") or 0
        r["pods"] = u.get("pods") or 0
        r["zone"] = labels.get(ZONE_LABEL, "")
        r["pool"] = next((labels[k] for k in POOL_LABELS if labels.get(k)), "")
        r["gpu_labels"] = {k: labels[k] for k in GPU_LABELS if k in labels}
        # Pods' GPU requests are stored summed over GPU resources; nodes almost
        # always offer one kind, so the sum is that kind's request.
        r["gpus"] = [
            {"resource": res, "allocatable": _int(allocatable.get(res))}
            for res in r["gpu_resources"]
        ]
    return Page(rows, total, page, pages)


def _json(value: Any) -> dict:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value:
        try:
            loaded = json.loads(value)
        except ValueError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}


def _int(value: Any) -> int:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return 0


def gpu_topology(cluster: Cluster) -> dict[str, Any]:
    """Free GPUs per node grouped by pool/zone, and the stranded (fragmented) GPUs.

    Stranded: free GPUs on schedulable nodes with fewer free than the smallest
    GPU request among pending pods, i.e. free GPUs that no pending pod can use.
    """
    nodes = list(
        Node.objects.filter(cluster=cluster, gpu_capacity__gt=0)
        .annotate(
            zone=_label(ZONE_LABEL),
            product=_label("nvidia.com/gpu.product"),
            pool=Coalesce(*(_label(k) for k in POOL_LABELS), Value(""), output_field=TextField()),
        )
        .values("name", "gpu_allocatable", "unschedulable", "ready", "zone", "product", "pool")
        .order_by("name")
    )
    used_rows = (
        Pod.objects.filter(cluster=cluster, gpu_requested__gt=0)
        .exclude(node_name="")
        .exclude(phase__in=DONE_PHASES)
        .values("node_name")
        .annotate(g=Sum("gpu_requested"))
        .order_by()
    )
    used = {r["node_name"]: r["g"] for r in used_rows}
    sizes = list(
        pending_pods(cluster)
        .filter(gpu_requested__gt=0)
        .values("gpu_requested")
        .annotate(n=Count("id"))
        .order_by("gpu_requested")
    )
    smallest = sizes[0]["gpu_requested"] if sizes else None
    groups: dict[str, list[tuple[str, int]]] = {}
    free_total = stranded = 0
    largest_free = 0
    products: dict[str, int] = {}
    free_list = []
    for n in nodes:
        pool = n["pool"]
        group = f"{pool or 'no pool'} / {n['zone'] or 'no zone'}"
        free = max(n["gpu_allocatable"] - used.get(n["name"], 0), 0)
        usable = n["ready"] and not n["unschedulable"]
        if not usable:
            free = 0
        groups.setdefault(group, []).append((n["name"], free))
        free_total += free
        largest_free = max(largest_free, free)
        free_list.append(free)
        if smallest is not None and free < smallest:
            stranded += free
        if n["product"]:
            products[n["product"]] = products.get(n["product"], 0) + n["gpu_allocatable"]
    by_size = [
        {
            "size": s["gpu_requested"],
            "pods": s["n"],
            "nodes": sum(1 for f in free_list if f >= s["gpu_requested"]),
            "fits": sum(f // s["gpu_requested"] for f in free_list),
        }
        for s in sizes
    ]
    ordered = sorted(groups)
    width = max((len(v) for v in groups.values()), default=0)
    z: list[list[int | None]] = []
    text: list[list[str]] = []
    for g in ordered:
        members = sorted(groups[g], key=lambda m: (-m[1], m[0]))
        z.append([m[1] for m in members] + [None] * (width - len(members)))
        text.append([m[0] for m in members] + [""] * (width - len(members)))
    return {
        "heatmap": {"y": ordered, "z": z, "text": text},
        "gpuNodes": len(nodes),
        "free": free_total,
        "stranded": stranded if smallest is not None else 0,
        "smallestPending": smallest,
        "largestFree": largest_free,
        "bySize": by_size,
        "products": products,
    }
