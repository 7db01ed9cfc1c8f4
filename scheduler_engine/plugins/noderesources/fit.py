"""NodeResourcesFit: PreFilter, Filter, PreScore, Score.

Upstream counterpart: ``pkg/scheduler/framework/plugins/noderesources/fit.go``
(``fitsRequest``, ``shouldDelegateResourceToDRA``) and the scoring strategies of
``resource_allocation.go`` (LeastAllocated, MostAllocated,
RequestedToCapacityRatio).

Filter: the pod must fit next to what is already requested on the node, one
reason per short resource (``Too many pods``, ``Insufficient cpu``, ...).  The
status is UnschedulableAndUnresolvable as soon as one request exceeds the
node's whole allocatable (no eviction can help), otherwise Unschedulable —
``Too many pods`` alone is always Unschedulable.  Extended resources listed in
``ignoredResources`` or whose prefix is in ``ignoredResourceGroups`` are not
checked.  With DRAExtendedResource (beta, on in v1.36) a scalar resource the
node does not advertise is left to DynamicResources when a DeviceClass maps it
(explicit ``spec.extendedResourceName`` or the implicit
``deviceclass.resource.kubernetes.io/<class>``); without such a class it is
checked like any other and fails with ``Insufficient <name>``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.cycle_state import CycleState, StateData, missing_state
from ...framework.interfaces import BasePlugin, Handle, PreFilterResult
from ...framework.node_info import NodeInfo
from ...framework.node_table import NodeTable
from ...framework.placement import PodGroupAssignments, PodGroupInfo
from ...framework.signers import RESOURCES, Fragments, resources_signer, unsignable
from ...framework.status import Code, Status
from ...objects import Pod, Resource, is_extended_resource_name
from ...objects.pod import parse_time
from ..helper import snapshot_of
from .resource_allocation import (
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    PodRequestsState,
    ResourceSpec,
    least_resource_batch,
    least_resource_scorer,
    most_resource_batch,
    most_resource_scorer,
    node_allocatable_request,
    parse_resources,
    pod_request_list,
    requested_to_capacity_ratio_batch,
    requested_to_capacity_ratio_scorer,
    scaled_shape,
    shape_lookup,
    table_allocatable_request,
)

__all__ = [
    "ERR_REASON_TOO_MANY_PODS",
    "NAME",
    "PLUGIN",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "Fit",
    "FitPreFilterState",
    "device_class_resolver",
    "insufficient_reason",
    "new",
]

NAME = "NodeResourcesFit"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME

ERR_REASON_TOO_MANY_PODS = "Too many pods"
# reasons beyond this many: filter_statuses_batch asks filter node by node (bits of an int64)
_MAX_KEYED_CHECKS = 56
ERR_REASON_INSUFFICIENT_CPU = "Insufficient cpu"
ERR_REASON_INSUFFICIENT_MEMORY = "Insufficient memory"
ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE = "Insufficient ephemeral-storage"

# resourceapi.ResourceDeviceClassPrefix: every DeviceClass answers to this name too
DEVICE_CLASS_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"

# v1.36 feature gates this plugin reads
ENABLE_DRA_EXTENDED_RESOURCE = True


@functools.lru_cache(maxsize=1024)
def insufficient_reason(resource_name: str) -> str:
    # one string per resource name, not one per rejected node
    return f"Insufficient {resource_name}"


def device_class_resolver(device_classes: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Extended resource name → DeviceClass name, as upstream's ExtendedResourceCache.

    Two classes naming the same extended resource: the newer one wins, the
    lower name on a tie.  Every class also maps its implicit name.
    """
    explicit: dict[str, tuple[float, str]] = {}
    out: dict[str, str] = {}
    for dc in device_classes:
        meta = dc.get("metadata") or {}
        name = str(meta.get("name") or "")
        if not name:
            continue
        ext = (dc.get("spec") or {}).get("extendedResourceName")
        if ext:
            try:
                created = parse_time(meta.get("creationTimestamp")) or 0.0
            except ValueError:
                created = 0.0
            cur = explicit.get(ext)
            if cur is None or created > cur[0] or (created == cur[0] and name < cur[1]):
                explicit[ext] = (created, name)
        out[DEVICE_CLASS_RESOURCE_PREFIX + name] = name
    for ext, (_, name) in explicit.items():
        out[ext] = name
    return out


def dra_extended_resources(handle: Handle | None) -> dict[str, str]:
    """The cluster's extended resource name → DeviceClass mapping (empty without the gate)."""
    classes: Sequence[Mapping[str, Any]] = ()
    if ENABLE_DRA_EXTENDED_RESOURCE and handle is not None:
        try:
            classes = handle.cluster.of_kind("DeviceClass")
        except AttributeError:
            classes = ()
    return device_class_resolver(classes)


def sign_requests(pod: Pod, dra: Mapping[str, str]) -> tuple[Fragments, Status | None]:
    """The request fragment of NodeResourcesFit and BalancedAllocation: refused when a
    non-zero extended resource request may be left to DRA (a DeviceClass maps it)."""
    for name, q in pod.requests.scalar.items():
        if q != 0 and name in dra:
            return unsignable(
                "signature disabled when dra extended resources are used in the cluster"
            )
    return [(RESOURCES, resources_signer(pod))], None


class FitPreFilterState(StateData):
    """The pod's request, with the scalar checks resolved once per cycle."""

    __slots__ = ("checks", "empty", "request", "statuses")

    def __init__(self, request: Resource, checks: tuple[tuple[str, int, bool, str], ...]) -> None:
        self.request = request
        # (name, quantity, left to DRA where the node has none of it, its Insufficient reason)
        self.checks = checks
        # (unresolvable, reasons) → the one Status this cycle returns for them
        self.statuses: dict[tuple[bool, tuple[str, ...]], Status] = {}
        self.empty = (
            request.milli_cpu == 0
            and request.memory == 0
            and request.ephemeral_storage == 0
            and not request.scalar
        )

    def clone(self) -> FitPreFilterState:
        # never mutated
        return self


class Fit(BasePlugin):
    NAME = NAME
    # answers from the pod's spec and that one node alone (framework/node_memo.py)
    node_local_filter = True
    node_local_score = True

    def __init__(self, args: Mapping[str, Any], handle: Handle | None) -> None:
        self.handle = handle
        self.ignored_resources = frozenset(args.get("ignoredResources") or ())
        self.ignored_resource_groups = frozenset(args.get("ignoredResourceGroups") or ())
        strategy = args.get("scoringStrategy") or {}
        self.strategy = str(strategy.get("type") or LEAST_ALLOCATED)
        if self.strategy not in (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO):
            raise ValueError(f"scoring strategy {self.strategy} is not supported")
        self.resources: tuple[ResourceSpec, ...] = parse_resources(strategy.get("resources"))
        self.weights = [r.weight for r in self.resources]
        shape = (strategy.get("requestedToCapacityRatio") or {}).get("shape") or ()
        self.shape = scaled_shape(shape)
        if self.strategy == REQUESTED_TO_CAPACITY_RATIO and not self.shape:
            raise ValueError("requestedToCapacityRatio.shape is required")
        self._lookup = shape_lookup(self.shape) if self.shape else None
        self._lookup_list = self._lookup.tolist() if self._lookup is not None else None
        self._device_classes: dict[str, str] | None = None

    # -- helpers ----------------------------------------------------------------
    def _dra_mapping(self) -> dict[str, str]:
        if self._device_classes is None:
            self._device_classes = dra_extended_resources(self.handle)
        return self._device_classes

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its answers depend on the pod's request."""
        return sign_requests(pod, self._dra_mapping())

    def _is_ignored(self, name: str) -> bool:
        if not is_extended_resource_name(name):
            return False
        if name in self.ignored_resources:
            return True
        return bool(self.ignored_resource_groups) and (
            name.split("/", 1)[0] in self.ignored_resource_groups
        )

    # -- PreFilter ----------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        req = pod.requests
        dra = self._dra_mapping()
        checks = tuple(
            (name, q, name in dra, insufficient_reason(name))
            for name, q in req.scalar.items()
            if q != 0 and not self._is_ignored(name)
        )
        state.write(PRE_FILTER_STATE_KEY, FitPreFilterState(req, checks))
        return None, None

    # -- Filter -------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return missing_state(PRE_FILTER_STATE_KEY)
        alloc = node_info.node.allocatable
        reasons: list[str] | None = None
        unresolvable = False
        if len(node_info.pods) + 1 > alloc.allowed_pod_number:
            reasons = [ERR_REASON_TOO_MANY_PODS]
        if s.empty:
            return None if reasons is None else Status(Code.UNSCHEDULABLE, *reasons)
        req = s.request
        used = node_info.requested
        q = req.milli_cpu
        if q > 0 and q > alloc.milli_cpu - used.milli_cpu:
            reasons = reasons or []
            reasons.append(ERR_REASON_INSUFFICIENT_CPU)
            unresolvable = unresolvable or q > alloc.milli_cpu
        q = req.memory
        if q > 0 and q > alloc.memory - used.memory:
            reasons = reasons or []
            reasons.append(ERR_REASON_INSUFFICIENT_MEMORY)
            unresolvable = unresolvable or q > alloc.memory
        q = req.ephemeral_storage
        if q > 0 and q > alloc.ephemeral_storage - used.ephemeral_storage:
            reasons = reasons or []
            reasons.append(ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE)
            unresolvable = unresolvable or q > alloc.ephemeral_storage
        if s.checks:
            asc = alloc.scalar
            usc = used.scalar
            for name, q, dra, reason in s.checks:
                a = asc.get(name, 0)
                if dra and a <= 0:
                    continue
                if q > a - usc.get(name, 0):
                    reasons = reasons or []
                    reasons.append(reason)
                    unresolvable = unresolvable or q > a
        if reasons is None:
            return None
        # nodes short of the same resources share one Status (never changed once made)
        key = (unresolvable, tuple(reasons))
        status = s.statuses.get(key)
        if status is None:
            code = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unresolvable else Code.UNSCHEDULABLE
            status = s.statuses[key] = Status(code, *reasons)
        return status

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """True where :meth:`filter` succeeds."""
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return np.zeros(len(nodes), dtype=bool)
        table, rows = NodeTable.for_nodes(snapshot_of(self.handle), nodes)
        ok = table.pod_count[rows] + 1 <= table.allowed_pods[rows]
        if s.empty:
            return ok
        req = s.request
        for c, q in ((0, req.milli_cpu), (1, req.memory), (2, req.ephemeral_storage)):
            if q > 0:
                ok &= q <= table.allocatable[rows, c] - table.requested[rows, c]
        for name, q, dra, _ in s.checks:
            c = table.columns.get(name)
            if c is None:
                # nobody has it: fails everywhere unless DRA takes it
                if not dra:
                    ok[:] = False
                continue
            a = table.allocatable[rows, c]
            fits = q <= a - table.requested[rows, c]
            if dra:
                fits |= a <= 0
            ok &= fits
        return ok

    def filter_statuses_batch(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> list[Status | None]:
        """Per node, in order: what :meth:`filter` returns, read off the node table.

        Each of :meth:`filter`'s reasons (too many pods, then each resource
        in its order) is a bit per node; nodes short of the same resources get
        the one status :meth:`filter` gives them all this cycle.
        """
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None or len(s.checks) > _MAX_KEYED_CHECKS:
            return [self.filter(state, pod, ni) for ni in nodes]
        table, rows = NodeTable.for_nodes(snapshot_of(self.handle), nodes)
        too_many = table.pod_count[rows] + 1 > table.allowed_pods[rows]
        if s.empty:
            full = Status(Code.UNSCHEDULABLE, ERR_REASON_TOO_MANY_PODS)
            return [full if t else None for t in too_many.tolist()]
        req = s.request
        zero = np.zeros(len(nodes), dtype=np.int64)
        # (reason, its quantity, the nodes' allocatable and requested, left to DRA)
        wanted = [
            (reason, q, table.allocatable[rows, c], table.requested[rows, c], False)
            for c, q, reason in (
                (0, req.milli_cpu, ERR_REASON_INSUFFICIENT_CPU),
                (1, req.memory, ERR_REASON_INSUFFICIENT_MEMORY),
                (2, req.ephemeral_storage, ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE),
            )
            if q > 0
        ]
        for name, q, dra, reason in s.checks:
            c = table.columns.get(name)
            a, used = (
                (zero, zero)
                if c is None
                else (table.allocatable[rows, c], table.requested[rows, c])
            )
            wanted.append((reason, q, a, used, dra))
        reasons = [ERR_REASON_TOO_MANY_PODS]
        code = too_many.astype(np.int64)
        unresolvable = np.zeros(len(nodes), dtype=bool)
        for reason, q, a, used, dra in wanted:
            short = q > a - used
            if dra:
                short &= a > 0
            unresolvable |= short & (q > a)
            code |= short.astype(np.int64) << len(reasons)
            reasons.append(reason)
        code |= unresolvable.astype(np.int64) << len(reasons)
        out: dict[int, Status | None] = {0: None}
        for k in set(code.tolist()) - {0}:
            said = tuple(r for i, r in enumerate(reasons) if k >> i & 1)
            key = (bool(k >> len(reasons) & 1), said)
            status = s.statuses.get(key)
            if status is None:
                kind = Code.UNSCHEDULABLE_AND_UNRESOLVABLE if key[0] else Code.UNSCHEDULABLE
                status = s.statuses[key] = Status(kind, *said)
            out[k] = status
        return [out[k] for k in code.tolist()]

    # -- PreScore / Score -----------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(
            PRE_SCORE_STATE_KEY, PodRequestsState(pod_request_list(pod, self.resources, False))
        )
        return None

    def _pod_requests(self, state: CycleState, pod: Pod) -> list[int]:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return pod_request_list(pod, self.resources, False)
        return s.pod_requests

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        pod_requests = self._pod_requests(state, pod)
        requested, _, allocatable = node_allocatable_request(
            node_info, self.resources, pod_requests, False
        )
        if self.strategy == LEAST_ALLOCATED:
            return least_resource_scorer(self.weights, requested, allocatable)
        if self.strategy == MOST_ALLOCATED:
            return most_resource_scorer(self.weights, requested, allocatable)
        return requested_to_capacity_ratio_scorer(
            self._lookup_list, self.weights, requested, allocatable
        )

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """Raw scores, equal to :meth:`score` node by node."""
        pod_requests = self._pod_requests(state, pod)
        table, rows = NodeTable.for_nodes(snapshot_of(self.handle), nodes)
        entries = table_allocatable_request(table, rows, self.resources, pod_requests, False)
        n = len(nodes)
        if self.strategy == LEAST_ALLOCATED:
            return least_resource_batch(self.weights, entries, n)
        if self.strategy == MOST_ALLOCATED:
            return most_resource_batch(self.weights, entries, n)
        return requested_to_capacity_ratio_batch(self._lookup, self.weights, entries, n)

    # -- PlacementScore (TopologyAwareWorkloadScheduling) -------------------------------
    def score_placement(
        self, state: CycleState, group: PodGroupInfo, assignments: PodGroupAssignments
    ) -> tuple[int, Status | None]:
        """MostAllocated over the placement's nodes taken as one, the members' requests added.

        Upstream always scores placements with MostAllocated over the configured
        resources (non-zero defaults for cpu and memory), whatever the strategy.
        """
        res = self.resources
        n = len(res)
        requested = [0] * n
        for pod, _ in assignments.assignments:
            for i, v in enumerate(pod_request_list(pod, res, False)):
                requested[i] += v
        allocatable = [0] * n
        for ni in assignments.placement.nodes:
            _, node_allocated, node_allocatable = node_allocatable_request(
                ni, res, requested, False
            )
            for i in range(n):
                allocatable[i] += node_allocatable[i]
                requested[i] += node_allocated[i]
        return most_resource_scorer(self.weights, requested, allocatable), None


PLUGIN = Fit


def new(args: Mapping[str, Any], handle: Handle) -> Fit:
    return Fit(args, handle)
