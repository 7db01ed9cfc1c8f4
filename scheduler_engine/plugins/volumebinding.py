"""VolumeBinding: PreFilter, Filter, PreScore, Score, Reserve/Unreserve, PreBind (upstream ``plugins/volumebinding``).

PreFilter (Skip for a pod without ``persistentVolumeClaim`` or generic
``ephemeral`` volumes) rejects the pod, UnschedulableAndUnresolvable, when a
claim is missing (``persistentvolumeclaim "NAME" not found``), lost, being
deleted, not owned by the pod (ephemeral), or unbound with Immediate binding
(``pod has unbound immediate PersistentVolumeClaims``).  It sorts the claims
into bound ones and unbound WaitForFirstConsumer ones, with the candidate PVs
of their classes.

Filter, per node, UnschedulableAndUnresolvable with upstream's reasons in
upstream's order:

* a bound claim's PV does not accept the node →
  ``node(s) didn't match PersistentVolume's node affinity``;
* an unbound claim finds no available PV (smallest fitting one: class, size,
  access modes, volume mode, selector, node affinity) and cannot be
  provisioned (no provisioner, StorageClass ``allowedTopologies`` exclude the
  node, or a claim's ``selected-node`` is another node) →
  ``node(s) didn't find available persistent volumes to bind``;
* a CSI driver with ``storageCapacity`` has no CSIStorageCapacity accessible
  from the node large enough → ``node(s) did not have enough free storage``;
* a bound claim's PV does not exist →
  ``node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)``
  (VolumeZone's PreFilter usually rejects such a pod first).

Reserve assumes the chosen bindings (the next pod sees the PVs as taken);
Unreserve reverts them; PreBind makes them real, as the PV controller and an
external provisioner would (see :meth:`StorageIndex.commit`).

Score: only with the StorageCapacityScoring gate (alpha, off in v1.36): the
broken-line ``shape`` over the requested/capacity utilisation of static
bindings per class.  With the gate off PreScore returns Skip.

Not modelled: translation of in-tree PVs to CSI before the node-affinity
check (PVs of migrated plugins are checked by their own node affinity).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..config.defaults import FEATURE_GATES
from ..framework.cycle_state import CycleState, StateData
from ..framework.interfaces import BasePlugin, Handle, PreFilterResult
from ..framework.node_info import NodeInfo
from ..framework.signers import SignedByVolumes
from ..framework.status import Code, Status
from ..gocompat import go_round
from ..gosort import go_sort_by_key
from ..objects import Node, Pod
from ..storage import (
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    ClaimInfo,
    StorageIndex,
    VolumeInfo,
    pod_volumes,
    storage_for,
)
from .noderesources.resource_allocation import (
    MAX_CUSTOM_PRIORITY_SCORE,
    MAX_UTILIZATION,
    broken_linear_function,
    scaled_shape,
)
from .volumerestrictions import not_found

__all__ = [
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "ERR_REASON_UNBOUND_IMMEDIATE",
    "NAME",
    "PLUGIN",
    "PodVolumes",
    "VolumeBinding",
    "find_matching_volume",
    "new",
]

NAME = "VolumeBinding"
STATE_KEY = NAME
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = (
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
)
ERR_REASON_UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"


class PodVolumes:
    """What Filter found for one node: PVs to bind and claims to provision."""

    __slots__ = ("dynamic_provisions", "static_bindings")

    def __init__(self) -> None:
        self.static_bindings: list[tuple[VolumeInfo, ClaimInfo]] = []
        # (claim, the CSIStorageCapacity limit that admitted it or None)
        self.dynamic_provisions: list[tuple[ClaimInfo, Fraction | None]] = []


class _State(StateData):
    """Shared by clones, as upstream's (its Clone returns itself)."""

    __slots__ = (
        "all_bound",
        "bound_claims",
        "has_static_bindings",
        "match_order",
        "pod_volumes_by_node",
        "pvs_by_class",
        "unbound_delay",
    )

    def __init__(
        self,
        bound_claims: list[ClaimInfo],
        unbound_delay: list[ClaimInfo],
        pvs_by_class: dict[str, list[VolumeInfo]],
    ) -> None:
        self.bound_claims = bound_claims
        self.unbound_delay = unbound_delay
        # the claims no node is selected for, as upstream's findMatchingVolumes
        # orders them (sort.Sort by size: equal sizes may change places); the
        # same on every node, so sorted once
        self.match_order = _match_order(unbound_delay) if unbound_delay else unbound_delay
        self.pvs_by_class = pvs_by_class
        self.pod_volumes_by_node: dict[str, PodVolumes] = {}
        self.has_static_bindings = False
        self.all_bound = False

    def clone(self) -> _State:
        return self


def _match_order(claims: list[ClaimInfo]) -> list[ClaimInfo]:
    out = [c for c in claims if ANN_SELECTED_NODE not in c.annotations]
    go_sort_by_key(out, _request)
    return out


def _request(claim: ClaimInfo) -> Fraction | int:
    """``byPVCSize``'s key: a claim without a storage request asks for 0."""
    return claim.request or 0


def find_matching_volume(
    claim: ClaimInfo,
    volumes: Sequence[VolumeInfo],
    node: Node | None,
    excluded: Mapping[str, VolumeInfo],
    delay_binding: bool,
) -> VolumeInfo | None:
    """``FindMatchingVolume`` (VolumeAttributesClass GA: classes must be equal)."""
    smallest: VolumeInfo | None = None
    requested = claim.request or Fraction(0)
    requested_class = claim.storage_class
    labels = node.labels if node is not None else None
    for pv in volumes:
        if pv.name in excluded:
            continue
        bound_to_claim = pv.bound_to(claim)
        if pv.claim_ref is not None and not bound_to_claim:
            continue
        if pv.capacity < requested:
            continue
        if claim.volume_mode != pv.volume_mode:
            continue
        if claim.vac != pv.vac:
            continue
        if pv.deleting:
            continue
        affinity_ok = labels is None or pv.node_affinity_matches(labels)
        if bound_to_claim:
            # a PV pre-bound to this claim is the only answer
            return pv if affinity_ok else None
        if node is None and delay_binding:
            continue
        if pv.phase != "Available":
            continue
        if claim.selector is not None and not claim.selector.matches(pv.labels):
            continue
        if pv.storage_class != requested_class:
            continue
        if not affinity_ok:
            continue
        if node is not None and not all(m in pv.access_modes for m in claim.access_modes):
            continue
        if smallest is None or smallest.capacity > pv.capacity:
            smallest = pv
    return smallest


def _state_data(state: CycleState) -> _State | Status:
    """What PreFilter stored (upstream's ``getStateData``), or the Error of a failed read."""
    s = state.get(STATE_KEY)
    if s is None:
        return Status(Code.ERROR, "not found")
    return s


class VolumeBinding(SignedByVolumes, BasePlugin):
    NAME = NAME

    def __init__(self, args: Mapping[str, Any], handle: Handle) -> None:
        self.handle = handle
        self._scorer_shape: tuple[tuple[int, int], ...] | None = None
        if FEATURE_GATES.get("StorageCapacityScoring", False):
            shape = args.get("shape") or [
                {"utilization": 0, "score": 0},
                {"utilization": 100, "score": MAX_CUSTOM_PRIORITY_SCORE},
            ]
            self._scorer_shape = scaled_shape(shape)

    # -- PreFilter ---------------------------------------------------------------
    def _check_claims(self, idx: StorageIndex, pod: Pod) -> tuple[bool, str | None]:
        """``podHasPVCs``: whether the pod has claims, and the first problem with one."""
        has = False
        for v in pod_volumes(pod):
            if v.kind not in ("pvc", "ephemeral"):
                continue
            has = True
            pvc = idx.pvc(pod.namespace, v.claim_name)
            if pvc is None:
                if v.ephemeral:
                    return has, (
                        "waiting for ephemeral volume controller to create the "
                        f'persistentvolumeclaim "{v.claim_name}"'
                    )
                return has, not_found("persistentvolumeclaim", v.claim_name)
            if pvc.phase == "Lost":
                return has, (
                    f'persistentvolumeclaim "{pvc.name}" bound to non-existent '
                    f'persistentvolume "{pvc.volume_name}"'
                )
            if pvc.deleting:
                return has, f'persistentvolumeclaim "{pvc.name}" is being deleted'
            if v.ephemeral and pvc.controller_uid != pod.uid:
                return has, (
                    f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
                    f"{pod.namespace}/{pod.name} (pod is not owner)"
                )
        return has, None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        vols = pod_volumes(pod)
        if not any(v.kind in ("pvc", "ephemeral") for v in vols):
            state.write(STATE_KEY, _State([], [], {}))
            return None, Status(Code.SKIP)
        idx = storage_for(self.handle)
        _, problem = self._check_claims(idx, pod)
        if problem is not None:
            return None, Status.unresolvable(problem)
        bound: list[ClaimInfo] = []
        delay: list[ClaimInfo] = []
        immediate = False
        for v in vols:
            if v.kind not in ("pvc", "ephemeral"):
                continue
            pvc = idx.cached_pvc(f"{pod.namespace}/{v.claim_name}")
            if pvc is None:  # pragma: no cover - checked above
                return None, Status(
                    Code.ERROR, f'error getting PVC "{pod.namespace}/{v.claim_name}"'
                )
            if pvc.fully_bound:
                bound.append(pvc)
                continue
            sc = idx.storage_class(pvc.storage_class) if pvc.storage_class else None
            if sc is not None and sc.wait_for_first_consumer and not pvc.volume_name:
                delay.append(pvc)
            else:
                immediate = True
        if immediate:
            return None, Status.unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)
        pvs_by_class = {c.storage_class: idx.cached_pvs_of_class(c.storage_class) for c in delay}
        state.write(STATE_KEY, _State(bound, delay, pvs_by_class))
        return None, None

    # -- Filter ------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = _state_data(state)
        if isinstance(s, Status):
            return s
        node = node_info.node
        idx = storage_for(self.handle)
        try:
            pod_vols, reasons = self._find_pod_volumes(idx, s, node)
        except _BinderError as exc:
            return Status(Code.ERROR, str(exc))
        if reasons:
            return Status.unresolvable(*reasons)
        s.pod_volumes_by_node[node.name] = pod_vols
        if pod_vols.static_bindings:
            s.has_static_bindings = True
        return None

    def _find_pod_volumes(
        self, idx: StorageIndex, s: _State, node: Node
    ) -> tuple[PodVolumes, list[str]]:
        pv_out = PodVolumes()
        bound_ok = True
        unbound_ok = True
        storage_ok = True
        pvs_found = True
        labels = node.labels
        done = False
        for pvc in s.bound_claims:
            pv = idx.cached_pv(pvc.volume_name)
            if pv is None:
                pvs_found = False
                break
            if not pv.node_affinity_matches(labels):
                bound_ok = False
                break
        if s.unbound_delay:
            to_provision: list[ClaimInfo] = []
            for pvc in s.unbound_delay:
                selected = pvc.annotations.get(ANN_SELECTED_NODE)
                if selected is not None:
                    if selected != node.name:
                        unbound_ok = False
                        done = True
                        break
                    to_provision.append(pvc)
            if not done and s.match_order:
                chosen: dict[str, VolumeInfo] = {}
                # smallest requests first, so each gets the smallest fitting PV
                for pvc in s.match_order:
                    pv = find_matching_volume(
                        pvc, s.pvs_by_class.get(pvc.storage_class, ()), node, chosen, True
                    )
                    if pv is None:
                        to_provision.append(pvc)
                        unbound_ok = False
                        continue
                    chosen[pv.name] = pv
                    pv_out.static_bindings.append((pv, pvc))
            if not done and to_provision:
                unbound_ok, storage_ok, provisions = self._check_provisions(idx, to_provision, node)
                pv_out.dynamic_provisions = provisions
        reasons = []
        if not bound_ok:
            reasons.append(ERR_REASON_NODE_CONFLICT)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not storage_ok:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return pv_out, reasons

    def _check_provisions(
        self, idx: StorageIndex, claims: list[ClaimInfo], node: Node
    ) -> tuple[bool, bool, list[tuple[ClaimInfo, Fraction | None]]]:
        out: list[tuple[ClaimInfo, Fraction | None]] = []
        for pvc in claims:
            if not pvc.storage_class:
                raise _BinderError(f'no class for claim "{pvc.key}"')
            sc = idx.storage_class(pvc.storage_class)
            if sc is None:
                raise _BinderError(f'failed to find storage class "{pvc.storage_class}"')
            prov = sc.provisioner
            if not prov or prov == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not sc.topology_matches(node.labels):
                return False, True, []
            ok, capacity = self._has_enough_capacity(idx, prov, pvc, sc.name, node)
            if not ok:
                return True, False, []
            out.append((pvc, capacity))
        return True, True, out

    @staticmethod
    def _has_enough_capacity(
        idx: StorageIndex, provisioner: str, pvc: ClaimInfo, class_name: str, node: Node
    ) -> tuple[bool, Fraction | None]:
        if pvc.request is None:
            return True, None
        # only CSI drivers that opt into capacity tracking are checked
        if not idx.csidrivers.get(provisioner, False):
            return True, None
        size = pvc.request_value
        for cap in idx.capacities:
            if (
                cap.storage_class == class_name
                and cap.limit is not None
                and -((-cap.limit.numerator) // cap.limit.denominator) >= size
                and cap.node_topology is not None
                and cap.node_topology.matches(node.labels)
            ):
                return True, cap.limit
        return False, None

    # -- Score -------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        if self._scorer_shape is None:
            return Status(Code.SKIP)
        s = _state_data(state)
        if isinstance(s, Status):
            return s
        # with the gate on, dynamic provisions are scored too
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        shape = self._scorer_shape
        if shape is None:
            return 0
        s = _state_data(state)
        if isinstance(s, Status):
            return s
        pv = s.pod_volumes_by_node.get(node_info.name)
        if pv is None:
            return 0
        classes: dict[str, list[int]] = {}
        if pv.static_bindings:
            for vol, claim in pv.static_bindings:
                r = classes.setdefault(vol.storage_class, [0, 0])
                r[0] += claim.request_value
                r[1] += -((-vol.capacity.numerator) // vol.capacity.denominator)
        else:
            for claim, capacity in pv.dynamic_provisions:
                if capacity is None:
                    continue
                r = classes.setdefault(claim.storage_class, [0, 0])
                r[1] = -((-capacity.numerator) // capacity.denominator)
                r[0] += claim.request_value
        if not classes:
            return 0
        total = 0
        for requested, capacity in classes.values():
            if capacity == 0 or requested > capacity:
                total += broken_linear_function(shape, MAX_UTILIZATION)
            else:
                total += broken_linear_function(shape, requested * MAX_UTILIZATION // capacity)
        return go_round(float(total) / float(len(classes)))

    # -- Reserve / Unreserve / PreBind --------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = _state_data(state)
        if isinstance(s, Status):
            return s
        pv = s.pod_volumes_by_node.get(node_name)
        if pv is None:
            s.all_bound = True
            return None
        idx = storage_for(self.handle)
        if self._all_bound(idx, pod):
            s.all_bound = True
            return None
        s.all_bound = False
        assumed: list[tuple[VolumeInfo, ClaimInfo]] = []
        for vol, claim in pv.static_bindings:
            new_pv = vol.copy()
            if not vol.bound_to(claim):
                new_pv.annotations.setdefault(ANN_BOUND_BY_CONTROLLER, "yes")
            new_pv.claim_ref = (claim.namespace, claim.name, claim.uid)
            idx.assume_pv(new_pv)
            assumed.append((new_pv, claim))
        provisions: list[tuple[ClaimInfo, Fraction | None]] = []
        for claim, _ in pv.dynamic_provisions:
            c = claim.copy()
            c.annotations[ANN_SELECTED_NODE] = node_name
            idx.assume_pvc(c)
            provisions.append((c, None))
        pv.static_bindings = assumed
        pv.dynamic_provisions = provisions
        return None

    @staticmethod
    def _all_bound(idx: StorageIndex, pod: Pod) -> bool:
        for v in pod_volumes(pod):
            if v.kind not in ("pvc", "ephemeral"):
                continue
            pvc = idx.cached_pvc(f"{pod.namespace}/{v.claim_name}")
            if pvc is None or not pvc.fully_bound:
                return False
        return True

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        s: _State | None = state.get(STATE_KEY)
        if s is None:
            return
        pv = s.pod_volumes_by_node.get(node_name)
        if pv is None:
            return
        idx = storage_for(self.handle)
        for vol, _ in pv.static_bindings:
            if idx.assumed_pvs.get(vol.name) is vol:
                idx.restore_pv(vol.name)
        for claim, _ in pv.dynamic_provisions:
            if idx.assumed_pvcs.get(claim.key) is claim:
                idx.restore_pvc(claim.key)

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        s = _state_data(state)
        if isinstance(s, Status):
            return s
        if s.all_bound:
            return None
        pv = s.pod_volumes_by_node.get(node_name)
        if pv is None:
            return Status(Code.ERROR, f'no pod volume found for node "{node_name}"')
        ni = self.handle.snapshot().get(node_name)
        labels = ni.node.labels if ni is not None else {}
        storage_for(self.handle).commit(
            pv.static_bindings, [c for c, _ in pv.dynamic_provisions], labels, node_name
        )
        return None


class _BinderError(Exception):
    """An error of the binder (upstream returns it as an Error status)."""


PLUGIN = VolumeBinding


def new(args: Mapping[str, Any], handle: Handle) -> VolumeBinding:
    return VolumeBinding(args, handle)
