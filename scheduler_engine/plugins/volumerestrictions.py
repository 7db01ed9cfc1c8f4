"""VolumeRestrictions: PreFilter (with AddPod/RemovePod) and Filter (upstream ``plugins/volumerestrictions``).

PreFilter looks up the pod's PVCs (a missing claim rejects the pod,
UnschedulableAndUnresolvable, with the lister's ``persistentvolumeclaim
"NAME" not found``) and counts its ReadWriteOncePod claims that some placed
pod already uses.  Filter rejects (Unschedulable, so preemption may help) a
node when:

* an in-tree GCE PD, AWS EBS, iSCSI or RBD volume of the pod is the same disk
  as one a pod on the node mounts, unless both are read-only (EBS: always);
* any ReadWriteOncePod claim of the pod is in use anywhere.  The count is
  cluster-wide; AddPod/RemovePod adjust it so that preemption can free it.

Skip when the pod has none of those volumes and no conflicting RWOP claim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..framework.cycle_state import CycleState, StateData
from ..framework.interfaces import PreFilterResult
from ..framework.node_info import NodeInfo
from ..framework.signers import SignedByVolumes
from ..framework.status import Code, Status
from ..objects import Pod
from ..storage import READ_WRITE_ONCE_POD, PodVolume, pod_volumes, storage_for
from .helper import HandlePlugin, UpdatedWithPods

__all__ = [
    "ERR_REASON_DISK_CONFLICT",
    "ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT",
    "NAME",
    "PLUGIN",
    "VolumeRestrictions",
    "is_volume_conflict",
    "new",
]

NAME = "VolumeRestrictions"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode "
    "already in-use by another pod"
)

_RESTRICTED_KINDS = frozenset({"gcePersistentDisk", "awsElasticBlockStore", "rbd", "iscsi"})


def not_found(resource: str, name: str) -> str:
    """apimachinery's NotFound message as a lister words it."""
    return f'{resource} "{name}" not found'


def _ro(src: Mapping[str, Any]) -> bool:
    return bool(src.get("readOnly"))


def is_volume_conflict(vol: PodVolume, existing: Pod) -> bool:
    """Whether ``vol`` is the same in-tree disk as one of ``existing``'s volumes."""
    kind, src = vol.kind, vol.src
    for ev in pod_volumes(existing):
        if ev.kind != kind:
            continue
        esrc = ev.src
        if kind == "gcePersistentDisk":
            if src.get("pdName") == esrc.get("pdName") and not (_ro(src) and _ro(esrc)):
                return True
        elif kind == "awsElasticBlockStore":
            if src.get("volumeID") == esrc.get("volumeID"):
                return True
        elif kind == "iscsi":
            if src.get("iqn") == esrc.get("iqn") and not (_ro(src) and _ro(esrc)):
                return True
        elif kind == "rbd":
            mons = set(src.get("monitors") or [])
            emons = esrc.get("monitors") or []
            if (
                any(m in mons for m in emons)
                and (src.get("pool") or "rbd") == (esrc.get("pool") or "rbd")
                and src.get("image") == esrc.get("image")
                and not (_ro(src) and _ro(esrc))
            ):
                return True
    return False


class _PreFilterState(StateData):
    __slots__ = ("conflicting", "rwop_claims")

    def __init__(self, rwop_claims: frozenset[str], conflicting: int) -> None:
        # names (in the pod's namespace) of the pod's ReadWriteOncePod claims
        self.rwop_claims = rwop_claims
        # how many of them placed pods use
        self.conflicting = conflicting

    def clone(self) -> _PreFilterState:
        return _PreFilterState(self.rwop_claims, self.conflicting)

    def update_with_pod(self, pod: Pod, sign: int) -> None:
        n = 0
        for v in pod_volumes(pod):
            if v.kind == "pvc" and v.claim_name in self.rwop_claims:
                n += 1
        self.conflicting += sign * n


class VolumeRestrictions(UpdatedWithPods, SignedByVolumes, HandlePlugin):
    NAME = NAME
    PRE_FILTER_STATE = PRE_FILTER_STATE_KEY

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        vols = pod_volumes(pod)
        needs_check = any(v.kind in _RESTRICTED_KINDS for v in vols)
        claims = [v for v in vols if v.kind == "pvc"]
        if not claims and not needs_check:
            return None, Status(Code.SKIP)
        rwop: set[str] = set()
        if claims:
            idx = storage_for(self.handle)
            for v in claims:
                pvc = idx.pvc(pod.namespace, v.claim_name)
                if pvc is None:
                    return None, Status.unresolvable(
                        not_found("persistentvolumeclaim", v.claim_name)
                    )
                if READ_WRITE_ONCE_POD in pvc.access_modes:
                    rwop.add(pvc.name)
        conflicting = 0
        if rwop:
            snap = self.handle.snapshot()
            for name in rwop:
                key = f"{pod.namespace}/{name}"
                for ni in snap.node_info_list:
                    if key in ni.pvc_ref_counts:
                        conflicting += 1
                        break
        if not needs_check and conflicting == 0:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(frozenset(rwop), conflicting))
        return None, None

    def _missing_pre_filter_state(self) -> Status:
        return Status(Code.ERROR, f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')

    def _update_with_pod(
        self, s: _PreFilterState, pod_to_schedule: Pod, pod: Pod, node_info: NodeInfo, delta: int
    ) -> None:
        s.update_with_pod(pod, delta)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        for v in pod_volumes(pod):
            if v.kind not in _RESTRICTED_KINDS:
                continue
            for existing in node_info.pods:
                if is_volume_conflict(v, existing):
                    return Status.unschedulable(ERR_REASON_DISK_CONFLICT)
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return Status(Code.ERROR, f'cannot read "{PRE_FILTER_STATE_KEY}" from cycleState')
        if s.conflicting > 0:
            return Status.unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
        return None


PLUGIN = VolumeRestrictions
new = VolumeRestrictions.new
