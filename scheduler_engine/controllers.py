"""What kube-controller-manager would do for a new workload before the scheduler sees it.

A mirrored cluster already holds the claims and bindings the controllers
made; a dry-run's new pods do not.  :func:`emulate_controllers` does their
part on a copy of the cluster:

* the resourceclaim controller: for each pending pod's ``resourceClaims``
  entry with a ``resourceClaimTemplateName`` and no claim yet, a
  ResourceClaim from the template, named ``<pod>-<claim>-<5 chars>``, owned
  by the pod, annotated ``resource.kubernetes.io/pod-claim-name``, and
  recorded in the pod's ``status.resourceClaimStatuses`` (an orphan claim an
  earlier run made for the pod is adopted instead);
* the PV controller: each unbound PersistentVolumeClaim whose binding is
  ``Immediate`` is bound to the smallest matching PersistentVolume
  (``FindMatchingVolume`` without a node), both sides marked ``Bound``.

The report says what was done and what could not be (a missing template).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .cluster import ClusterState
from .objects import Pod
from .objects.names import generated_name
from .objects.owners import owned_by_pod
from .plugins.volumebinding import find_matching_volume
from .storage import ClaimInfo, StorageClassInfo, VolumeInfo

__all__ = ["POD_CLAIM_NAME_ANNOTATION", "ControllersReport", "emulate_controllers"]

POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name"
BIND_COMPLETED_ANNOTATION = "pv.kubernetes.io/bind-completed"
# the resourceclaim controller leaves room for "-" and five characters in 63
_MAX_BASE = 57


@dataclass
class ControllersReport:
    """What the emulated controllers did, for the results."""

    resource_claims: list[dict[str, str]] = field(default_factory=list)
    volume_bindings: list[dict[str, str]] = field(default_factory=list)
    problems: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "resourceClaims": [dict(x) for x in self.resource_claims],
            "volumeBindings": [dict(x) for x in self.volume_bindings],
            "problems": [dict(x) for x in self.problems],
        }


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("metadata") or {}


def claim_generate_name(pod_name: str, claim_name: str) -> str:
    """The controller's ``generateName``: ``<pod>-<claim>-``, both cut in proportion when long."""
    base = f"{pod_name}-{claim_name}-"
    if len(base) > _MAX_BASE:
        n = len(base)
        base = (
            pod_name[: len(pod_name) * _MAX_BASE // n]
            + "-"
            + claim_name[: len(claim_name) * _MAX_BASE // n]
        )
    return base


def emulate_controllers(cluster: ClusterState) -> tuple[ClusterState, ControllersReport]:
    """A copy of ``cluster`` with the controllers' work done, and what was done."""
    report = ControllersReport()
    objects = {k: list(v) for k, v in cluster.objects.items()}
    pods = [
        _with_template_claims(p, objects, report) if not p.node_name else p for p in cluster.pods
    ]
    _bind_immediate_claims(objects, cluster.source, report)
    out = ClusterState(
        nodes=list(cluster.nodes),
        pods=pods,
        priority_classes=dict(cluster.priority_classes),
        pdbs=list(cluster.pdbs),
        namespaces=dict(cluster.namespaces),
        objects=objects,
        source=cluster.source,
    )
    return out, report


# -- the resourceclaim controller ------------------------------------------------------------


def _with_template_claims(
    pod: Pod, objects: dict[str, list[Any]], report: ControllersReport
) -> Pod:
    if pod.terminating or not pod.resource_claims:
        return pod
    status = pod.raw.get("status") or {}
    statuses = list(status.get("resourceClaimStatuses") or ())
    known = {s.get("name") for s in statuses}
    claims = objects.setdefault("ResourceClaim", [])
    templates = {
        (_meta(t).get("namespace") or "default", _meta(t).get("name")): t
        for t in objects.get("ResourceClaimTemplate", ())
    }
    added = []
    for pc in pod.resource_claims:
        name = str(pc.get("name", ""))
        template_name = pc.get("resourceClaimTemplateName")
        if not template_name or name in known:
            continue
        claim = _orphan(pod, name, claims)
        if claim is None:
            template = templates.get((pod.namespace, template_name))
            if template is None:
                report.problems.append(
                    {
                        "pod": pod.key,
                        "message": f'resource claim template "{template_name}": '
                        f'resourceclaimtemplate.resource.k8s.io "{template_name}" not found',
                    }
                )
                continue
            claim = _claim_from_template(pod, name, template)
            claims.append(claim)
            report.resource_claims.append(
                {
                    "pod": pod.key,
                    "claim": f"{pod.namespace}/{claim['metadata']['name']}",
                    "template": str(template_name),
                }
            )
        added.append({"name": name, "resourceClaimName": _meta(claim).get("name")})
    if not added:
        return pod
    fresh = copy.copy(pod)
    fresh.raw = {**pod.raw, "status": {**status, "resourceClaimStatuses": statuses + added}}  # type: ignore[assignment]
    return fresh


def _orphan(pod: Pod, claim_name: str, claims: list[Any]) -> Mapping[str, Any] | None:
    """A claim made for this pod entry before its status was written (the controller adopts it)."""
    for c in claims:
        m = _meta(c)
        if (m.get("namespace") or "default") != pod.namespace:
            continue
        if (m.get("annotations") or {}).get(POD_CLAIM_NAME_ANNOTATION) != claim_name:
            continue
        if any(
            o.get("controller") and str(o.get("uid")) == pod.uid
            for o in m.get("ownerReferences") or ()
        ):
            return c
    return None


def _claim_from_template(pod: Pod, claim_name: str, template: Mapping[str, Any]) -> dict[str, Any]:
    tspec = template.get("spec") or {}
    tmeta = tspec.get("metadata") or {}
    base = claim_generate_name(pod.name, claim_name)
    meta: dict[str, Any] = {
        "name": generated_name(base, f"{pod.uid}/{claim_name}"),
        "generateName": base,
        "namespace": pod.namespace,
        "uid": f"{pod.uid}-{claim_name}",
        "ownerReferences": owned_by_pod(pod),
        "annotations": {**(tmeta.get("annotations") or {}), POD_CLAIM_NAME_ANNOTATION: claim_name},
    }
    if tmeta.get("labels"):
        meta["labels"] = dict(tmeta["labels"])
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": meta,
        "spec": copy.deepcopy(tspec.get("spec") or {}),
    }


# -- the PV controller ------------------------------------------------------------------------


def _bind_immediate_claims(
    objects: dict[str, list[Any]], source: str | None, report: ControllersReport
) -> None:
    pvc_objs = objects.get("PersistentVolumeClaim") or []
    pv_objs = objects.get("PersistentVolume") or []
    if not pvc_objs or not pv_objs:
        return
    classes = {
        str(_meta(o).get("name", "")): StorageClassInfo(o) for o in objects.get("StorageClass", ())
    }
    volumes = [VolumeInfo(o, source) for o in pv_objs]
    taken: dict[str, VolumeInfo] = {}
    for i, obj in enumerate(pvc_objs):
        claim = ClaimInfo(obj, source)
        if claim.phase == "Bound" or claim.deleting:
            continue
        cls = classes.get(claim.storage_class) if claim.storage_class else None
        if cls is not None and cls.wait_for_first_consumer:
            continue  # bound by the scheduler, for the node it picks
        candidates = [v for v in volumes if all(m in v.access_modes for m in claim.access_modes)]
        if claim.volume_name:
            candidates = [v for v in candidates if v.name == claim.volume_name]
        pv = find_matching_volume(claim, candidates, None, taken, False)
        if pv is None:
            continue
        taken[pv.name] = pv
        j = next(k for k, o in enumerate(pv_objs) if str(_meta(o).get("name", "")) == pv.name)
        pvc_objs[i] = _bound_claim(obj, pv.name)
        pv_objs[j] = _bound_volume(pv_objs[j], claim)
        report.volume_bindings.append({"claim": claim.key, "volume": pv.name})


def _bound_claim(obj: Mapping[str, Any], volume: str) -> dict[str, Any]:
    meta = dict(_meta(obj))
    meta["annotations"] = {**(meta.get("annotations") or {}), BIND_COMPLETED_ANNOTATION: "yes"}
    spec = {**(obj.get("spec") or {}), "volumeName": volume}
    status = {**(obj.get("status") or {}), "phase": "Bound"}
    return {**obj, "metadata": meta, "spec": spec, "status": status}


def _bound_volume(obj: Mapping[str, Any], claim: ClaimInfo) -> dict[str, Any]:
    ref = {
        "kind": "PersistentVolumeClaim",
        "apiVersion": "v1",
        "namespace": claim.namespace,
        "name": claim.name,
        "uid": claim.uid,
    }
    spec = {**(obj.get("spec") or {}), "claimRef": ref}
    status = {**(obj.get("status") or {}), "phase": "Bound"}
    return {**obj, "spec": spec, "status": status}
