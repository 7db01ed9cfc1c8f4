"""Extra workload for a dry-run: Pods as given, or templates expanded into N pods.

Expanded pods carry their controller's ``ownerReference`` (a Deployment's
through its ReplicaSet), so a preemption cascade recreates them as their
controller would.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from dashboard import conf
from scheduler_engine.cluster import MAX_REPORTED_ERRORS
from scheduler_engine.errors import InputError
from scheduler_engine.objects.podgroup import (
    COSCHEDULING_LABEL,
    is_native_pod_group,
    parse_native_pod_group,
)
from scheduler_engine.objects.validation import is_dns1123_subdomain, pod_errors
from scheduler_engine.plugins.coscheduling import CoschedulingPodGroup, is_coscheduling_pod_group

from .errors import BadInput, mappings

__all__ = ["TEMPLATE_KINDS", "expand_workload"]

TEMPLATE_KINDS = ("Job", "Deployment", "StatefulSet", "ReplicaSet", "PodGroup")
TEMPLATE_HASH_LABEL = "pod-template-hash"
# the characters of a pod-template-hash (apimachinery's rand.SafeEncodeString)
_HASH_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


def _replicas(item: dict[str, Any], where: str) -> int:
    spec = item.get("spec") if isinstance(item.get("spec"), dict) else {}
    raw = item.get("replicas", spec.get("replicas", spec.get("parallelism", spec.get("minMember"))))
    if raw is None:
        return 1
    if not isinstance(raw, int) or isinstance(raw, bool) or raw < 0:
        raise BadInput.one(f"{where}.replicas", "must be a non-negative integer")
    return raw


def _template(item: dict[str, Any], where: str) -> dict[str, Any]:
    spec = item.get("spec") if isinstance(item.get("spec"), dict) else {}
    tpl = item.get("podTemplate", spec.get("template"))
    if not isinstance(tpl, dict) or not isinstance(tpl.get("spec"), dict):
        raise BadInput.one(f"{where}.podTemplate", "a pod template with a spec is required")
    return tpl


def _is_group_object(item: dict[str, Any]) -> bool:
    """A PodGroup object of either API, given whole (not a ``PodGroup`` template item)."""
    return is_native_pod_group(item) or is_coscheduling_pod_group(item)


def _group_object(item: dict[str, Any], where: str) -> dict[str, Any]:
    """The PodGroup as given (namespace ``default`` when unset), parsed as the engine parses it."""
    obj = copy.deepcopy(item)
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        raise BadInput.one(f"{where}.metadata.name", "is required")
    for msg in is_dns1123_subdomain(meta["name"]):
        raise BadInput.one(f"{where}.metadata.name", f'Invalid value: "{meta["name"]}": {msg}')
    meta.setdefault("namespace", "default")
    try:
        if is_native_pod_group(obj):
            parse_native_pod_group(obj)
        else:
            CoschedulingPodGroup(obj)
    except InputError as exc:
        raise BadInput.one(f"{where}.{exc.field}" if exc.field else where, exc.message) from None
    return obj


def _check_pod(pod: dict[str, Any], where: str) -> None:
    """What the API server would refuse in this pod (or template), naming ``where.field``."""
    errors = pod_errors(pod)
    if errors:
        shown = errors[:MAX_REPORTED_ERRORS]
        raise BadInput.many([(f"{where}.{e.field}", e.message) for e in shown], len(errors))


def _expand(item: dict[str, Any], where: str) -> list[dict[str, Any]]:
    meta = item.get("metadata") if isinstance(item.get("metadata"), dict) else {}
    name = item.get("name", meta.get("name"))
    if not isinstance(name, str) or not name:
        raise BadInput.one(f"{where}.name", "is required")
    for msg in is_dns1123_subdomain(f"{name}-0"):
        raise BadInput.one(f"{where}.name", f'Invalid value: "{name}": {msg}')
    namespace = item.get("namespace", meta.get("namespace")) or "default"
    n = _replicas(item, where)
    tpl = _template(item, where)
    tpl_where = f"{where}.podTemplate" if "podTemplate" in item else f"{where}.spec.template"
    _check_pod({"metadata": tpl.get("metadata") or {}, "spec": tpl["spec"]}, tpl_where)
    labels = dict((tpl.get("metadata") or {}).get("labels") or {})
    annotations = dict((tpl.get("metadata") or {}).get("annotations") or {})
    owner = _controller(item.get("kind"), name, namespace, tpl, labels)
    pods = []
    if item.get("kind") == "PodGroup":
        labels.setdefault(COSCHEDULING_LABEL, name)
        pods.append(_coscheduling_pod_group(item, name, namespace, n))
    for i in range(n):
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{name}-{i}",
                    "namespace": namespace,
                    "labels": dict(labels),
                    "annotations": dict(annotations),
                    "uid": f"dryrun-{namespace}-{name}-{i}",
                    **({"ownerReferences": [dict(owner)]} if owner else {}),
                },
                "spec": copy.deepcopy(tpl["spec"]),
                "status": {"phase": "Pending"},
            }
        )
    return pods


def _controller(
    kind: Any, name: str, namespace: str, tpl: dict[str, Any], labels: dict[str, str]
) -> dict[str, Any] | None:
    """The controller ``ownerReference`` the template's kind gives its pods (None: a PodGroup).

    A Deployment's pods belong to its ReplicaSet ``<name>-<pod-template-hash>``,
    and carry that hash as a label (added to ``labels``), as the Deployment
    controller makes them; a preemption cascade recreates them through it.
    """
    if kind == "Deployment":
        digest = hashlib.sha256(json.dumps(tpl, sort_keys=True, default=str).encode()).digest()
        h = "".join(_HASH_ALPHABET[b % len(_HASH_ALPHABET)] for b in digest[:10])
        labels.setdefault(TEMPLATE_HASH_LABEL, h)
        kind, api, name = "ReplicaSet", "apps/v1", f"{name}-{labels[TEMPLATE_HASH_LABEL]}"
    elif kind in ("StatefulSet", "ReplicaSet"):
        api = "apps/v1"
    elif kind == "Job":
        api = "batch/v1"
    else:
        return None
    return {
        "apiVersion": api,
        "kind": kind,
        "name": name,
        "uid": f"dryrun-{namespace}-{kind.lower()}-{name}",
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _coscheduling_pod_group(
    item: dict[str, Any], name: str, namespace: str, n: int
) -> dict[str, Any]:
    """The PodGroup a ``PodGroup`` template item stands for (Coscheduling reads it).

    ``minMember`` is the item's own or its replica count; ``minResources`` and
    ``scheduleTimeoutSeconds`` are kept.
    """
    spec = item.get("spec") if isinstance(item.get("spec"), dict) else {}
    pg_spec: dict[str, Any] = {"minMember": spec.get("minMember", n)}
    for k in ("minResources", "scheduleTimeoutSeconds"):
        if k in spec:
            pg_spec[k] = copy.deepcopy(spec[k])
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": pg_spec,
    }


def _sizes(items: list[Any], field: str, limit: int) -> None:
    """Check every item's kind and replica count, and the total, before building anything."""
    total = 0
    for _, where, item in mappings(items, field, "expected an object"):
        kind = item.get("kind")
        if kind == "Pod":
            total += 1
        elif _is_group_object(item):
            continue
        elif kind in TEMPLATE_KINDS:
            n = _replicas(item, where)
            if n > limit:
                raise BadInput.one(
                    f"{where}.replicas", f"must be at most {limit} (SCHEDLAB_MAX_WORKLOAD_PODS)"
                )
            total += n
        else:
            raise BadInput.one(
                f"{where}.kind", f"must be Pod or one of {', '.join(TEMPLATE_KINDS)}"
            )
        if total > limit:
            raise BadInput.one(
                field, f"expands to more than {limit} pods (SCHEDLAB_MAX_WORKLOAD_PODS)"
            )


def expand_workload(items: Any, field: str = "workload") -> list[dict[str, Any]]:
    """Pods to add to the cluster; raises :class:`BadInput` naming ``workload[i].field``.

    A ``PodGroup`` item (scheduler-plugins' Coscheduling) also adds its PodGroup
    object, so a gang's dry-run sees its ``minMember``. A PodGroup object of
    either API (``apiVersion`` ``scheduling.k8s.io/v1alpha2`` or
    ``scheduling.x-k8s.io/v1alpha1``, ``metadata``, ``spec``) is added as it
    is, for the pods of a ``Job`` (``spec.parallelism``) whose template joins it.

    Every size is checked before a single pod is built: at most
    ``SCHEDLAB_MAX_WORKLOAD_PODS`` pods per request, all items together.
    """
    if items in (None, ""):
        return []
    if isinstance(items, dict):
        items = items.get("items", [items])
    if not isinstance(items, list):
        raise BadInput.one(field, "expected a list of Pods or workload templates")
    _sizes(items, field, conf.max_workload_pods())
    pods: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        where = f"{field}[{i}]"
        if item.get("kind") == "Pod":
            _check_pod(item, where)
            pod = copy.deepcopy(item)
            pod.setdefault("apiVersion", "v1")
            if isinstance(pod.get("spec"), dict):
                pod["spec"].pop("nodeName", None)
            pods.append(pod)
        elif _is_group_object(item):
            pods.append(_group_object(item, where))
        else:
            pods.extend(_expand(item, where))
    return pods
