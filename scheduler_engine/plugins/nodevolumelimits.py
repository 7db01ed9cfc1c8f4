"""NodeVolumeLimits: PreFilter and Filter (upstream ``plugins/nodevolumelimits``, ``CSILimits``).

Counts the distinct CSI volumes (driver + volume handle) the node would have
attached per driver — those of the pods on the node, plus VolumeAttachments
to the node of CSI PVs no pod there accounts for — and rejects the node
(Unschedulable, so preemption may free slots) when the pod's new volumes of
some driver would exceed that driver's ``CSINode`` ``allocatable.count``:
``node(s) exceed max volume count``.  A node without a CSINode or limits
passes.

A volume counts through its PVC (``persistentVolumeClaim`` or generic
``ephemeral``): the bound PV's CSI driver and handle; an unbound claim counts
for its StorageClass's provisioner with a handle unique to the claim.  In-tree
AWS EBS, GCE PD, Azure Disk, Cinder and Portworx volumes (PVs, inline
volumes, provisioners) count for their CSI driver on nodes that have a
CSINode, as CSI migration translates them; handles are translated only as
far as :func:`scheduler_engine.storage.intree_handle` goes.  Inline CSI
(ephemeral) volumes are not counted, as upstream.  The alpha
VolumeLimitScaling gate (driver-not-installed check) is off in v1.36.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..framework.cycle_state import CycleState
from ..framework.interfaces import BasePlugin, Handle, PreFilterResult
from ..framework.node_info import NodeInfo
from ..framework.signers import SignedByVolumes
from ..framework.status import Code, Status
from ..objects import Pod
from ..storage import (
    INTREE_PLUGIN_DRIVERS,
    INTREE_SOURCES,
    MIGRATION_ON_PLUGINS,
    ClaimInfo,
    CSINodeInfo,
    StorageIndex,
    intree_handle,
    pod_volumes,
    storage_for,
)
from .volumerestrictions import not_found

__all__ = ["ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED", "NAME", "PLUGIN", "NodeVolumeLimits", "new"]

NAME = "NodeVolumeLimits"
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = "node(s) exceed max volume count"
# upstream draws 32 random characters once per plugin; any fixed prefix
# keeps handles of unbound claims distinct from real ones
_VOLUME_ID_PREFIX = "schedlab-unbound-claim"


class _LookupError(Exception):
    def __init__(self, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found


def _migration_on(csinode: CSINodeInfo | None, plugin: str) -> bool:
    return csinode is not None and plugin in MIGRATION_ON_PLUGINS


class NodeVolumeLimits(SignedByVolumes, BasePlugin):
    NAME = NAME

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        # node name → (node info, its generation, index version, attached volumes)
        self._attached: dict[str, tuple[NodeInfo, int, int, dict[str, str]]] = {}

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        for v in pod_volumes(pod):
            if v.kind in ("pvc", "ephemeral") or v.kind in INTREE_SOURCES:
                return None, None
        return None, Status(Code.SKIP)

    # -- volumes of a pod --------------------------------------------------------
    def _driver_info_from_class(
        self, idx: StorageIndex, csinode: CSINodeInfo | None, pvc: ClaimInfo
    ) -> tuple[str, str]:
        if not pvc.storage_class:
            return "", ""
        sc = idx.storage_class(pvc.storage_class)
        if sc is None:
            return "", ""
        handle = f"{_VOLUME_ID_PREFIX}-{pvc.namespace}/{pvc.name}"
        prov = sc.provisioner
        if prov in INTREE_PLUGIN_DRIVERS:
            if not _migration_on(csinode, prov):
                return "", ""
            return INTREE_PLUGIN_DRIVERS[prov], handle
        return prov, handle

    def _driver_info(
        self, idx: StorageIndex, csinode: CSINodeInfo | None, pvc: ClaimInfo
    ) -> tuple[str, str]:
        if not pvc.volume_name:
            return self._driver_info_from_class(idx, csinode, pvc)
        pv = idx.pv(pvc.volume_name)
        if pv is None:
            return self._driver_info_from_class(idx, csinode, pvc)
        if pv.csi_driver:
            return pv.csi_driver, pv.csi_handle
        if pv.intree is None:
            return "", ""
        plugin, driver, handle = pv.intree
        if not _migration_on(csinode, plugin):
            return "", ""
        return driver, handle

    def _attachable(
        self,
        idx: StorageIndex,
        pod: Pod,
        csinode: CSINodeInfo | None,
        new_pod: bool,
        out: dict[str, str],
    ) -> None:
        for v in pod_volumes(pod):
            if v.kind in ("pvc", "ephemeral"):
                if not v.claim_name:
                    raise _LookupError("PersistentVolumeClaim had no name")
                pvc = idx.pvc(pod.namespace, v.claim_name)
                if pvc is None:
                    if new_pod:
                        raise _LookupError(
                            f"looking up PVC {pod.namespace}/{v.claim_name}: "
                            + not_found("persistentvolumeclaim", v.claim_name),
                            not_found=True,
                        )
                    continue
                if v.ephemeral and pvc.controller_uid != pod.uid:
                    raise _LookupError(
                        f"PVC {pvc.namespace}/{pvc.name} was not created for pod "
                        f"{pod.namespace}/{pod.name} (pod is not owner)"
                    )
                driver, handle = self._driver_info(idx, csinode, pvc)
                if driver and handle:
                    out[f"{driver}/{handle}"] = driver
            elif v.kind in INTREE_SOURCES:
                plugin, driver, _ = INTREE_SOURCES[v.kind]
                if not _migration_on(csinode, plugin):
                    continue
                out[f"{driver}/{intree_handle(v.kind, v.src, None)}"] = driver

    def _attached_on(
        self, idx: StorageIndex, node_info: NodeInfo, csinode: CSINodeInfo | None
    ) -> dict[str, str]:
        name = node_info.name
        hit = self._attached.get(name)
        if (
            hit is not None
            and hit[0] is node_info
            and hit[1] == node_info.generation
            and hit[2] == idx.version
        ):
            return hit[3]
        attached: dict[str, str] = {}
        for existing in node_info.pods:
            if pod_volumes(existing):
                self._attachable(idx, existing, csinode, False, attached)
        self._attached[name] = (node_info, node_info.generation, idx.version, attached)
        return attached

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        if not pod_volumes(pod):
            return None
        idx = storage_for(self.handle)
        csinode = idx.csinodes.get(node_info.name)
        new_volumes: dict[str, str] = {}
        try:
            self._attachable(idx, pod, csinode, True, new_volumes)
        except _LookupError as exc:
            if exc.not_found:
                return Status.unresolvable(str(exc))
            return Status(Code.ERROR, str(exc))
        if not new_volumes:
            return None
        limits = csinode.limits if csinode is not None else {}
        if not limits:
            return None
        try:
            attached = self._attached_on(idx, node_info, csinode)
        except _LookupError as exc:
            return Status(Code.ERROR, str(exc))
        attached_count: dict[str, int] = {}
        for unique, driver in attached.items():
            new_volumes.pop(unique, None)
            attached_count[driver] = attached_count.get(driver, 0) + 1
        for pv_name, attacher in idx.attachments.get(node_info.name, {}).items():
            pv = idx.pv(pv_name)
            if pv is None or not pv.csi_driver:
                continue
            if f"{attacher}/{pv.csi_handle}" not in attached:
                attached_count[attacher] = attached_count.get(attacher, 0) + 1
        new_count: dict[str, int] = {}
        for driver in new_volumes.values():
            new_count[driver] = new_count.get(driver, 0) + 1
        for driver, count in new_count.items():
            limit = limits.get(driver)
            if limit is not None and attached_count.get(driver, 0) + count > limit:
                return Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
        return None


PLUGIN = NodeVolumeLimits


def new(args: Mapping[str, Any], handle: Handle) -> NodeVolumeLimits:
    return NodeVolumeLimits(handle)
