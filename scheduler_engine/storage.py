"""Storage objects of a snapshot, parsed once, and the simulated volume world.

The four volume plugins (VolumeRestrictions, NodeVolumeLimits, VolumeBinding,
VolumeZone) read ``PersistentVolume``, ``PersistentVolumeClaim``,
``StorageClass``, ``CSINode``, ``CSIDriver``, ``CSIStorageCapacity`` and
``VolumeAttachment`` objects.  :func:`storage_for` parses them from the
cluster into one :class:`StorageIndex` per simulation run, kept in the run's
``Snapshot.extensions`` (every profile of a run shares that snapshot, as
upstream's profiles share informers).

The index has two layers, as upstream's volume binder does:

* the *API view* (``pvcs``, ``pvs``): what listers see.  A simulated bind
  (:meth:`StorageIndex.commit`, called from VolumeBinding's PreBind) changes
  it the way the PV controller and an external provisioner would: the PVC
  becomes fully bound, a dynamically provisioned PV appears.
* the *assumed view* (``assumed_pvs``, ``assumed_pvcs``), VolumeBinding's
  assume cache: bindings chosen at Reserve, visible to VolumeBinding only,
  dropped at Unreserve or folded into the API view at PreBind.

Hand-written snapshots are accepted the way the API server would have
completed them: a StorageClass without ``volumeBindingMode`` is
``Immediate``; a PV without ``status.phase`` is ``Bound`` when it has a
``claimRef`` and ``Available`` otherwise; a PVC with ``spec.volumeName`` and
``status.phase: Bound`` counts as fully bound even without the
``pv.kubernetes.io/bind-completed`` annotation the PV controller sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Self

from .documents import object_ref
from .errors import InputError
from .objects import LabelSelector, NodeSelector, parse_label_selector
from .objects.selectors import (
    NodeSelectorTerm,
    SelectorError,
    parse_node_selector,
    selector_from_set,
)
from .quantity import QuantityError, parse_quantity

if TYPE_CHECKING:  # pragma: no cover
    from .cluster import ClusterState
    from .framework.interfaces import Handle
    from .objects import Pod

__all__ = [
    "ANN_BIND_COMPLETED",
    "ANN_MIGRATED_PLUGINS",
    "ANN_SELECTED_NODE",
    "BETA_STORAGE_CLASS_ANNOTATION",
    "NOT_SUPPORTED_PROVISIONER",
    "CSINodeInfo",
    "CapacityInfo",
    "ClaimInfo",
    "PodVolume",
    "StorageClassInfo",
    "StorageIndex",
    "VolumeInfo",
    "build_storage_index",
    "pod_volumes",
    "storage_for",
]

ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
BETA_STORAGE_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
IMMEDIATE = "Immediate"
READ_WRITE_ONCE_POD = "ReadWriteOncePod"
EXTENSION_KEY = "storage.StorageIndex"

# In-tree volume plugins that CSI migration translates (csi-translation-lib):
# pod volume / PV source field → (in-tree plugin name, CSI driver, handle field)
INTREE_SOURCES: dict[str, tuple[str, str, str]] = {
    "awsElasticBlockStore": ("kubernetes.io/aws-ebs", "ebs.csi.aws.com", "volumeID"),
    "gcePersistentDisk": ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", "pdName"),
    "azureDisk": ("kubernetes.io/azure-disk", "disk.csi.azure.com", "diskURI"),
    "cinder": ("kubernetes.io/cinder", "cinder.csi.openstack.org", "volumeID"),
    "portworxVolume": ("kubernetes.io/portworx-volume", "pxd.portworx.com", "volumeID"),
    "azureFile": ("kubernetes.io/azure-file", "file.csi.azure.com", "shareName"),
    "vsphereVolume": ("kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com", "volumePath"),
}
INTREE_PLUGIN_DRIVERS: dict[str, str] = {p: d for p, d, _ in INTREE_SOURCES.values()}
# plugins for which NodeVolumeLimits and VolumeBinding treat CSI migration as on
MIGRATION_ON_PLUGINS = frozenset(
    {
        "kubernetes.io/aws-ebs",
        "kubernetes.io/gce-pd",
        "kubernetes.io/azure-disk",
        "kubernetes.io/cinder",
        "kubernetes.io/portworx-volume",
    }
)


def _storage_quantity(
    raw: Any, field: str, obj: Mapping[str, Any], source: str | None
) -> Fraction | None:
    if raw is None:
        return None
    try:
        return parse_quantity(raw)
    except QuantityError as exc:
        raise InputError(str(exc), file=source, obj=object_ref(dict(obj)), field=field) from None


def _ceil(q: Fraction | None) -> int:
    if q is None:
        return 0
    n, d = q.numerator, q.denominator
    return -((-n) // d)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    m = obj.get("metadata")
    return m if isinstance(m, Mapping) else {}


def _spec(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    s = obj.get("spec")
    return s if isinstance(s, Mapping) else {}


def _status(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    s = obj.get("status")
    return s if isinstance(s, Mapping) else {}


def _storage_class(annotations: Mapping[str, str], spec: Mapping[str, Any]) -> str:
    """A claim's or volume's class: the beta annotation first, as upstream's
    ``GetPersistentVolumeClaimClass`` and ``GetPersistentVolumeClass`` read it."""
    if BETA_STORAGE_CLASS_ANNOTATION in annotations:
        return annotations[BETA_STORAGE_CLASS_ANNOTATION]
    return str(spec.get("storageClassName") or "")


def _strs(raw: Any) -> tuple[str, ...]:
    return tuple(str(x) for x in raw) if isinstance(raw, list) else ()


def intree_handle(kind: str, src: Mapping[str, Any], labels: Mapping[str, str] | None) -> str:
    """The CSI volume handle csi-translation-lib gives an in-tree volume (simplified).

    EBS ``aws://zone/vol-x`` becomes ``vol-x``; a GCE PD becomes
    ``projects/UNSPECIFIED/zones/ZONE/disks/NAME`` (ZONE from the PV's zone
    label, UNSPECIFIED for inline volumes); others keep their identifier.
    """
    ident = str(src.get(INTREE_SOURCES[kind][2]) or "")
    if kind == "awsElasticBlockStore" and ident.startswith("aws://"):
        return ident.rsplit("/", 1)[-1]
    if kind == "gcePersistentDisk":
        zone = "UNSPECIFIED"
        if labels:
            zone = labels.get(
                "topology.kubernetes.io/zone",
                labels.get("failure-domain.beta.kubernetes.io/zone", zone),
            )
        return f"projects/UNSPECIFIED/zones/{zone}/disks/{ident}"
    return ident


# -- parsed objects -------------------------------------------------------------


class _PersistentObject:
    """What a claim and a volume both carry, read the same way from either."""

    __slots__ = (
        "access_modes",
        "annotations",
        "deleting",
        "name",
        "raw",
        "storage_class",
        "vac",
        "volume_mode",
    )

    def __init__(self, obj: Mapping[str, Any]) -> None:
        meta, spec = _meta(obj), _spec(obj)
        self.raw = obj
        self.name = str(meta.get("name") or "")
        self.annotations: dict[str, str] = dict(meta.get("annotations") or {})
        self.deleting = meta.get("deletionTimestamp") is not None
        self.storage_class = _storage_class(self.annotations, spec)
        self.access_modes = _strs(spec.get("accessModes"))
        self.volume_mode = str(spec.get("volumeMode") or "Filesystem")
        self.vac = str(spec.get("volumeAttributesClassName") or "")

    def copy(self) -> Self:
        """A shallow copy with an annotations dict of its own, the one field binding changes in place."""
        c = object.__new__(type(self))
        for s in _PersistentObject.__slots__ + type(self).__slots__:
            setattr(c, s, getattr(self, s))
        c.annotations = dict(self.annotations)
        return c


class ClaimInfo(_PersistentObject):
    """A PersistentVolumeClaim."""

    __slots__ = (
        "bind_completed",
        "controller_uid",
        "key",
        "namespace",
        "phase",
        "request",
        "selector",
        "uid",
        "volume_name",
    )

    def __init__(self, obj: Mapping[str, Any], source: str | None = None) -> None:
        super().__init__(obj)
        meta, spec, status = _meta(obj), _spec(obj), _status(obj)
        self.namespace = str(meta.get("namespace") or "default")
        self.key = f"{self.namespace}/{self.name}"
        self.uid = str(meta.get("uid") or f"uid-{self.key}")
        self.controller_uid = ""
        for o in meta.get("ownerReferences") or []:
            if isinstance(o, Mapping) and o.get("controller"):
                self.controller_uid = str(o.get("uid") or "")
                break
        self.volume_name = str(spec.get("volumeName") or "")
        requests = (spec.get("resources") or {}).get("requests") or {}
        self.request = _storage_quantity(
            requests.get("storage"), "spec.resources.requests.storage", obj, source
        )
        sel = spec.get("selector")
        try:
            self.selector: LabelSelector | None = (
                parse_label_selector(sel, "spec.selector") if sel is not None else None
            )
        except SelectorError as exc:
            raise InputError(
                exc.message, file=source, obj=object_ref(dict(obj)), field=exc.field
            ) from None
        self.phase = str(status.get("phase") or "Pending")
        self.bind_completed = ANN_BIND_COMPLETED in self.annotations or self.phase == "Bound"

    @property
    def fully_bound(self) -> bool:
        return bool(self.volume_name) and self.bind_completed

    @property
    def request_value(self) -> int:
        return _ceil(self.request)

    def __repr__(self) -> str:
        return f"PVC({self.key} -> {self.volume_name or '-'})"


class VolumeInfo(_PersistentObject):
    """A PersistentVolume."""

    __slots__ = (
        "capacity",
        "claim_ref",
        "csi_driver",
        "csi_handle",
        "intree",
        "labels",
        "node_affinity",
        "phase",
    )

    def __init__(self, obj: Mapping[str, Any], source: str | None = None) -> None:
        super().__init__(obj)
        meta, spec, status = _meta(obj), _spec(obj), _status(obj)
        self.labels: dict[str, str] = {
            str(k): str(v) for k, v in (meta.get("labels") or {}).items()
        }
        cap = (spec.get("capacity") or {}).get("storage")
        self.capacity = _storage_quantity(cap, "spec.capacity.storage", obj, source) or Fraction(0)
        cr = spec.get("claimRef")
        self.claim_ref: tuple[str, str, str] | None = (
            (
                str(cr.get("namespace") or ""),
                str(cr.get("name") or ""),
                str(cr.get("uid") or ""),
            )
            if isinstance(cr, Mapping)
            else None
        )
        default_phase = "Bound" if self.claim_ref else "Available"
        self.phase = str(status.get("phase") or default_phase)
        self.node_affinity: NodeSelector | None = None
        na = spec.get("nodeAffinity")
        if isinstance(na, Mapping) and na.get("required") is not None:
            try:
                self.node_affinity = parse_node_selector(
                    na["required"], "spec.nodeAffinity.required"
                )
            except SelectorError as exc:
                raise InputError(
                    exc.message, file=source, obj=object_ref(dict(obj)), field=exc.field
                ) from None
        csi = spec.get("csi")
        self.csi_driver = str(csi.get("driver") or "") if isinstance(csi, Mapping) else ""
        self.csi_handle = str(csi.get("volumeHandle") or "") if isinstance(csi, Mapping) else ""
        # (in-tree plugin, its CSI driver, translated handle) for migratable sources
        self.intree: tuple[str, str, str] | None = None
        for kind, (plugin, driver, _) in INTREE_SOURCES.items():
            src = spec.get(kind)
            if isinstance(src, Mapping):
                self.intree = (plugin, driver, intree_handle(kind, src, self.labels))
                break

    def node_affinity_matches(self, labels: Mapping[str, str]) -> bool:
        """``CheckNodeAffinity``: upstream matches a node that has labels but no name."""
        if self.node_affinity is None:
            return True
        for term in self.node_affinity.terms:
            if term.expressions is not None and not term.expressions.matches(labels):
                continue
            if term.fields is not None and not all(
                (value == "") == (op == "In") for op, _, value in term.fields
            ):
                continue
            return True
        return False

    def bound_to(self, claim: ClaimInfo) -> bool:
        """``IsVolumeBoundToClaim``."""
        cr = self.claim_ref
        if cr is None or cr[0] != claim.namespace or cr[1] != claim.name:
            return False
        return not cr[2] or cr[2] == claim.uid

    def __repr__(self) -> str:
        return f"PV({self.name})"


class StorageClassInfo:
    __slots__ = ("allowed_topologies", "binding_mode", "name", "provisioner", "raw")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        self.raw = obj
        self.name = str(_meta(obj).get("name") or "")
        self.provisioner = str(obj.get("provisioner") or "")
        # the API server defaults an absent mode to Immediate
        self.binding_mode = str(obj.get("volumeBindingMode") or IMMEDIATE)
        terms = []
        for t in obj.get("allowedTopologies") or []:
            exprs = (t or {}).get("matchLabelExpressions") or []
            terms.append(
                tuple(
                    (str(e.get("key")), frozenset(_strs(e.get("values"))))
                    for e in exprs
                    if isinstance(e, Mapping)
                )
            )
        self.allowed_topologies: tuple[tuple[tuple[str, frozenset[str]], ...], ...] = tuple(terms)

    @property
    def wait_for_first_consumer(self) -> bool:
        return self.binding_mode == WAIT_FOR_FIRST_CONSUMER

    def topology_matches(self, labels: Mapping[str, str]) -> bool:
        """``MatchTopologySelectorTerms``: no terms match all; an empty term matches nothing."""
        if not self.allowed_topologies:
            return True
        for term in self.allowed_topologies:
            if not term:
                continue
            if all(labels.get(k) in vals for k, vals in term):
                return True
        return False


class CSINodeInfo:
    __slots__ = ("drivers", "limits", "migrated_plugins", "name", "topology_keys")

    def __init__(self, obj: Mapping[str, Any]) -> None:
        meta = _meta(obj)
        self.name = str(meta.get("name") or "")
        ann = (meta.get("annotations") or {}).get(ANN_MIGRATED_PLUGINS) or ""
        self.migrated_plugins = frozenset(p for p in str(ann).split(",") if p)
        self.drivers: set[str] = set()
        self.limits: dict[str, int] = {}
        self.topology_keys: dict[str, tuple[str, ...]] = {}
        for d in _spec(obj).get("drivers") or []:
            if not isinstance(d, Mapping):
                continue
            name = str(d.get("name") or "")
            self.drivers.add(name)
            self.topology_keys[name] = _strs(d.get("topologyKeys"))
            alloc = d.get("allocatable")
            if isinstance(alloc, Mapping) and alloc.get("count") is not None:
                self.limits[name] = int(alloc["count"])


class CapacityInfo:
    """A CSIStorageCapacity."""

    __slots__ = ("limit", "node_topology", "storage_class")

    def __init__(self, obj: Mapping[str, Any], source: str | None = None) -> None:
        self.storage_class = str(obj.get("storageClassName") or "")
        mvs = _storage_quantity(obj.get("maximumVolumeSize"), "maximumVolumeSize", obj, source)
        cap = _storage_quantity(obj.get("capacity"), "capacity", obj, source)
        # maximumVolumeSize is more precise when present
        self.limit = mvs if mvs is not None else cap
        nt = obj.get("nodeTopology")
        try:
            self.node_topology = (
                parse_label_selector(nt, "nodeTopology") if nt is not None else None
            )
        except SelectorError:
            self.node_topology = None


class PodVolume:
    """One volume of a pod, classified once."""

    __slots__ = ("claim_name", "ephemeral", "kind", "name", "src")

    def __init__(self, name: str, kind: str, claim_name: str, src: Mapping[str, Any]) -> None:
        self.name = name
        # "pvc", "ephemeral" (generic ephemeral, a PVC named POD-VOLUME), or a
        # source field such as "csi", "gcePersistentDisk", "emptyDir"
        self.kind = kind
        self.ephemeral = kind == "ephemeral"
        self.claim_name = claim_name
        self.src = src


_POD_CACHE_KEY = "storage.volumes"


def pod_volumes(pod: Pod) -> tuple[PodVolume, ...]:
    """The pod's volumes in spec order (cached on the pod)."""
    cached = pod.cache.get(_POD_CACHE_KEY)
    if cached is not None:
        return cached
    out = []
    for v in pod.spec.get("volumes") or []:
        if not isinstance(v, Mapping):
            continue
        name = str(v.get("name") or "")
        if isinstance(v.get("persistentVolumeClaim"), Mapping):
            claim = str(v["persistentVolumeClaim"].get("claimName") or "")
            out.append(PodVolume(name, "pvc", claim, v["persistentVolumeClaim"]))
        elif isinstance(v.get("ephemeral"), Mapping):
            out.append(PodVolume(name, "ephemeral", f"{pod.name}-{name}", v["ephemeral"]))
        else:
            kind = next((k for k, s in v.items() if k != "name" and isinstance(s, Mapping)), "")
            out.append(PodVolume(name, kind, "", v.get(kind) or {}))
    res = tuple(out)
    pod.cache[_POD_CACHE_KEY] = res
    return res


# -- the index ------------------------------------------------------------------


class StorageIndex:
    def __init__(self) -> None:
        self.pvcs: dict[str, ClaimInfo] = {}
        self.pvs: dict[str, VolumeInfo] = {}
        self.classes: dict[str, StorageClassInfo] = {}
        self.csinodes: dict[str, CSINodeInfo] = {}
        # CSIDriver name → spec.storageCapacity
        self.csidrivers: dict[str, bool] = {}
        self.capacities: list[CapacityInfo] = []
        # node → {pv name: attacher} from VolumeAttachments
        self.attachments: dict[str, dict[str, str]] = {}
        # VolumeBinding's assume cache (keyed as pvs and pvcs)
        self.assumed_pvs: dict[str, VolumeInfo] = {}
        self.assumed_pvcs: dict[str, ClaimInfo] = {}
        # bumped on every change of the API view (caches key on it)
        self.version = 0

    # -- API view (listers) ----------------------------------------------------
    def pvc(self, namespace: str, name: str) -> ClaimInfo | None:
        return self.pvcs.get(f"{namespace}/{name}")

    def pv(self, name: str) -> VolumeInfo | None:
        return self.pvs.get(name)

    def storage_class(self, name: str) -> StorageClassInfo | None:
        return self.classes.get(name)

    # -- assume cache view (VolumeBinding) ---------------------------------------
    def cached_pvc(self, key: str) -> ClaimInfo | None:
        return self.assumed_pvcs.get(key) or self.pvcs.get(key)

    def cached_pv(self, name: str) -> VolumeInfo | None:
        return self.assumed_pvs.get(name) or self.pvs.get(name)

    def cached_pvs_of_class(self, storage_class: str) -> list[VolumeInfo]:
        """PVs of a class (by the API object's class), assumed copies in their place."""
        assumed = self.assumed_pvs
        return [
            assumed.get(pv.name, pv)
            for pv in self.pvs.values()
            if pv.storage_class == storage_class
        ]

    def assume_pv(self, pv: VolumeInfo) -> None:
        self.assumed_pvs[pv.name] = pv

    def assume_pvc(self, pvc: ClaimInfo) -> None:
        self.assumed_pvcs[pvc.key] = pvc

    def restore_pv(self, name: str) -> None:
        self.assumed_pvs.pop(name, None)

    def restore_pvc(self, key: str) -> None:
        self.assumed_pvcs.pop(key, None)

    # -- what the PV controller and provisioners do after PreBind --------------
    def commit(
        self,
        static: Iterable[tuple[VolumeInfo, ClaimInfo]],
        provisions: Iterable[ClaimInfo],
        node_labels: Mapping[str, str],
        node_name: str,
    ) -> None:
        """Make the chosen bindings real: PVCs fully bound, provisioned PVs created."""
        for pv, pvc in static:
            self._bind(pv.copy(), pvc)
        for pvc in provisions:
            cls = self.classes.get(pvc.storage_class)
            provisioner = cls.provisioner if cls else ""
            pv_name = f"pvc-{pvc.uid}"
            pv = object.__new__(VolumeInfo)
            pv.raw = {}
            pv.name = pv_name
            pv.labels = {}
            pv.annotations = {"pv.kubernetes.io/provisioned-by": provisioner}
            pv.deleting = False
            pv.storage_class = pvc.storage_class
            pv.capacity = pvc.request or Fraction(0)
            pv.access_modes = pvc.access_modes
            pv.volume_mode = pvc.volume_mode
            pv.vac = pvc.vac
            pv.claim_ref = None
            pv.phase = "Bound"
            pv.intree = None
            if provisioner in INTREE_PLUGIN_DRIVERS:
                pv.csi_driver = ""
                pv.csi_handle = ""
                pv.intree = (provisioner, INTREE_PLUGIN_DRIVERS[provisioner], pv_name)
            else:
                pv.csi_driver = provisioner
                pv.csi_handle = pv_name
            # a topology-aware provisioner pins the volume to the selected
            # node's segment of the driver's topology keys (from its CSINode)
            pv.node_affinity = None
            csinode = self.csinodes.get(node_name)
            keys = csinode.topology_keys.get(provisioner, ()) if csinode else ()
            segment = {k: node_labels[k] for k in keys if k in node_labels}
            if segment:
                pv.node_affinity = NodeSelector(
                    (NodeSelectorTerm(selector_from_set(segment), None),)
                )
            self._bind(pv, pvc)
        self.version += 1

    def _bind(self, pv: VolumeInfo, pvc: ClaimInfo) -> None:
        pv.claim_ref = (pvc.namespace, pvc.name, pvc.uid)
        pv.phase = "Bound"
        self.pvs[pv.name] = pv
        self.assumed_pvs.pop(pv.name, None)
        claim = (self.pvcs.get(pvc.key) or pvc).copy()
        claim.volume_name = pv.name
        claim.phase = "Bound"
        claim.bind_completed = True
        claim.annotations[ANN_BIND_COMPLETED] = "yes"
        self.pvcs[claim.key] = claim
        self.assumed_pvcs.pop(claim.key, None)


def build_storage_index(cluster: ClusterState) -> StorageIndex:
    """Parse the storage objects of ``cluster`` (raises :class:`InputError` on bad fields)."""
    src = cluster.source
    idx = StorageIndex()
    for o in cluster.of_kind("PersistentVolumeClaim"):
        c = ClaimInfo(o, src)
        idx.pvcs[c.key] = c
    for o in cluster.of_kind("PersistentVolume"):
        v = VolumeInfo(o, src)
        idx.pvs[v.name] = v
    for o in cluster.of_kind("StorageClass"):
        sc = StorageClassInfo(o)
        idx.classes[sc.name] = sc
    for o in cluster.of_kind("CSINode"):
        cn = CSINodeInfo(o)
        idx.csinodes[cn.name] = cn
    for o in cluster.of_kind("CSIDriver"):
        name = str(_meta(o).get("name") or "")
        idx.csidrivers[name] = bool(_spec(o).get("storageCapacity"))
    for o in cluster.of_kind("CSIStorageCapacity"):
        idx.capacities.append(CapacityInfo(o, src))
    for o in cluster.of_kind("VolumeAttachment"):
        spec = _spec(o)
        node = str(spec.get("nodeName") or "")
        attacher = str(spec.get("attacher") or "")
        pv_name = (spec.get("source") or {}).get("persistentVolumeName")
        if node and attacher and pv_name:
            idx.attachments.setdefault(node, {})[str(pv_name)] = attacher
    return idx


def storage_for(handle: Handle) -> StorageIndex:
    """The run's index: built on first use, kept in the snapshot's extensions.

    Without a snapshot (unit tests of one plugin), it is kept per handle.
    """
    try:
        snap = handle.snapshot()
    except Exception:
        snap = None
    store: dict[str, Any] | None = getattr(snap, "extensions", None)
    if store is None:
        store = _fallback_store(handle)
    idx = store.get(EXTENSION_KEY)
    if idx is None:
        idx = build_storage_index(handle.cluster)
        store[EXTENSION_KEY] = idx
    return idx


_FALLBACK: dict[int, tuple[Any, dict[str, Any]]] = {}


def _fallback_store(handle: Handle) -> dict[str, Any]:
    key = id(handle)
    entry = _FALLBACK.get(key)
    if entry is None or entry[0] is not handle:
        if len(_FALLBACK) > 16:
            _FALLBACK.clear()
        entry = (handle, {})
        _FALLBACK[key] = entry
    return entry[1]
