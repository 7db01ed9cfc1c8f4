"""Extended resources backed by DRA (DRAExtendedResource, beta, on in v1.36).

Upstream counterpart: ``plugins/dynamicresources/extendeddynamicresources.go``.
A pod requesting an extended resource that a DeviceClass maps (its
``spec.extendedResourceName``, or the implicit
``deviceclass.resource.kubernetes.io/<class>``) is given a claim the
scheduler makes: in PreFilter an empty placeholder (or the claim an earlier
cycle created, found by its annotation and owner); in Filter, on each node
that does not advertise the resource itself, a copy with one exact-count
request per container (``container-<i>-request-<j>``) that the allocator must
satisfy; PreBind creates it as ``<pod>-extended-resources-<suffix>``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...objects import Pod, is_extended_resource_name
from ...objects.names import generated_name
from ...objects.owners import owned_by_pod
from ...quantity import parse_quantity

__all__ = [
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "RESOURCE_DEVICE_CLASS_PREFIX",
    "SPECIAL_CLAIM_NAME",
    "claim_name_for",
    "find_extended_claim",
    "is_dra_extended_resource_name",
    "mapped_request",
    "placeholder_claim",
    "requests_and_mappings",
]

EXTENDED_RESOURCE_CLAIM_ANNOTATION = "resource.kubernetes.io/extended-resource-claim"
RESOURCE_DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/"
# the in-memory name of the placeholder until PreBind creates the claim
SPECIAL_CLAIM_NAME = "<extended-resources>"


def is_dra_extended_resource_name(name: str) -> bool:
    return is_extended_resource_name(name) or name.startswith(RESOURCE_DEVICE_CLASS_PREFIX)


def mapped_request(pod: Pod, resolver: Mapping[str, str]) -> bool:
    """Whether the pod asks for a non-zero amount of an extended resource a class maps."""
    return any(
        q and is_dra_extended_resource_name(name) and name in resolver
        for name, q in pod.requests.scalar.items()
    )


def find_extended_claim(pod: Pod, claims: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The claim an earlier cycle created for the pod (annotated, controlled by the pod)."""
    for c in claims:
        meta = c.get("metadata") or {}
        if (meta.get("namespace") or "default") != pod.namespace:
            continue
        if (meta.get("annotations") or {}).get(EXTENDED_RESOURCE_CLAIM_ANNOTATION) != "true":
            continue
        for o in meta.get("ownerReferences") or ():
            if o.get("name") == pod.name and o.get("controller") and str(o.get("uid")) == pod.uid:
                return c
    return None


def claim_name_for(pod: Pod) -> str:
    """``<pod>-extended-resources-<5 chars>``: the API server's generateName, with a suffix
    drawn from the pod's UID so that a run is repeatable (the API server draws it at random)."""
    return generated_name(f"{pod.name}-extended-resources-", pod.uid)


def placeholder_claim(pod: Pod) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "namespace": pod.namespace,
            "name": SPECIAL_CLAIM_NAME,
            "uid": f"{pod.uid}-extended-resources",
            "generateName": f"{pod.name}-extended-resources-",
            "ownerReferences": owned_by_pod(pod),
            "annotations": {EXTENDED_RESOURCE_CLAIM_ANNOTATION: "true"},
        },
        "spec": {},
    }


def _int_request(container: Mapping[str, Any], resource: str) -> int:
    reqs = (container.get("resources") or {}).get("requests") or {}
    if resource not in reqs:
        return 0
    try:
        q = parse_quantity(reqs[resource])
    except ValueError:
        return 0
    # AsInt64: only whole numbers count
    return int(q) if q.denominator == 1 else 0


def _container_request(
    index: int,
    container: Mapping[str, Any],
    resource: str,
    class_name: str,
    reusable: Sequence[dict[str, Any] | None],
) -> tuple[dict[str, Any] | None, list[dict[str, str]]]:
    """Upstream ``createResourceRequestAndMappings``."""
    mappings: list[dict[str, str]] = []
    count = _int_request(container, resource)
    if not count:
        return None, mappings
    cname = str(container.get("name", ""))
    total = 0
    for r in reusable:
        if r is None:
            continue
        total += int(r["exactly"]["count"])
        mappings.append(
            {"containerName": cname, "resourceName": resource, "requestName": r["name"]}
        )
        if total >= count:
            return None, mappings
    keys = sorted((container.get("resources") or {}).get("requests") or {})
    ridx = keys.index(resource) if resource in keys else 0
    name = f"container-{index}-request-{ridx}"
    req = {
        "name": name,
        "exactly": {
            "deviceClassName": class_name,
            "allocationMode": "ExactCount",
            "count": count - total,
        },
    }
    mappings.append({"containerName": cname, "resourceName": resource, "requestName": name})
    return req, mappings


def requests_and_mappings(
    pod: Pod, resources: Mapping[str, int], resolver: Mapping[str, str]
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Upstream ``createRequestsAndMappings``: the node claim's requests and the pod's mappings.

    Containers are indexed init containers first; sidecars and regular
    containers each get their own request, plain init containers reuse the
    long-lived requests after them and share one request (the largest).
    """
    spec = pod.spec
    inits = list(spec.get("initContainers") or ())
    containers = inits + list(spec.get("containers") or ())
    long_lived = []
    short_lived = []
    for i, c in enumerate(containers):
        if i < len(inits) and c.get("restartPolicy") != "Always":
            short_lived.append(i)
        else:
            long_lived.append(i)
    requests: list[dict[str, Any]] = []
    mappings: list[dict[str, str]] = []
    for resource in sorted(resources):
        class_name = resolver.get(resource)
        if class_name is None:
            continue
        long_reqs: list[dict[str, Any] | None] = [None] * len(containers)
        long_maps: list[dict[str, str]] = []
        for i in long_lived:
            req, maps = _container_request(i, containers[i], resource, class_name, ())
            long_reqs[i] = req
            long_maps += maps
        short_maps: list[dict[str, str]] = []
        biggest: dict[str, Any] | None = None
        short_names: set[str] = set()
        for i in short_lived:
            req, maps = _container_request(i, containers[i], resource, class_name, long_reqs[i:])
            if req is not None:
                short_names.add(req["name"])
                if biggest is None or biggest["exactly"]["count"] < req["exactly"]["count"]:
                    biggest = req
            short_maps += maps
        if biggest is not None and len(short_names) > 1:
            short_names.discard(biggest["name"])
            for m in short_maps:
                if m["requestName"] in short_names:
                    m["requestName"] = biggest["name"]
        if biggest is not None:
            requests.append(biggest)
        requests += [r for r in long_reqs if r is not None]
        mappings += long_maps + short_maps
    requests.sort(key=lambda r: r["name"])
    return requests, mappings
