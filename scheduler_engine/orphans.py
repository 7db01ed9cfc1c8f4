"""Pending pods that nobody will ever schedule, and why.

A pod is orphaned when what it waits for cannot come from the cluster:

* ``UnknownScheduler``: its ``spec.schedulerName`` is served neither by a
  profile of the active configuration nor by a scheduler the user declared
  (Volcano's ``volcano``, ...);
* ``GateNobodyRemoves``: a ``spec.schedulingGates`` entry that no known
  controller removes (Kueue's ``kueue.x-k8s.io/admission``, ...);
* ``PodGroupMissing``: the PodGroup it names does not exist, for either kind:
  scheduler-plugins' (label ``scheduling.x-k8s.io/pod-group``) or the native
  workload API's (``spec.schedulingGroup.podGroupName``);
* ``ClaimTemplateMissing``, ``ClaimNotCreated``, ``ClaimMissing``: a
  ``spec.resourceClaims`` entry whose ResourceClaim is never made (its
  template does not exist), has not been made (no entry in
  ``status.resourceClaimStatuses``), or is gone.

Everything is read off raw objects as the API server returns them, so the
dashboard can pass stored JSON without parsing whole pods.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from .apinames import is_dns1123_subdomain, is_label_key
from .objects.podgroup import COSCHEDULING_LABEL, NATIVE_GROUP, pod_group_name

if TYPE_CHECKING:  # pragma: no cover
    from .cluster import ClusterState

__all__ = [
    "CLAIM_MISSING",
    "CLAIM_NOT_CREATED",
    "CLAIM_TEMPLATE_MISSING",
    "COSCHEDULING_GROUP",
    "COSCHEDULING_LABEL",
    "DEFAULT_GATE_CONTROLLERS",
    "GATE_NOBODY_REMOVES",
    "MAX_DECLARATIONS",
    "POD_GROUP_MISSING",
    "REASONS",
    "UNKNOWN_SCHEDULER",
    "Orphan",
    "declaration_errors",
    "find_orphans",
    "gate_is_known",
    "orphans_in_cluster",
]

UNKNOWN_SCHEDULER = "UnknownScheduler"
GATE_NOBODY_REMOVES = "GateNobodyRemoves"
POD_GROUP_MISSING = "PodGroupMissing"
CLAIM_TEMPLATE_MISSING = "ClaimTemplateMissing"
CLAIM_NOT_CREATED = "ClaimNotCreated"
CLAIM_MISSING = "ClaimMissing"
REASONS = (
    UNKNOWN_SCHEDULER,
    GATE_NOBODY_REMOVES,
    POD_GROUP_MISSING,
    CLAIM_TEMPLATE_MISSING,
    CLAIM_NOT_CREATED,
    CLAIM_MISSING,
)

COSCHEDULING_GROUP = "scheduling.x-k8s.io"
DEFAULT_SCHEDULER = "default-scheduler"

# gates that well-known controllers add and remove: Kueue's admission and its
# topology-aware scheduling's ungater
DEFAULT_GATE_CONTROLLERS = ("kueue.x-k8s.io/admission", "kueue.x-k8s.io/topology")


# most names one list of declarations may hold
MAX_DECLARATIONS = 200


def _list_errors(raw: Any, field: str, check: Any) -> dict[str, list[str]]:
    if not isinstance(raw, list):
        return {field: ["must be a list of strings"]}
    if len(raw) > MAX_DECLARATIONS:
        return {field: [f"must have at most {MAX_DECLARATIONS} items, got {len(raw)}"]}
    errors: dict[str, list[str]] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, str):
            errors[f"{field}[{i}]"] = ["must be a string"]
            continue
        found = check(item)
        if found:
            errors[f"{field}[{i}]"] = [f"{item!r}: {m}" for m in found]
    return errors


def _gate_pattern_errors(value: str) -> list[str]:
    if value.endswith("*"):
        prefix = value[:-1]
        if not prefix or any(not (c.isascii() and (c.isalnum() or c in "-_./")) for c in prefix):
            return [
                "a prefix before '*' must be non-empty and consist of alphanumeric "
                "characters, '-', '_', '.' or '/'"
            ]
        return []
    return is_label_key(value)


def declaration_errors(declared_schedulers: Any, gate_controllers: Any) -> dict[str, list[str]]:
    """What is wrong with declarations, by field (``declaredSchedulers[2]``); empty when valid.

    Scheduler names are checked as the API server checks ``spec.schedulerName``
    (a DNS-1123 subdomain), gate names as ``spec.schedulingGates[].name`` (a
    qualified name), or a prefix followed by ``*``.
    """
    return {
        **_list_errors(declared_schedulers, "declaredSchedulers", is_dns1123_subdomain),
        **_list_errors(gate_controllers, "gateControllers", _gate_pattern_errors),
    }


@dataclass(frozen=True, slots=True)
class Orphan:
    """One reason one pending pod will not be scheduled."""

    pod: str
    reason: str
    # the pod's field that says it, and the name found there
    field: str
    value: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def gate_is_known(gate: str, controllers: Collection[str]) -> bool:
    """An exact name, or an entry ending in ``*`` that is a prefix of the gate."""
    if gate in controllers:
        return True
    return any(c.endswith("*") and gate.startswith(c[:-1]) for c in controllers)


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    m = obj.get("metadata")
    return m if isinstance(m, Mapping) else {}


def _key(obj: Mapping[str, Any]) -> str:
    m = _meta(obj)
    return f"{m.get('namespace') or 'default'}/{m.get('name') or ''}"


class _Index:
    """Names of the objects orphans are judged against, as ``ns/name``."""

    def __init__(self, objects: Iterable[Mapping[str, Any]]) -> None:
        self.native_groups: set[str] = set()
        self.coscheduling_groups: set[str] = set()
        self.claim_templates: set[str] = set()
        self.claims: set[str] = set()
        for o in objects:
            if not isinstance(o, Mapping):
                continue
            kind = o.get("kind")
            group = str(o.get("apiVersion") or "").split("/", 1)[0]
            if kind == "PodGroup":
                if group == NATIVE_GROUP:
                    self.native_groups.add(_key(o))
                elif group == COSCHEDULING_GROUP:
                    self.coscheduling_groups.add(_key(o))
            elif kind == "ResourceClaimTemplate":
                self.claim_templates.add(_key(o))
            elif kind == "ResourceClaim":
                self.claims.add(_key(o))


def _is_pending(pod: Mapping[str, Any]) -> bool:
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    if spec.get("nodeName") or _meta(pod).get("deletionTimestamp"):
        return False
    return status.get("phase") not in ("Succeeded", "Failed")


def _pod_orphans(
    pod: Mapping[str, Any], index: _Index, served: Collection[str], gates: Collection[str]
) -> list[Orphan]:
    meta = _meta(pod)
    spec = pod.get("spec") or {}
    ns = str(meta.get("namespace") or "default")
    key = f"{ns}/{meta.get('name') or ''}"
    out: list[Orphan] = []

    name = str(spec.get("schedulerName") or DEFAULT_SCHEDULER)
    if name not in served:
        known = ", ".join(sorted(served)) or "none"
        out.append(
            Orphan(
                key,
                UNKNOWN_SCHEDULER,
                "spec.schedulerName",
                name,
                f'no known scheduler is named "{name}": no profile of the active configuration '
                f"serves it and no declared scheduler has that name (known: {known})",
            )
        )
    for i, g in enumerate(spec.get("schedulingGates") or ()):
        gate = str(g.get("name") or "") if isinstance(g, Mapping) else ""
        if gate and not gate_is_known(gate, gates):
            out.append(
                Orphan(
                    key,
                    GATE_NOBODY_REMOVES,
                    f"spec.schedulingGates[{i}].name",
                    gate,
                    f'no known controller removes the scheduling gate "{gate}": the scheduler '
                    "never tries the pod while it is there",
                )
            )
    label = (meta.get("labels") or {}).get(COSCHEDULING_LABEL)
    if label and f"{ns}/{label}" not in index.coscheduling_groups:
        out.append(
            Orphan(
                key,
                POD_GROUP_MISSING,
                f"metadata.labels[{COSCHEDULING_LABEL}]",
                str(label),
                f'PodGroup "{ns}/{label}" ({COSCHEDULING_GROUP}) does not exist: '
                "Coscheduling holds the pod until it does",
            )
        )
    native = pod_group_name(pod)
    if native and f"{ns}/{native}" not in index.native_groups:
        out.append(
            Orphan(
                key,
                POD_GROUP_MISSING,
                "spec.schedulingGroup.podGroupName",
                native,
                f'PodGroup "{ns}/{native}" ({NATIVE_GROUP}) does not exist: '
                "the scheduler holds the pod until it does",
            )
        )
    out += _claim_orphans(key, ns, pod, index)
    return out


def _claim_orphans(key: str, ns: str, pod: Mapping[str, Any], index: _Index) -> list[Orphan]:
    spec = pod.get("spec") or {}
    statuses = (pod.get("status") or {}).get("resourceClaimStatuses") or ()
    by_name = {s.get("name"): s for s in statuses if isinstance(s, Mapping)}
    out: list[Orphan] = []
    for i, pc in enumerate(spec.get("resourceClaims") or ()):
        if not isinstance(pc, Mapping):
            continue
        entry = str(pc.get("name") or "")
        direct = pc.get("resourceClaimName")
        template = pc.get("resourceClaimTemplateName")
        if direct:
            if f"{ns}/{direct}" not in index.claims:
                out.append(
                    Orphan(
                        key,
                        CLAIM_MISSING,
                        f"spec.resourceClaims[{i}].resourceClaimName",
                        str(direct),
                        f'ResourceClaim "{ns}/{direct}" does not exist: the scheduler holds '
                        "the pod until someone creates it",
                    )
                )
            continue
        if not template:
            continue
        status = by_name.get(entry)
        made = status.get("resourceClaimName") if status is not None else None
        if status is not None and not made:
            continue  # the controller decided no claim was needed
        if made and f"{ns}/{made}" in index.claims:
            continue
        field = f"spec.resourceClaims[{i}].resourceClaimTemplateName"
        if f"{ns}/{template}" not in index.claim_templates:
            out.append(
                Orphan(
                    key,
                    CLAIM_TEMPLATE_MISSING,
                    field,
                    str(template),
                    f'ResourceClaimTemplate "{ns}/{template}" does not exist: the claim '
                    f'"{entry}" is never created',
                )
            )
        elif made:
            out.append(
                Orphan(
                    key,
                    CLAIM_MISSING,
                    f"status.resourceClaimStatuses[{entry}].resourceClaimName",
                    str(made),
                    f'ResourceClaim "{ns}/{made}", made from "{template}" for the claim '
                    f'"{entry}", no longer exists',
                )
            )
        else:
            out.append(
                Orphan(
                    key,
                    CLAIM_NOT_CREATED,
                    field,
                    str(template),
                    f'no ResourceClaim was created from "{template}" for the claim "{entry}" '
                    "(status.resourceClaimStatuses has no entry): the resourceclaim controller "
                    "of kube-controller-manager makes it",
                )
            )
    return out


def find_orphans(
    pods: Iterable[Mapping[str, Any]],
    objects: Iterable[Mapping[str, Any]] = (),
    *,
    served_schedulers: Collection[str],
    gate_controllers: Collection[str] = DEFAULT_GATE_CONTROLLERS,
) -> list[Orphan]:
    """Every reason each pending pod of ``pods`` will not be scheduled, pod by pod.

    ``objects`` holds the PodGroups (both API groups), ResourceClaimTemplates
    and ResourceClaims of the cluster; other objects are ignored.
    ``served_schedulers`` are the scheduler names somebody serves (the active
    profiles' and the declared ones); ``gate_controllers`` the gate names some
    controller removes (see :func:`gate_is_known`).
    """
    index = _Index(objects)
    served = set(served_schedulers)
    out: list[Orphan] = []
    for pod in pods:
        if isinstance(pod, Mapping) and _is_pending(pod):
            out += _pod_orphans(pod, index, served, gate_controllers)
    return out


def orphans_in_cluster(
    cluster: ClusterState,
    profiles: Iterable[str],
    *,
    declared_schedulers: Iterable[str] = (),
    gate_controllers: Collection[str] = DEFAULT_GATE_CONTROLLERS,
) -> list[Orphan]:
    """:func:`find_orphans` over a parsed :class:`~scheduler_engine.cluster.ClusterState`."""
    objects = [
        o
        for kind in ("PodGroup", "ResourceClaimTemplate", "ResourceClaim")
        for o in cluster.of_kind(kind)
    ]
    return find_orphans(
        (p.raw for p in cluster.pending_pods),
        objects,
        served_schedulers={*profiles, *declared_schedulers},
        gate_controllers=gate_controllers,
    )
