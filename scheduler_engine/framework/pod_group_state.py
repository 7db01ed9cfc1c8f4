"""Which pods of each pod group exist, are assigned, assumed or still unscheduled.

Upstream keeps this in the scheduler cache (``backend/cache/podgroupstate.go``)
and copies it into each cycle's snapshot; a simulation has one state, so the
cache's and the snapshot's views are the same object.  A pod counts as
*scheduled* when it is assigned (has a node) or assumed (placed in this run,
binding or being tried in a pod-group cycle).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..objects.podgroup import pod_group_name

if TYPE_CHECKING:  # pragma: no cover
    from ..objects import Pod

__all__ = ["PodGroupState", "PodGroupStates"]


class PodGroupState:
    __slots__ = ("all_pods", "assigned", "assumed")

    def __init__(self) -> None:
        # uid → pod (insertion order: snapshot order)
        self.all_pods: dict[str, Pod] = {}
        self.assigned: set[str] = set()
        self.assumed: dict[str, Pod] = {}

    def all_pods_count(self) -> int:
        return len(self.all_pods)

    def scheduled_pods_count(self) -> int:
        return len(self.assigned) + len(self.assumed)

    def scheduled_pods(self) -> list[Pod]:
        return [self.all_pods[u] for u in self.assigned] + list(self.assumed.values())

    def unscheduled_pods(self) -> list[Pod]:
        return [
            p for u, p in self.all_pods.items() if u not in self.assigned and u not in self.assumed
        ]


class PodGroupStates:
    """Pod group states by ``namespace/name``."""

    def __init__(self) -> None:
        self._states: dict[str, PodGroupState] = {}

    @staticmethod
    def key_of(pod: Pod) -> str | None:
        name = pod_group_name(pod.raw)
        return f"{pod.namespace}/{name}" if name else None

    def add_pods(self, pods: Iterable[Pod]) -> None:
        for p in pods:
            k = self.key_of(p)
            if k is None:
                continue
            st = self._states.setdefault(k, PodGroupState())
            st.all_pods[p.uid] = p
            if p.node_name:
                st.assigned.add(p.uid)

    def __bool__(self) -> bool:
        return bool(self._states)

    def get(self, key: str) -> PodGroupState | None:
        return self._states.get(key)

    def assume(self, pod: Pod) -> None:
        k = self.key_of(pod)
        st = self._states.get(k) if k else None
        if st is not None and pod.uid in st.all_pods:
            st.assumed[pod.uid] = pod

    def forget(self, pod: Pod) -> None:
        k = self.key_of(pod)
        st = self._states.get(k) if k else None
        if st is not None:
            st.assumed.pop(pod.uid, None)

    def delete(self, pod: Pod) -> None:
        k = self.key_of(pod)
        st = self._states.get(k) if k else None
        if st is not None:
            uid = pod.uid
            st.all_pods.pop(uid, None)
            st.assigned.discard(uid)
            st.assumed.pop(uid, None)
