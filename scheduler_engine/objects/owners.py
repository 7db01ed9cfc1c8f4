"""A pod's controller, and which controllers recreate a pod that is deleted.

Read by preemption cascades (the replacement of a victim) and by the what-if
moves (who may be evicted and come back elsewhere).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .pod import Pod

__all__ = [
    "CAUSE_UNKNOWN",
    "MOVABLE_KINDS",
    "RECREATING_KINDS",
    "TEMPLATE_HASH_LABEL",
    "Owner",
    "owned_by_pod",
    "owner_of",
]

# controllers that recreate a deleted pod
RECREATING_KINDS = ("ReplicaSet", "ReplicationController", "StatefulSet", "Job", "DaemonSet")
# those whose replacement may land on another node (a DaemonSet's stays on its node)
MOVABLE_KINDS = frozenset(RECREATING_KINDS) - {"DaemonSet"}
# the cause of a victim whose controller this engine does not know
CAUSE_UNKNOWN = "unknownController"
TEMPLATE_HASH_LABEL = "pod-template-hash"


@dataclass(frozen=True, slots=True)
class Owner:
    """A pod's controller: its kind and name, and the Deployment above a ReplicaSet."""

    kind: str
    name: str
    deployment: str | None = None

    @property
    def cause(self) -> str:
        """How the victim comes back: the controller kind, ``Deployment`` through its ReplicaSet."""
        if self.kind == "ReplicaSet" and self.deployment:
            return "Deployment"
        return self.kind if self.kind in RECREATING_KINDS else CAUSE_UNKNOWN

    @property
    def recreates(self) -> bool:
        return self.kind in RECREATING_KINDS

    @property
    def moves(self) -> bool:
        """Its replacement may be bound to another node."""
        return self.kind in MOVABLE_KINDS

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "name": self.name}
        if self.deployment:
            d["deployment"] = self.deployment
        return d


def owner_of(pod: Pod) -> Owner | None:
    """The pod's controller (``ownerReferences`` with ``controller: true``), or None."""
    meta = pod.raw.get("metadata") or {}
    for ref in meta.get("ownerReferences") or ():
        if not isinstance(ref, Mapping) or not ref.get("controller"):
            continue
        kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
        deployment = None
        h = pod.labels.get(TEMPLATE_HASH_LABEL)
        # the Deployment controller names its ReplicaSets <deployment>-<pod-template-hash>
        if kind == "ReplicaSet" and h and name.endswith(f"-{h}") and len(name) > len(h) + 1:
            deployment = name[: -len(h) - 1]
        return Owner(kind, name, deployment)
    return None


def owned_by_pod(pod: Pod) -> list[dict[str, Any]]:
    """``ownerReferences`` of an object the pod controls (a claim made for it)."""
    return [
        {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid, "controller": True}
    ]
