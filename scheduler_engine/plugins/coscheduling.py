"""Coscheduling (kubernetes-sigs/scheduler-plugins ``pkg/coscheduling``): gangs by label.

Pods join a ``PodGroup`` (``scheduling.x-k8s.io/v1alpha1``: ``minMember``,
``minResources``, ``scheduleTimeoutSeconds``) with the label
``scheduling.x-k8s.io/pod-group``.  Configured as that project documents it:
``Coscheduling`` in ``multiPoint`` and as the only ``queueSort`` plugin, with
``CoschedulingArgs`` (``permitWaitingTimeSeconds`` 60, ``podGroupBackoffSeconds``
0, ``podGroupRejectPercentage`` 10).

* QueueSort: priority, then the group's creation time (or its last failure),
  then the pod's ``namespace/name``: a group's pods queue together.
* PreFilter rejects a member while the group has fewer than ``minMember``
  pods, while gated members keep it below quorum, or while the cluster's free
  resources cannot hold ``minResources``.
* Permit counts the member as assigned and waits (the group's
  ``scheduleTimeoutSeconds`` or ``permitWaitingTimeSeconds``) until
  ``minMember`` members are; then every waiting member is allowed.
* PostFilter: a member that fits nowhere rejects its group's waiting members
  (unless the quorum is nearly reached); Unreserve (a timeout, a rejection)
  rejects them too, so nothing of the group stays reserved.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import InputError
from ..framework.cycle_state import CycleState
from ..framework.interfaces import BasePlugin, Handle, NodeToStatus, PostFilterResult, QueuedPodInfo
from ..framework.node_info import NodeInfo
from ..framework.status import Code, Status
from ..objects import Pod
from ..objects.pod import parse_time
from ..objects.podgroup import COSCHEDULING_LABEL
from ..quantity import parse_quantity

__all__ = [
    "API_GROUP",
    "API_VERSION",
    "NAME",
    "PLUGIN",
    "Coscheduling",
    "CoschedulingPodGroup",
    "check_args",
    "group_full_name",
    "index_pod_groups",
    "new",
]

NAME = "Coscheduling"
API_GROUP = "scheduling.x-k8s.io"
API_VERSION = "scheduling.x-k8s.io/v1alpha1"
DEFAULT_PERMIT_WAITING_TIME_SECONDS = 60
DEFAULT_POD_GROUP_BACKOFF_SECONDS = 0
DEFAULT_POD_GROUP_REJECT_PERCENTAGE = 10
EVENTS = frozenset(("add",))  # Pod Add (and PodGroup Add/Update, which a run has none of)


class CoschedulingPodGroup:
    __slots__ = ("created", "min_member", "min_resources", "name", "namespace", "timeout")

    def __init__(self, obj: Mapping[str, Any], source: str | None = None) -> None:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        self.namespace = str(meta.get("namespace") or "default")
        self.name = str(meta.get("name") or "")
        ref = f"PodGroup {self.namespace}/{self.name}"
        mm = spec.get("minMember", 0) if isinstance(spec, Mapping) else None
        if isinstance(mm, bool) or not isinstance(mm, int) or mm < 0:
            raise InputError(
                "must be a non-negative integer", file=source, obj=ref, field="spec.minMember"
            )
        t = spec.get("scheduleTimeoutSeconds")
        if t is not None and (isinstance(t, bool) or not isinstance(t, int) or t < 0):
            raise InputError(
                "must be a non-negative integer",
                file=source,
                obj=ref,
                field="spec.scheduleTimeoutSeconds",
            )
        mr = spec.get("minResources")
        if mr is not None:
            if not isinstance(mr, Mapping):
                raise InputError(
                    "must be a map of quantities", file=source, obj=ref, field="spec.minResources"
                )
            for k, v in mr.items():
                try:
                    parse_quantity(v)
                except (ValueError, TypeError) as exc:
                    raise InputError(
                        str(exc), file=source, obj=ref, field=f"spec.minResources.{k}"
                    ) from None
        self.min_member = mm
        self.min_resources: dict[str, str] | None = (
            {str(k): str(v) for k, v in spec["minResources"].items()}
            if isinstance(spec.get("minResources"), Mapping)
            else None
        )
        t = spec.get("scheduleTimeoutSeconds")
        self.timeout: int | None = int(t) if t is not None else None
        ts = meta.get("creationTimestamp")
        self.created = parse_time(ts) if ts else 0.0

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def is_coscheduling_pod_group(obj: Mapping[str, Any]) -> bool:
    api = str(obj.get("apiVersion") or "")
    return obj.get("kind") == "PodGroup" and api.split("/", 1)[0] == API_GROUP


def index_pod_groups(
    objects: Sequence[Mapping[str, Any]], source: str | None = None
) -> dict[str, CoschedulingPodGroup]:
    out: dict[str, CoschedulingPodGroup] = {}
    for o in objects:
        if is_coscheduling_pod_group(o):
            pg = CoschedulingPodGroup(o, source)
            out[pg.key] = pg
    return out


def group_label(pod: Pod) -> str:
    return pod.labels.get(COSCHEDULING_LABEL, "")


def group_full_name(pod: Pod) -> str:
    name = group_label(pod)
    return f"{pod.namespace}/{name}" if name else ""


# -- args ----------------------------------------------------------------------------------
def check_args(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Any, str]]]:
    """``SetDefaults_CoschedulingArgs`` then ``ValidateCoschedulingArgs``."""
    a = copy.deepcopy(dict(raw or {}))
    a.pop("apiVersion", None)
    a.pop("kind", None)
    a.setdefault("permitWaitingTimeSeconds", DEFAULT_PERMIT_WAITING_TIME_SECONDS)
    a.setdefault("podGroupBackoffSeconds", DEFAULT_POD_GROUP_BACKOFF_SECONDS)
    a.setdefault("podGroupRejectPercentage", DEFAULT_POD_GROUP_REJECT_PERCENTAGE)
    errs: list[tuple[str, Any, str]] = []
    for f in ("permitWaitingTimeSeconds", "podGroupBackoffSeconds", "podGroupRejectPercentage"):
        v = a[f]
        if isinstance(v, bool) or not isinstance(v, int):
            errs.append((f, v, "must be an integer"))
    if not errs:
        if a["permitWaitingTimeSeconds"] < 0:
            errs.append(
                (
                    "permitWaitingTimeSeconds",
                    a["permitWaitingTimeSeconds"],
                    "must be greater than 0",
                )
            )
        if a["podGroupBackoffSeconds"] < 0:
            errs.append(
                ("podGroupBackoffSeconds", a["podGroupBackoffSeconds"], "must be greater than 0")
            )
        p = a["podGroupRejectPercentage"]
        if p < 0 or p > 100:
            errs.append(("podGroupRejectPercentage", p, "must be between 0 and 100"))
    return a, errs


# -- Go's resource.Quantity as fmt %v prints it inside a map (for "resource gap") -----------
class _GoQuantity:
    """An ``int64Amount`` (value, scale) and its Format, enough for Sub and %v."""

    __slots__ = ("fmt", "scale", "value")

    def __init__(self, value: int, scale: int, fmt: str) -> None:
        self.value, self.scale, self.fmt = value, scale, fmt

    @classmethod
    def parse(cls, text: str) -> _GoQuantity:
        t = text.strip()
        for suf in ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei"):
            if t.endswith(suf):
                return cls(int(parse_quantity(t)), 0, "BinarySI")
        dec = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
        num, exp = t, 0
        if t and t[-1] in dec and not t[-1].isdigit():
            num, exp = t[:-1], dec[t[-1]]
        elif "e" in t.lower():
            num, e = t.lower().split("e", 1)
            exp = int(e)
        if "." in num:
            whole, frac = num.split(".", 1)
            frac = frac.rstrip("0")
            return cls(int(whole + frac or "0"), exp - len(frac), "DecimalSI")
        return cls(int(num), exp, "DecimalSI")

    def sub(self, value: int, scale: int, fmt: str) -> None:
        if self.value == 0:
            self.fmt = fmt
        if self.scale == scale:
            self.value -= value
        elif self.scale > scale:
            self.value = self.value * 10 ** (self.scale - scale) - value
            self.scale = scale
        else:
            self.value -= value * 10 ** (scale - self.scale)

    def go_v(self) -> str:
        return f"{{{{{self.value} {self.scale}}} {{<nil>}}  {self.fmt}}}"


def _node_left(ni: NodeInfo, group: str) -> dict[str, tuple[int, int, str]]:
    """What the node has left besides the group's own pods (``getNodeResource``), as quantities."""
    req_cpu = req_mem = req_eph = 0
    scalar: dict[str, int] = dict(ni.requested.scalar)
    pods = 0
    req_cpu, req_mem, req_eph = (
        ni.requested.milli_cpu,
        ni.requested.memory,
        ni.requested.ephemeral_storage,
    )
    for p in ni.pods:
        if group_full_name(p) == group:
            r = p.requests
            req_cpu -= r.milli_cpu
            req_mem -= r.memory
            req_eph -= r.ephemeral_storage
            for k, v in r.scalar.items():
                scalar[k] = scalar.get(k, 0) - v
        else:
            pods += 1
    alloc = ni.node.allocatable
    out = {
        "cpu": (alloc.milli_cpu - req_cpu, -3, "DecimalSI"),
        "memory": (alloc.memory - req_mem, 0, "BinarySI"),
        "pods": (alloc.allowed_pod_number - pods, 0, "BinarySI"),
        "ephemeral-storage": (alloc.ephemeral_storage - req_eph, 0, "BinarySI"),
    }
    for k, v in alloc.scalar.items():
        fmt = "BinarySI" if k.startswith("hugepages-") else "DecimalSI"
        out[k] = (v - scalar.get(k, 0), 0, fmt)
    return out


def check_cluster_resource(
    nodes: Sequence[NodeInfo], request: dict[str, str], group: str
) -> str | None:
    """None when the free resources of the nodes, in order, cover ``request``; else the gap."""
    need = {k: _GoQuantity.parse(v) for k, v in request.items()}
    for ni in nodes:
        left = _node_left(ni, group)
        for name in list(need):
            q = need[name]
            v, scale, fmt = left.get(name, (0, 0, "DecimalSI"))
            q.sub(v, scale, fmt)
            if q.value <= 0:
                del need[name]
        if not need:
            return None
    inner = " ".join(f"{k}:{need[k].go_v()}" for k in sorted(need))
    return f"resource gap: map[{inner}]"


class Coscheduling(BasePlugin):
    NAME = NAME

    def __init__(self, args: Mapping[str, Any], handle: Handle | None) -> None:
        self.handle = handle
        self.schedule_timeout = int(
            args.get("permitWaitingTimeSeconds", DEFAULT_PERMIT_WAITING_TIME_SECONDS)
        )
        backoff = int(args.get("podGroupBackoffSeconds", DEFAULT_POD_GROUP_BACKOFF_SECONDS))
        self.pg_backoff: int | None = backoff if backoff > 0 else None
        self.reject_threshold = (
            int(args.get("podGroupRejectPercentage", DEFAULT_POD_GROUP_REJECT_PERCENTAGE)) / 100.0
        )
        self._groups: dict[str, CoschedulingPodGroup] | None = None
        # the pod group manager: members that passed Permit (or run), by group
        self.assigned: dict[str, set[str]] = {}
        self._assigned_loaded = False
        self.last_failed: dict[str, float] = {}
        # group → until when PreFilter refuses it (podGroupBackoffSeconds); minResources checked
        self.backed_off: dict[str, float] = {}
        self.permitted: dict[str, float] = {}
        # group → member → node of the members holding a node now (past Permit), and the
        # most that held nodes at once: how many of a gang fit, for its diagnosis
        self.holding: dict[str, dict[str, str]] = {}
        self.most_held: dict[str, dict[str, str]] = {}
        self._sibling_index: tuple[list[Pod], dict[tuple[str, str], list[Pod]]] | None = None
        # pod key → its group's full name and the group's creation time (None: no
        # PodGroup): the queue sort asks them at every comparison
        self._sort_info: dict[str, tuple[str, float | None]] = {}

    # -- the manager's reads ---------------------------------------------------------------
    def load_pod_groups(self, source: str | None = None) -> None:
        """Parse the cluster's PodGroups now; raises InputError naming a bad one."""
        objs = self.handle.cluster.of_kind("PodGroup") if self.handle is not None else []
        self._groups = index_pod_groups(objs, source)
        self._sort_info.clear()

    def groups(self) -> dict[str, CoschedulingPodGroup]:
        if self._groups is None:
            objs = self.handle.cluster.of_kind("PodGroup") if self.handle is not None else []
            self._groups = index_pod_groups(objs)
        return self._groups

    def get_pod_group(self, pod: Pod) -> tuple[str, CoschedulingPodGroup | None]:
        full = group_full_name(pod)
        if not full:
            return "", None
        return full, self.groups().get(full)

    def _load_assigned(self) -> None:
        # the informer's Add of pods already on a node
        if self._assigned_loaded or self.handle is None:
            return
        self._assigned_loaded = True
        for p in self.handle.cluster.pods:
            if p.node_name:
                full = group_full_name(p)
                if full:
                    self.assigned.setdefault(full, set()).add(p.name)

    def assigned_count(self, full: str) -> int:
        self._load_assigned()
        return len(self.assigned.get(full, ()))

    def _siblings(self, pod: Pod) -> list[Pod]:
        """Every pod of the namespace with the pod's group label (the pod lister's answer)."""
        assert self.handle is not None
        pods = self.handle.cluster.pods
        # indexed once per version of the pod list (it is replaced when pods are deleted)
        if self._sibling_index is None or self._sibling_index[0] is not pods:
            index: dict[tuple[str, str], list[Pod]] = {}
            for p in pods:
                name = p.labels.get(COSCHEDULING_LABEL)
                if name:
                    index.setdefault((p.namespace, name), []).append(p)
            self._sibling_index = (pods, index)
        return self._sibling_index[1].get((pod.namespace, group_label(pod)), [])

    def _now(self) -> float:
        return self.handle.now() if self.handle is not None else 0.0

    # -- QueueSort -----------------------------------------------------------------------------
    def _group_sort_info(self, pod: Pod) -> tuple[str, float | None]:
        info = self._sort_info.get(pod.key)
        if info is None:
            full = group_full_name(pod)
            pg = self.groups().get(full) if full else None
            info = self._sort_info[pod.key] = (full, pg.created if pg is not None else None)
        return info

    def _creation(self, qpi: QueuedPodInfo) -> float:
        full, created = self._group_sort_info(qpi.pod)
        if not full:
            return qpi.timestamp
        failed = self.last_failed.get(full)
        if failed is not None:
            return failed
        return created if created is not None else qpi.timestamp

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1, p2 = a.pod.priority, b.pod.priority
        if p1 != p2:
            return p1 > p2
        c1, c2 = self._creation(a), self._creation(b)
        if c1 == c2:
            return a.pod.key < b.pod.key
        return c1 < c2

    # -- PreFilter --------------------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[None, Status | None]:
        err = self._pre_filter(pod, nodes)
        if err is not None:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, err)
        return None, None

    def _pre_filter(self, pod: Pod, nodes: Sequence[NodeInfo]) -> str | None:
        full, pg = self.get_pod_group(pod)
        if pg is None:
            return None
        now = self._now()
        if self.backed_off.get(full, -1.0) > now:
            return f"podGroup {full} failed recently"
        pods = self._siblings(pod)
        gap = pg.min_member - len(pods)
        if gap > 0:
            return (
                f"pre-filter pod {pod.name} cannot find enough sibling pods, "
                f"current pods number: {len(pods)}, minMember of group: {pg.min_member}"
            )
        for p in pods:
            if p.scheduling_gates:
                gap += 1
            if gap > 0:
                return f"pre-filter pod {pod.name} cannot proceed due to gated pods in the same PodGroup"
        if pg.min_resources is None:
            return None
        if self.permitted.get(full, -1.0) > now:
            return None
        request = dict(pg.min_resources)
        request["pods"] = str(pg.min_member)
        snap = self.handle.snapshot() if self.handle is not None else None
        all_nodes = snap.node_info_list if snap is not None else list(nodes)
        gap_msg = check_cluster_resource(all_nodes, request, full)
        if gap_msg is not None:
            return gap_msg
        self.permitted[full] = now + self.schedule_timeout
        return None

    # -- PostFilter ------------------------------------------------------------------------------
    def post_filter(
        self, state: CycleState, pod: Pod, filtered: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status | None]:
        full, pg = self.get_pod_group(pod)
        if pg is None:
            return PostFilterResult(), Status(Code.UNSCHEDULABLE, "can not find pod group")
        assigned = self.assigned_count(full)
        if assigned >= pg.min_member:
            return PostFilterResult(), Status(Code.UNSCHEDULABLE)
        not_assigned = (pg.min_member - assigned) / pg.min_member if pg.min_member else 0.0
        if not_assigned <= self.reject_threshold:
            return PostFilterResult(), Status(Code.UNSCHEDULABLE)
        self._reject_waiting(pod.namespace, pg.name, "optimistic rejection in PostFilter")
        if self.pg_backoff is not None and len(self._siblings(pod)) >= pg.min_member:
            self.backed_off[full] = self._now() + self.pg_backoff
        self.permitted.pop(full, None)
        self.last_failed[full] = self._now()
        return PostFilterResult(), Status(
            Code.UNSCHEDULABLE,
            f"PodGroup {full} gets rejected due to Pod {pod.name} is unschedulable even after PostFilter",
        )

    def _reject_waiting(self, namespace: str, group: str, msg: str) -> None:
        if self.handle is None:
            return

        def reject(wp: Any) -> None:
            p = wp.get_pod()
            if p.namespace == namespace and p.labels.get(COSCHEDULING_LABEL) == group:
                wp.reject(NAME, msg)

        self.handle.iterate_over_waiting_pods(reject)

    # -- Permit -------------------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        full, pg = self.get_pod_group(pod)
        if not full:
            return None, 0.0
        if pg is None:
            return Status(Code.UNSCHEDULABLE, "PodGroup not found"), 0.0
        self._load_assigned()
        assigned = self.assigned.setdefault(full, set())
        assigned.add(pod.name)
        held = self.holding.setdefault(full, {})
        held[pod.name] = node_name
        if len(held) > len(self.most_held.get(full, ())):
            self.most_held[full] = dict(held)
        if len(assigned) >= pg.min_member:
            self.last_failed.pop(full, None)

            def allow(wp: Any) -> None:
                if self._group_sort_info(wp.get_pod())[0] == full:
                    wp.allow(NAME)

            if self.handle is not None:
                self.handle.iterate_over_waiting_pods(allow)
            return None, 0.0
        wait = float(pg.timeout) if pg.timeout is not None else float(self.schedule_timeout or 60)
        return Status(Code.WAIT), wait

    # -- Reserve ---------------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        full, pg = self.get_pod_group(pod)
        if pg is None:
            return
        self._forget(full, pod.name)
        self._reject_waiting(pod.namespace, pg.name, "rejection in Unreserve")
        self.permitted.pop(full, None)
        self.last_failed[full] = self._now()

    def _forget(self, full: str, name: str) -> None:
        self.holding.get(full, {}).pop(name, None)
        s = self.assigned.get(full)
        if s is not None:
            s.discard(name)
            if not s:
                del self.assigned[full]

    def pod_deleted(self, pod: Pod) -> None:
        """An assigned member was deleted (a preemption victim): it no longer counts."""
        full = group_full_name(pod)
        if full:
            self._load_assigned()
            self._forget(full, pod.name)


PLUGIN = Coscheduling


def new(args: Mapping[str, Any], handle: Handle) -> Coscheduling:
    return Coscheduling(args, handle)
