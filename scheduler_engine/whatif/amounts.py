"""Resource amounts as the engine counts them (milli-CPU, bytes, units) and as people read them."""

from __future__ import annotations

from ..framework.node_info import NodeInfo
from ..objects import Pod, Resource
from ..objects.resources import CPU, PODS

__all__ = ["available", "format_amount", "requested", "resource_of_reason"]

_BINARY = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))
_INSUFFICIENT = "Insufficient "
_TOO_MANY_PODS = "Too many pods"


def format_amount(resource: str, amount: int) -> str:
    """``1500m``, ``2``, ``3Gi``: the amount written as a Kubernetes quantity."""
    if resource == CPU:
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix, unit in _BINARY:
            if amount and amount % unit == 0:
                return f"{amount // unit}{suffix}"
    return str(amount)


def requested(pod: Pod, resource: str) -> int:
    """What the pod asks of ``resource`` (1 for pods)."""
    return 1 if resource == PODS else pod.requests.get(resource)


def available(node_info: NodeInfo, resource: str) -> tuple[int, int]:
    """(allocatable, free) of ``resource`` on the node."""
    alloc: Resource = node_info.node.allocatable
    if resource == PODS:
        return alloc.allowed_pod_number, alloc.allowed_pod_number - len(node_info.pods)
    total = alloc.get(resource)
    return total, total - node_info.requested.get(resource)


def resource_of_reason(reason: str) -> str | None:
    """The resource NodeResourcesFit names in one of its reasons, or None."""
    if reason == _TOO_MANY_PODS:
        return PODS
    if reason.startswith(_INSUFFICIENT):
        return reason[len(_INSUFFICIENT) :]
    return None
