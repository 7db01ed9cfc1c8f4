"""Per-node aggregate state (upstream ``NodeInfo``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..objects import Node, Pod, Resource

__all__ = ["HostPortInfo", "ImageStateSummary", "NodeInfo"]

_ANY_IP = "0.0.0.0"


class HostPortInfo:
    """Used host ports: ip → {(protocol, port)}, with upstream's wildcard rules.

    A plain set, as upstream's: removing one pod frees its ports even if
    another pod on the node declared the same one.
    """

    __slots__ = ("_ports",)

    def __init__(self) -> None:
        self._ports: dict[str, set[tuple[str, int]]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return ip or _ANY_IP, protocol or "TCP"

    def add(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        self._ports.setdefault(ip, set()).add((protocol, port))

    def remove(self, ip: str, protocol: str, port: int) -> None:
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        bucket = self._ports.get(ip)
        if bucket is None:
            return
        bucket.discard((protocol, port))
        if not bucket:
            del self._ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == _ANY_IP:
            return any(pp in bucket for bucket in self._ports.values())
        return pp in self._ports.get(ip, ()) or pp in self._ports.get(_ANY_IP, ())

    def __len__(self) -> int:
        return sum(len(b) for b in self._ports.values())

    def clone(self) -> HostPortInfo:
        c = HostPortInfo()
        c._ports = {ip: set(b) for ip, b in self._ports.items()}
        return c


class ImageStateSummary:
    """An image on a node: its size and on how many nodes it is present."""

    __slots__ = ("num_nodes", "size")

    def __init__(self, size: int, num_nodes: int) -> None:
        self.size = size
        self.num_nodes = num_nodes


# what a NodeInfo sums up from its pods
_FROM_PODS = (
    "pods",
    "pods_with_affinity",
    "pods_with_required_anti_affinity",
    "requested",
    "non_zero_requested",
    "used_ports",
    "pvc_ref_counts",
)


class NodeInfo:
    __slots__ = (
        "generation",
        "image_states",
        "index",
        "node",
        "non_zero_requested",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "pvc_ref_counts",
        "requested",
        "used_ports",
    )

    def __init__(self, node: Node, index: int = -1) -> None:
        self.node = node
        # position in the snapshot's node list (rows of vectorised tables)
        self.index = index
        self.pods: list[Pod] = []
        self.pods_with_affinity: list[Pod] = []
        self.pods_with_required_anti_affinity: list[Pod] = []
        self.requested = Resource()
        # only milli_cpu and memory are used: requests with upstream's defaults for zero
        self.non_zero_requested = Resource()
        self.used_ports = HostPortInfo()
        self.image_states: dict[str, ImageStateSummary] = {}
        self.pvc_ref_counts: dict[str, int] = {}
        self.generation = 0

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def allocatable(self) -> Resource:
        return self.node.allocatable

    def add_pod(self, pod: Pod) -> None:
        self.pods.append(pod)
        if _has_affinity_block(pod):
            self.pods_with_affinity.append(pod)
        if pod.required_anti_affinity_terms:
            self.pods_with_required_anti_affinity.append(pod)
        self._update(pod, 1)

    def remove_pod(self, pod: Pod) -> bool:
        """Remove by key; False when the pod is not on this node."""
        key = pod.key
        for i, p in enumerate(self.pods):
            if p.key == key:
                del self.pods[i]
                break
        else:
            return False
        if self.pods_with_affinity:
            self.pods_with_affinity = [p for p in self.pods_with_affinity if p.key != key]
        if self.pods_with_required_anti_affinity:
            self.pods_with_required_anti_affinity = [
                p for p in self.pods_with_required_anti_affinity if p.key != key
            ]
        self._update(pod, -1)
        return True

    def remove_pods(self, pods: Sequence[Pod]) -> None:
        """:meth:`remove_pod` for each of ``pods`` in turn, in one pass over the node's pods
        when no two of those share a key (each key then names one pod)."""
        held = {p.key for p in self.pods}
        if len(held) != len(self.pods):
            for pod in pods:
                self.remove_pod(pod)
            return
        gone: set[str] = set()
        for pod in pods:
            if pod.key in held and pod.key not in gone:
                gone.add(pod.key)
                self._update(pod, -1)
        if not gone:
            return
        self.pods[:] = [p for p in self.pods if p.key not in gone]
        if self.pods_with_affinity:
            self.pods_with_affinity = [p for p in self.pods_with_affinity if p.key not in gone]
        if self.pods_with_required_anti_affinity:
            self.pods_with_required_anti_affinity = [
                p for p in self.pods_with_required_anti_affinity if p.key not in gone
            ]

    def replace_pod(self, old: Pod, new: Pod) -> None:
        """Hold ``new`` where ``old`` was: a pod parsed alike (same requests, ports,
        claims, affinity), so every sum stays; the generation moves on."""
        for pods in (self.pods, self.pods_with_affinity, self.pods_with_required_anti_affinity):
            for i, p in enumerate(pods):
                if p is old:
                    pods[i] = new
                    break
        self.generation += 1

    def _update(self, pod: Pod, sign: int) -> None:
        self.requested.add(pod.requests, sign)
        self.non_zero_requested.milli_cpu += sign * pod.non0_cpu
        self.non_zero_requested.memory += sign * pod.non0_mem
        for hp in pod.host_ports:
            if sign > 0:
                self.used_ports.add(hp.host_ip, hp.protocol, hp.port)
            else:
                self.used_ports.remove(hp.host_ip, hp.protocol, hp.port)
        for claim in pod.pvc_names:
            key = f"{pod.namespace}/{claim}"
            n = self.pvc_ref_counts.get(key, 0) + sign
            if n > 0:
                self.pvc_ref_counts[key] = n
            else:
                self.pvc_ref_counts.pop(key, None)
        self.generation += 1

    def reset_pods(self, pods: Iterable[Pod]) -> None:
        """Hold exactly ``pods``, in that order, as a new info of the node would.

        The object stays the same (tables keyed by it stay valid) and its
        generation moves on, so views counted from it see the change.
        """
        generation = self.generation
        fresh = NodeInfo(self.node, self.index)
        for pod in pods:
            fresh.add_pod(pod)
        for name in _FROM_PODS:
            setattr(self, name, getattr(fresh, name))
        self.generation = generation + 1

    def clone(self) -> NodeInfo:
        c = NodeInfo(self.node, self.index)
        c.pods = list(self.pods)
        c.pods_with_affinity = list(self.pods_with_affinity)
        c.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        c.requested = self.requested.clone()
        c.non_zero_requested = self.non_zero_requested.clone()
        c.used_ports = self.used_ports.clone()
        c.image_states = self.image_states
        c.pvc_ref_counts = dict(self.pvc_ref_counts)
        c.generation = self.generation
        return c

    def __repr__(self) -> str:
        return f"NodeInfo({self.node.name}, pods={len(self.pods)})"


def _has_affinity_block(pod: Pod) -> bool:
    # upstream counts a pod with an (even empty) podAffinity/podAntiAffinity block
    aff = pod.spec.get("affinity")
    return isinstance(aff, dict) and (
        aff.get("podAffinity") is not None or aff.get("podAntiAffinity") is not None
    )
