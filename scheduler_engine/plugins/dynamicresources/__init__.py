"""DynamicResources: ResourceClaims (DRA) with structured parameters.

Extension points: PreEnqueue, PreFilter, Filter, PostFilter, Score (with
NormalizeScore), Reserve/Unreserve, PreBind.  Upstream counterpart:
``pkg/scheduler/framework/plugins/dynamicresources`` (kube-scheduler v1.36),
in the default profile with score weight 2 and its PostFilter *before*
DefaultPreemption; the allocator is :mod:`.allocator` (upstream's
``structured`` package), the selector language :mod:`.cel`.

How each point treats pods with and without claims, and which DRA features
are covered: ``docs/fidelity.md`` (DynamicResources).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...framework.cycle_state import CycleState, StateData
from ...framework.interfaces import BasePlugin, Handle, NodeScore, NodeToStatus, PostFilterResult
from ...framework.node_info import NodeInfo
from ...framework.signers import Fragments, unsignable
from ...framework.status import Code, Status
from ...objects import Pod
from ...objects.selectors import SelectorError, parse_node_selector
from ..noderesources.fit import device_class_resolver
from . import extended as ext
from .allocator import Allocator
from .pools import AllocatedState, AllocationError, FailedOnNode, SliceIndex

__all__ = [
    "ERR_CANNOT_ALLOCATE",
    "ERR_CLAIM_IN_USE",
    "ERR_CLAIM_NOT_AVAILABLE",
    "ERR_CLAIM_NOT_CREATED",
    "FIRST_AVAILABLE_MAX_SIZE",
    "MSG_DEALLOCATED",
    "MSG_NO_NEW_CLAIMS",
    "MSG_STILL_NOT_SCHEDULABLE",
    "NAME",
    "PLUGIN",
    "STATE_KEY",
    "ClaimTracker",
    "DynamicResources",
    "new",
]

NAME = "DynamicResources"
# upstream's stateKey is the plugin name
STATE_KEY = NAME

MSG_NO_NEW_CLAIMS = "no new claims to deallocate"
MSG_STILL_NOT_SCHEDULABLE = "still not schedulable"
MSG_DEALLOCATED = "deallocation of ResourceClaim completed"
ERR_CANNOT_ALLOCATE = "cannot allocate all claims"
ERR_CLAIM_NOT_AVAILABLE = "resourceclaim not available on the node"
# never returned in v1.36 (CanBeReserved is always true); kept for reference
ERR_CLAIM_IN_USE = "resourceclaim in use"
ERR_CLAIM_NOT_CREATED = "ResourceClaim not created yet"
ERR_DEVICE_CLASS_MISSING = "request {request}: device class {cls} does not exist"
ERR_IN_FLIGHT = "resource claim {claim} is in the process of being allocated"
ERR_ALLOCATION_NOT_FOUND = "claim allocation not found for node"
# upstream's framework.ErrNotFound, what CycleState.Read fails with
ERR_STATE_NOT_FOUND = "not found"
# DRA-backed extended resources (extendeddynamicresources.go)
ERR_EXTENDED_CLAIM = "cannot schedule extended resource claim"
ERR_CANNOT_FIT = "cannot fit resource"
# resourceapi.FirstAvailableDeviceRequestMaxSize
FIRST_AVAILABLE_MAX_SIZE = 8
FINALIZER = "resource.kubernetes.io/delete-protection"


class _NotSchedulable(Exception):
    pass


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def _kobj(obj: Mapping[str, Any]) -> str:
    m = _meta(obj)
    ns = m.get("namespace") or ""
    return f"{ns}/{m.get('name', '')}" if ns else str(m.get("name", ""))


def _allocation(claim: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return (claim.get("status") or {}).get("allocation") or None


def _reserved_for_pod(pod: Pod, claim: Mapping[str, Any]) -> bool:
    return any(
        str(r.get("uid", "")) == pod.uid
        for r in (claim.get("status") or {}).get("reservedFor") or ()
    )


# -- the simulation's view of claims (upstream's DRA manager) -------------------------


class ClaimTracker:
    """Claims, slices and classes of one simulation, plus claims being allocated.

    Shared by every profile of a run (it lives on the run's context): what
    PreBind writes is seen by every later pod.  Claims are replaced, never
    mutated, in the cluster's ``ResourceClaim`` list (the caller's objects
    are left alone).
    """

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
        self.revision = 0
        # claim uid → (claim with its allocation, number of pods sharing it)
        self.in_flight: dict[str, tuple[Mapping[str, Any], int]] = {}
        self.match_cache: dict[tuple[str, int, int], bool] = {}
        self._index: dict[tuple[str, str], int] | None = None
        self._index_key: tuple[int, int] = (0, -1)
        self._allocated: tuple[int, AllocatedState] | None = None
        self._slices: tuple[int, int, SliceIndex] | None = None
        self._classes: tuple[int, int, dict[str, Mapping[str, Any]]] | None = None
        self._share = 0

    # claims
    def _claims(self) -> list[Mapping[str, Any]]:
        return self.cluster.objects.setdefault("ResourceClaim", [])

    def _idx(self) -> dict[tuple[str, str], int]:
        lst = self._claims()
        key = (id(lst), len(lst))
        if self._index is None or key != self._index_key:
            self._index = {}
            for i, c in enumerate(lst):
                m = _meta(c)
                self._index[(str(m.get("namespace") or "default"), str(m.get("name", "")))] = i
            self._index_key = key
        return self._index

    def get(self, namespace: str, name: str) -> Mapping[str, Any] | None:
        i = self._idx().get((namespace, name))
        return None if i is None else self._claims()[i]

    def store(self, claim: Mapping[str, Any]) -> None:
        m = _meta(claim)
        key = (str(m.get("namespace") or "default"), str(m.get("name", "")))
        i = self._idx().get(key)
        lst = self._claims()
        if i is None:
            lst.append(claim)
        else:
            lst[i] = claim
        self.revision += 1

    def delete(self, namespace: str, name: str) -> bool:
        i = self._idx().get((namespace, name))
        if i is None:
            return False
        del self._claims()[i]
        self._index = None
        self.revision += 1
        return True

    # in-flight allocations (Reserve until PreBind or Unreserve)
    def pending_allocation(self, uid: str) -> Mapping[str, Any] | None:
        hit = self.in_flight.get(uid)
        return None if hit is None else _allocation(hit[0])

    def signal_pending(self, uid: str, claim: Mapping[str, Any]) -> None:
        old = self.in_flight.get(uid)
        self.in_flight[uid] = (claim, (old[1] if old else 0) + 1)
        self.revision += 1

    def remove_pending(self, uid: str) -> bool:
        hit = self.in_flight.get(uid)
        if hit is None:
            return False
        if hit[1] > 1:
            self.in_flight[uid] = (hit[0], hit[1] - 1)
            return False
        del self.in_flight[uid]
        self.revision += 1
        return True

    def allocated_state(self) -> AllocatedState:
        if self._allocated is None or self._allocated[0] != self.revision:
            st = AllocatedState()
            for c in self._claims():
                st.add_claim(c)
            for c, _ in self.in_flight.values():
                st.add_claim(c)
            self._allocated = (self.revision, st)
        return self._allocated[1]

    def slices(self) -> SliceIndex:
        lst = self.cluster.of_kind("ResourceSlice")
        if self._slices is None or self._slices[:2] != (id(lst), len(lst)):
            self._slices = (id(lst), len(lst), SliceIndex(lst))
            self.match_cache.clear()
        return self._slices[2]

    def classes(self) -> dict[str, Mapping[str, Any]]:
        lst = self.cluster.of_kind("DeviceClass")
        if self._classes is None or self._classes[:2] != (id(lst), len(lst)):
            self._classes = (id(lst), len(lst), {str(_meta(c).get("name", "")): c for c in lst})
            self.match_cache.clear()
        return self._classes[2]

    def next_share_id(self) -> str:
        self._share += 1
        return f"schedlab-share-{self._share}"


def tracker_for(handle: Any) -> ClaimTracker:
    """The tracker of the handle's run (one per simulation context and cluster)."""
    holder = getattr(handle, "ctx", None)
    if holder is None or not hasattr(holder, "__dict__"):
        holder = handle
    t = holder.__dict__.get("_dra_tracker")
    cluster = handle.cluster
    if t is None or t.cluster is not cluster:
        t = ClaimTracker(cluster)
        holder.__dict__["_dra_tracker"] = t
    return t


# -- cycle state ---------------------------------------------------------------------


class _ClaimInfo:
    __slots__ = ("allocation", "available_on")

    def __init__(self) -> None:
        # the allocation's node selector, for claims already allocated
        self.available_on: Any = None
        # set by Reserve: what PreBind writes
        self.allocation: Mapping[str, Any] | None = None


class _State(StateData):
    """What PreFilter learnt about the pod's claims; Filter/Reserve add to it."""

    __slots__ = (
        "allocator",
        "claims",
        "extended",
        "infos",
        "node_allocations",
        "node_extended",
        "unavailable",
    )

    def __init__(self, claims: tuple[Mapping[str, Any], ...] = ()) -> None:
        self.claims: list[Mapping[str, Any]] | tuple[Mapping[str, Any], ...] = claims
        # the index of the claim for DRA-backed extended resources (always the last), or None
        self.extended: int | None = None
        # node name → (that node's extended resource claim, the pod's request mappings)
        self.node_extended: dict[str, tuple[dict[str, Any], list[dict[str, str]]]] = {}
        self.infos: list[_ClaimInfo] = []
        self.allocator: Allocator | None = None
        self.unavailable: set[int] = set()
        # node name → allocation results, in the order of the claims to allocate
        self.node_allocations: dict[str, list[dict[str, Any]]] = {}

    def clone(self) -> _State:
        # upstream shares one stateData between copies
        return self


def _state_with_claims(state: CycleState) -> tuple[_State | None, Status | None]:
    """The PreFilter state of a pod with claims (upstream ``getStateData`` and its
    no-claims check): (state, None); (None, None) for a pod without claims; (None,
    an Error) when PreFilter stored nothing."""
    s = state.get(STATE_KEY)
    if s is None:
        return None, Status(Code.ERROR, ERR_STATE_NOT_FOUND)
    if not s.claims:
        return None, None
    return s, None


class DynamicResources(BasePlugin):
    NAME = NAME

    def __init__(self, args: Mapping[str, Any], handle: Handle) -> None:
        self.handle = handle
        self.args = dict(args)
        # pod key → what PreBind recorded: [{"claim": "ns/name", "allocation": {...}}]
        self._bound: dict[str, list[dict[str, Any]]] = {}

    @property
    def tracker(self) -> ClaimTracker:
        return tracker_for(self.handle)

    # -- the pod's claims ------------------------------------------------------------
    def _pod_claims(self, pod: Pod) -> list[Mapping[str, Any]]:
        """Upstream ``foreachPodResourceClaim``: every claim, or _NotSchedulable."""
        if not pod.resource_claims:
            return []
        tracker = self.tracker
        statuses = (pod.raw.get("status") or {}).get("resourceClaimStatuses") or ()
        out = []
        for pc in pod.resource_claims:
            must_check_owner = False
            if pc.get("resourceClaimName"):
                claim_name: str | None = str(pc["resourceClaimName"])
            elif pc.get("resourceClaimTemplateName"):
                entry = next((s for s in statuses if s.get("name") == pc.get("name")), None)
                if entry is None:
                    raise _NotSchedulable(
                        f'pod "{pod.namespace}/{pod.name}": {ERR_CLAIM_NOT_CREATED}'
                    )
                claim_name = entry.get("resourceClaimName")
                must_check_owner = True
            else:
                raise _NotSchedulable(
                    f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pc.get("name", "")}": '
                    "none of the supported fields are set"
                )
            if not claim_name:
                # a template that produced no claim: valid, nothing to do
                continue
            claim = tracker.get(pod.namespace, claim_name)
            if claim is None:
                raise _NotSchedulable(
                    f'could not find ResourceClaim "{pod.namespace}/{claim_name}"'
                )
            if _meta(claim).get("deletionTimestamp"):
                raise _NotSchedulable(f'resourceclaim "{claim_name}" is being deleted')
            if must_check_owner:
                owners = _meta(claim).get("ownerReferences") or ()
                if not any(
                    o.get("controller") and str(o.get("uid", "")) == pod.uid for o in owners
                ):
                    raise _NotSchedulable(
                        f"ResourceClaim {pod.namespace}/{claim_name} was not created for Pod "
                        f"{pod.namespace}/{pod.name} (Pod is not owner)"
                    )
            out.append(claim)
        return out

    # -- PreEnqueue --------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.resource_claims:
            return None
        try:
            self._pod_claims(pod)
        except _NotSchedulable as exc:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
        return None

    # -- extended resources backed by DRA ------------------------------------------------
    def _resolver(self) -> dict[str, str]:
        """Extended resource name → DeviceClass name (upstream's DeviceClassResolver)."""
        tracker = self.tracker
        lst = tracker.cluster.of_kind("DeviceClass")
        key = (id(lst), len(lst))
        cached = tracker.__dict__.get("_resolver")
        if cached is None or cached[0] != key:
            cached = (key, device_class_resolver(lst))
            tracker.__dict__["_resolver"] = cached
        return cached[1]

    def _filter_extended(
        self, s: _State, pod: Pod, node_info: NodeInfo
    ) -> tuple[dict[str, Any] | None, list[dict[str, str]], Status | None]:
        """Upstream ``filterExtendedResources``: the claim for this node, if DRA must serve it."""
        assert s.extended is not None
        claim = s.claims[s.extended]
        if ((claim.get("spec") or {}).get("devices") or {}).get("requests") is not None:
            return None, [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_EXTENDED_CLAIM)
        resolver = self._resolver()
        allocatable = node_info.node.allocatable.scalar
        wanted: dict[str, int] = {}
        for name, q in pod.requests.scalar.items():
            if not q or not ext.is_dra_extended_resource_name(name):
                continue
            have = allocatable.get(name)
            if name in resolver and not have:
                wanted[name] = q
            elif have is None:
                return None, [], Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_CANNOT_FIT)
        if s.extended == 0 and not wanted:
            return None, [], None
        if _allocation(claim) is not None:
            return None, [], None
        requests, mappings = ext.requests_and_mappings(pod, wanted, resolver)
        node_claim = copy.deepcopy(dict(claim))
        node_claim["spec"] = {"devices": {"requests": requests}}
        return node_claim, mappings, None

    # -- PreFilter ---------------------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[None, Status | None]:
        s = _State()
        state.write(STATE_KEY, s)
        extended = pod.requests.scalar and ext.mapped_request(pod, self._resolver())
        if not pod.resource_claims and not extended:
            return None, Status(Code.SKIP)
        try:
            claims = self._pod_claims(pod)
        except _NotSchedulable as exc:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
        tracker = self.tracker
        if extended:
            made = ext.find_extended_claim(pod, tracker.cluster.of_kind("ResourceClaim"))
            claims.append(made if made is not None else ext.placeholder_claim(pod))
            s.extended = len(claims) - 1
        if not claims:
            return None, Status(Code.SKIP)
        classes = tracker.classes()
        infos = [_ClaimInfo() for _ in claims]
        to_allocate = 0
        for i, claim in enumerate(claims):
            alloc = _allocation(claim)
            if alloc is not None:
                ns = alloc.get("nodeSelector")
                if ns is not None:
                    try:
                        infos[i].available_on = parse_node_selector(
                            ns, "status.allocation.nodeSelector"
                        )
                    except SelectorError as exc:
                        return None, Status(Code.ERROR, str(exc))
                continue
            to_allocate += 1
            uid = str(_meta(claim).get("uid", ""))
            if uid and tracker.pending_allocation(uid) is not None:
                return None, Status(
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_IN_FLIGHT.format(claim=_kobj(claim))
                )
            if i == s.extended:
                # made per node in Filter; an earlier cycle's claim is checked there
                continue
            for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
                name = str(req.get("name", ""))
                if req.get("exactly") is not None:
                    st = _validate_class(classes, req["exactly"].get("deviceClassName"), name)
                    if st is not None:
                        return None, st
                elif req.get("firstAvailable"):
                    for sub in req["firstAvailable"]:
                        st = _validate_class(
                            classes, sub.get("deviceClassName"), f"{name}/{sub.get('name', '')}"
                        )
                        if st is not None:
                            return None, st
                else:
                    return None, Status(
                        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                        f"resource claim {_kobj(claim)}, request {name}: unknown request type",
                    )
        if to_allocate:
            s.allocator = Allocator(
                tracker.allocated_state(),
                classes,
                tracker.slices(),
                tracker.match_cache,
                tracker.next_share_id,
            )
        s.infos = infos
        s.claims = claims
        return None, None

    # -- Filter --------------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s, status = _state_with_claims(state)
        if s is None:
            return status
        node = node_info.node
        node_claim: dict[str, Any] | None = None
        mappings: list[dict[str, str]] = []
        if s.extended is not None:
            node_claim, mappings, st = self._filter_extended(s, pod, node_info)
            if st is not None:
                return st
            if node_claim is None and s.extended == 0:
                # only extended resources, and the node has them itself (device plugin)
                return None
        unavailable = []
        for i, _claim in enumerate(s.claims):
            sel = s.infos[i].available_on
            if sel is not None and not sel.matches(node.labels, node.name):
                unavailable.append(i)
        results = None
        if s.allocator is not None:
            to_allocate = [
                node_claim if i == s.extended and node_claim is not None else c
                for i, c in enumerate(s.claims)
                if _allocation(c) is None
            ]
            try:
                results = s.allocator.allocate(node, to_allocate)
            except FailedOnNode as exc:
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, str(exc))
            except AllocationError as exc:
                return Status(Code.ERROR, str(exc))
            if results is None or len(results) != len(to_allocate):
                return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_CANNOT_ALLOCATE)
        if unavailable:
            s.unavailable.update(unavailable)
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_CLAIM_NOT_AVAILABLE)
        if results is not None:
            s.node_allocations[node.name] = results
            if node_claim is not None:
                s.node_extended[node.name] = (node_claim, mappings)
        return None

    # -- PostFilter ----------------------------------------------------------------------
    def post_filter(
        self, state: CycleState, pod: Pod, filtered: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        s = state.get(STATE_KEY)
        if s is None:
            return None, Status(Code.ERROR, ERR_STATE_NOT_FOUND)
        if not s.claims:
            return None, Status(Code.UNSCHEDULABLE, MSG_NO_NEW_CLAIMS)
        for index in sorted(s.unavailable):
            claim = s.claims[index]
            reserved = (claim.get("status") or {}).get("reservedFor") or ()
            if not reserved or (len(reserved) == 1 and str(reserved[0].get("uid", "")) == pod.uid):
                fresh = dict(claim)
                status = dict(claim.get("status") or {})
                for k in ("reservedFor", "allocation", "devices"):
                    status.pop(k, None)
                fresh["status"] = status
                self.tracker.store(fresh)
                return None, Status(Code.UNSCHEDULABLE, MSG_DEALLOCATED)
        return None, Status(Code.UNSCHEDULABLE, MSG_STILL_NOT_SCHEDULABLE)

    # -- Score ---------------------------------------------------------------------------
    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        s = state.get(STATE_KEY)
        if s is None:
            return Status(Code.ERROR, ERR_STATE_NOT_FOUND)
        if not s.claims:
            return 0
        allocations = s.node_allocations.get(node_info.node.name)
        if allocations is None:
            return 0
        return _compute_score(s.claims, allocations)

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        s = state.get(STATE_KEY)
        if s is None or not s.claims:
            return np.zeros(len(nodes), dtype=np.int64)
        out = np.zeros(len(nodes), dtype=np.int64)
        for i, ni in enumerate(nodes):
            allocations = s.node_allocations.get(ni.node.name)
            if allocations is not None:
                out[i] = _compute_score(s.claims, allocations)
        return out

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> None:
        # upstream's DefaultNormalizeScore: scale to 0..100 by the highest score
        top = max((s.score for s in scores), default=0)
        if top == 0:
            return None
        for s in scores:
            s.score = 100 * s.score // top
        return None

    def normalize_score_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> None:
        top = int(scores.max()) if len(scores) else 0
        if top:
            scores *= 100
            scores //= top
        return None

    # -- Reserve / Unreserve ---------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s, status = _state_with_claims(state)
        if s is None:
            return status
        pending = [i for i, c in enumerate(s.claims) if _allocation(c) is None]
        if not pending:
            return None
        if s.allocator is None:
            return None
        allocations = s.node_allocations.get(node_name)
        if not allocations:
            if pending == [s.extended]:
                return None  # the node has the extended resources itself
            return Status(Code.ERROR, ERR_ALLOCATION_NOT_FOUND)
        if len(allocations) != len(pending):
            return Status(
                Code.ERROR,
                f"internal error, have {len(allocations)} allocations, {len(pending)} claims to "
                f"allocate, want {len(pending)} claims",
            )
        tracker = self.tracker
        node_claim = s.node_extended.get(node_name)
        for alloc, index in zip(allocations, pending, strict=True):
            s.infos[index].allocation = alloc
            claim = s.claims[index]
            if index == s.extended and node_claim is not None:
                claim = node_claim[0]
            assumed = _with_allocation(claim, alloc)
            tracker.signal_pending(str(_meta(claim).get("uid", "")) or _kobj(claim), assumed)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s = state.get(STATE_KEY)
        if s is None or not s.claims:
            return None
        tracker = self.tracker
        for i, claim in enumerate(s.claims):
            if s.infos[i].allocation is not None:
                tracker.remove_pending(str(_meta(claim).get("uid", "")) or _kobj(claim))
            if i == s.extended and _meta(claim).get("name") != ext.SPECIAL_CLAIM_NAME:
                # the claim for extended resources was created (PreBind, or an earlier
                # cycle): upstream deletes it, and the next cycle makes a new one
                tracker.delete(pod.namespace, str(_meta(claim).get("name", "")))
                s.claims[i] = ext.placeholder_claim(pod)
                continue
            if _allocation(claim) is not None and _reserved_for_pod(pod, claim):
                # PreBind got as far as reserving: take the pod out again
                fresh = dict(claim)
                status = dict(claim.get("status") or {})
                status["reservedFor"] = [
                    r for r in status.get("reservedFor") or () if str(r.get("uid", "")) != pod.uid
                ]
                fresh["status"] = status
                tracker.store(fresh)
                s.claims[i] = fresh
        self._bound.pop(pod.key, None)
        return None

    # -- PreBind ------------------------------------------------------------------------------
    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s, status = _state_with_claims(state)
        if s is None:
            return status
        tracker = self.tracker
        s.claims = list(s.claims)
        recorded = []
        for i, claim in enumerate(s.claims):
            info = s.infos[i]
            mappings = None
            if i == s.extended:
                made = s.node_extended.get(node_name)
                if info.allocation is None and made is None:
                    continue  # the node's device plugin serves the extended resources
                if made is not None:
                    claim, mappings = made[0], made[1]
                if _meta(claim).get("name") == ext.SPECIAL_CLAIM_NAME:
                    # created by the scheduler: generateName gives it its name
                    claim = dict(claim)
                    claim["metadata"] = {**_meta(claim), "name": ext.claim_name_for(pod)}
            if not _reserved_for_pod(pod, claim):
                fresh = _with_allocation(claim, info.allocation) if info.allocation else dict(claim)
                status = dict(fresh.get("status") or {})
                status["reservedFor"] = [
                    *(status.get("reservedFor") or ()),
                    {"resource": "pods", "name": pod.name, "uid": pod.uid},
                ]
                fresh["status"] = status
                tracker.store(fresh)
                if info.allocation is not None:
                    tracker.remove_pending(str(_meta(claim).get("uid", "")) or _kobj(claim))
                s.claims[i] = fresh
                claim = fresh
            alloc = _allocation(claim)
            if alloc is not None:
                entry = {
                    "claim": _kobj(claim),
                    "allocatedNow": info.allocation is not None,
                    "allocation": copy.deepcopy(dict(alloc)),
                }
                if mappings is not None:
                    # what PreBind writes into the pod's status.extendedResourceClaimStatus
                    entry["requestMappings"] = [dict(m) for m in mappings]
                recorded.append(entry)
        self._bound[pod.key] = recorded
        return None

    # -- what the dry-run allocated -----------------------------------------------------------
    def allocations(self, pod_key: str) -> list[dict[str, Any]]:
        """The claims of a bound pod and their allocation: ``[{"claim", "allocatedNow", "allocation"}]``.

        ``allocatedNow`` is False for claims that were allocated before the
        pod was scheduled (shared claims, or allocated in the snapshot).
        """
        return list(self._bound.get(pod_key, ()))

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Pods with resource claims are not signable (upstream cannot tell a claim's reach)."""
        if pod.spec.get("resourceClaims"):
            return unsignable("pods with dra resource claims are not signable")
        return [], None


def _validate_class(
    classes: Mapping[str, Mapping[str, Any]], class_name: Any, request: str
) -> Status | None:
    if not class_name:
        return Status(Code.ERROR, f"request {request}: unsupported request type")
    if class_name not in classes:
        return Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            ERR_DEVICE_CLASS_MISSING.format(request=request, cls=class_name),
        )
    return None


def _with_allocation(claim: Mapping[str, Any], alloc: Mapping[str, Any]) -> dict[str, Any]:
    fresh = dict(claim)
    meta = dict(_meta(claim))
    finalizers = list(meta.get("finalizers") or ())
    if FINALIZER not in finalizers:
        finalizers.append(FINALIZER)
    meta["finalizers"] = finalizers
    fresh["metadata"] = meta
    status = dict(claim.get("status") or {})
    status["allocation"] = alloc
    fresh["status"] = status
    return fresh


def _compute_score(
    claims: Sequence[Mapping[str, Any]], allocations: Sequence[Mapping[str, Any]]
) -> int:
    """Upstream ``computeScore``: prefer nodes where earlier ``firstAvailable`` subrequests fit."""
    score = 0
    k = 0
    for claim in claims:
        alloc = _allocation(claim)
        if alloc is None:
            if k >= len(allocations):
                return 0
            alloc = allocations[k]
            k += 1
        used = {
            str(r.get("request", ""))
            for r in (alloc.get("devices") or {}).get("results") or ()
            if str(r.get("request", "")).count("/") == 1
        }
        for req in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or ():
            if req.get("exactly") is not None:
                continue
            for i, sub in enumerate(req.get("firstAvailable") or ()):
                if f"{req.get('name', '')}/{sub.get('name', '')}" in used:
                    score += FIRST_AVAILABLE_MAX_SIZE - i
    return score


PLUGIN = DynamicResources


def new(args: Mapping[str, Any], handle: Handle) -> DynamicResources:
    return DynamicResources(args, handle)
