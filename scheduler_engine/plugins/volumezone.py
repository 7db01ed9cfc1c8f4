"""VolumeZone: PreFilter and Filter (upstream ``plugins/volumezone``).

PreFilter collects the zone and region labels (GA and beta keys; a value may
list several zones joined by ``__``) of the PVs bound to the pod's
``persistentVolumeClaim`` volumes.  Unbound claims of a WaitForFirstConsumer
class are left to VolumeBinding.  A missing claim, StorageClass or PV rejects
the pod with the lister's NotFound message (UnschedulableAndUnresolvable):
this is where a claim bound to a missing PV gets ``persistentvolume "NAME"
not found``.  Skip when no bound PV carries such labels.

Filter: a node without any zone/region label passes (single-zone clusters);
otherwise every collected label must be on the node (a beta key on the PV
may match the GA key on the node) with one of the PV's values, or the node
is rejected with ``node(s) had no available volume zone``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..framework.cycle_state import CycleState, StateData
from ..framework.interfaces import PreFilterResult
from ..framework.node_info import NodeInfo
from ..framework.signers import SignedByVolumes
from ..framework.status import Code, Status
from ..objects import Pod
from ..storage import VolumeInfo, pod_volumes, storage_for
from .helper import HandlePlugin
from .volumerestrictions import not_found

__all__ = ["ERR_REASON_CONFLICT", "NAME", "PLUGIN", "VolumeZone", "new", "pv_topologies"]

NAME = "VolumeZone"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON_CONFLICT = "node(s) had no available volume zone"

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
GA_ZONE = "topology.kubernetes.io/zone"
GA_REGION = "topology.kubernetes.io/region"
# upstream's order
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION)
_TO_GA = {BETA_ZONE: GA_ZONE, BETA_REGION: GA_REGION}


def label_zones_to_set(value: str) -> frozenset[str] | None:
    """``LabelZonesToSet``: ``a__b`` → {a, b}; None when any part is empty."""
    out = set()
    for part in value.split("__"):
        p = part.strip()
        if not p:
            return None
        out.add(p)
    return frozenset(out)


def pv_topologies(pv: VolumeInfo) -> list[tuple[str, frozenset[str]]]:
    out = []
    for key in TOPOLOGY_LABELS:
        if key in pv.labels:
            zones = label_zones_to_set(pv.labels[key])
            if zones is not None:  # a malformed label is ignored
                out.append((key, zones))
    return out


class _State(StateData):
    __slots__ = ("topologies",)

    def __init__(self, topologies: list[tuple[str, frozenset[str]]]) -> None:
        self.topologies = topologies


class VolumeZone(SignedByVolumes, HandlePlugin):
    NAME = NAME
    # the node's labels and the pod's volumes decide, not the node's pods
    # (refilter_with_nominated_pods)
    filter_reads_no_pods = True

    def _pv_topologies(self, pod: Pod) -> tuple[list[tuple[str, frozenset[str]]], Status | None]:
        out: list[tuple[str, frozenset[str]]] = []
        claims = [v for v in pod_volumes(pod) if v.kind == "pvc"]
        if not claims:
            return out, None
        idx = storage_for(self.handle)
        for v in claims:
            if not v.claim_name:
                return out, Status.unresolvable("PersistentVolumeClaim had no name")
            pvc = idx.pvc(pod.namespace, v.claim_name)
            if pvc is None:
                return out, Status.unresolvable(not_found("persistentvolumeclaim", v.claim_name))
            if not pvc.volume_name:
                sc_name = pvc.storage_class
                if not sc_name:
                    return out, Status.unresolvable(
                        "PersistentVolumeClaim had no pv name and storageClass name"
                    )
                sc = idx.storage_class(sc_name)
                if sc is None:
                    return out, Status.unresolvable(
                        not_found("storageclass.storage.k8s.io", sc_name)
                    )
                if sc.wait_for_first_consumer:
                    continue
                return out, Status.unresolvable("PersistentVolume had no name")
            pv = idx.pv(pvc.volume_name)
            if pv is None:
                return out, Status.unresolvable(not_found("persistentvolume", pvc.volume_name))
            out.extend(pv_topologies(pv))
        return out, None

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        topologies, status = self._pv_topologies(pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _State(topologies))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod_volumes(pod):
            return None
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            topologies, status = self._pv_topologies(pod)
            if status is not None:
                return status
        else:
            topologies = s.topologies
        labels = node_info.node.labels
        for key in TOPOLOGY_LABELS:
            if key in labels:
                break
        else:
            return None
        for key, values in topologies:
            v = labels.get(key)
            if v is None:
                v = labels.get(_TO_GA.get(key, key))
            if v is None or v not in values:
                return Status.unresolvable(ERR_REASON_CONFLICT)
        return None


PLUGIN = VolumeZone
new = VolumeZone.new
