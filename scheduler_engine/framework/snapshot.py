"""The node infos one scheduling cycle sees (upstream ``cache.Snapshot``).

Nodes are listed in the order of upstream's node tree: zones in the order
they first appear, nodes taken round-robin across zones.  That order decides
which nodes are looked at first when ``percentageOfNodesToScore`` cuts the
search short.

Every change to a node's pods goes through :meth:`Snapshot.add_pod` or
:meth:`Snapshot.remove_pod`, which tell the registered listeners (vectorised
tables keep their rows in step that way).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..objects import Node, Pod
from .node_info import ImageStateSummary, NodeInfo

__all__ = ["STEADY_EXTENSIONS", "Snapshot", "node_tree_order"]

# Keys of the extensions that stay right across runs on one long-lived snapshot
# (a warm cluster's): they follow ``change_log`` or their listener, or depend on
# the nodes alone, and they check the node infos are the same objects.  Their
# owners add the keys; every other extension is dropped after a run.
STEADY_EXTENSIONS: set[str] = set()


def node_tree_order(nodes: Iterable[Node]) -> list[Node]:
    zones: dict[str, list[Node]] = {}
    for n in nodes:
        zones.setdefault(n.zone_key, []).append(n)
    out: list[Node] = []
    lists = list(zones.values())
    i = 0
    while len(out) < sum(len(z) for z in lists):
        for z in lists:
            if i < len(z):
                out.append(z[i])
        i += 1
    return out


class Snapshot:
    def __init__(
        self,
        nodes: Iterable[Node],
        pods: Iterable[Pod] = (),
        namespaces: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        nodes = list(nodes)
        ordered = node_tree_order(nodes)
        self.node_info_list: list[NodeInfo] = [NodeInfo(n, i) for i, n in enumerate(ordered)]
        self._by_name: dict[str, NodeInfo] = {ni.name: ni for ni in self.node_info_list}
        # namespace name → its labels (for namespaceSelector in affinity terms)
        self.namespace_labels: dict[str, Mapping[str, str]] = dict(namespaces or {})
        self.listeners: list[Callable[[NodeInfo], None]] = []
        # index of the node touched by every add_pod/remove_pod, in order: lets
        # incremental views refresh only what changed since they last looked
        self.change_log: list[int] = []
        self._with_affinity: list[NodeInfo] | None = None
        self._with_required_anti_affinity: list[NodeInfo] | None = None
        # rows of the nodes with required-anti-affinity pods, built on first use
        self._anti_affinity_rows: set[int] | None = None
        # pods bound to nodes absent from the snapshot are ignored, as upstream's cache does
        for p in pods:
            ni = self._by_name.get(p.node_name)
            if ni is not None:
                ni.add_pod(p)
        self._compute_image_states(nodes)
        # vectorised views keyed by their owner (see NodeTable.of)
        self.extensions: dict[str, Any] = {}

    def _compute_image_states(self, nodes_in_cache_order: list[Node]) -> None:
        # Upstream's cache keys images by the names nodes report, and keeps the
        # size from the first node it saw carrying that name.
        sizes: dict[str, int] = {}
        holders: dict[str, int] = {}
        for node in nodes_in_cache_order:
            names = {name for img in node.images for name in img.names}
            for img in node.images:
                for name in img.names:
                    sizes.setdefault(name, img.size)
            for name in names:
                holders[name] = holders.get(name, 0) + 1
        summaries = {name: ImageStateSummary(sizes[name], holders[name]) for name in sizes}
        for ni in self.node_info_list:
            ni.image_states = {
                name: summaries[name] for img in ni.node.images for name in img.names
            }

    @classmethod
    def from_node_infos(
        cls,
        node_infos: Iterable[NodeInfo],
        namespaces: Mapping[str, Mapping[str, str]] | None = None,
    ) -> Snapshot:
        """A snapshot over node infos already holding their pods, kept in the given order.

        The infos become the snapshot's own (not copied); their ``index`` must be
        their position.  Image states are left as the infos carry them.
        """
        s = cls.__new__(cls)
        s.node_info_list = list(node_infos)
        s._by_name = {ni.name: ni for ni in s.node_info_list}
        s.namespace_labels = dict(namespaces or {})
        s.listeners = []
        s.change_log = []
        s._with_affinity = None
        s._with_required_anti_affinity = None
        s._anti_affinity_rows = None
        s.extensions = {}
        return s

    def copy(self) -> Snapshot:
        """An independent copy (node infos cloned, nodes and pods shared) to schedule on.

        Lets a caller keep one snapshot of the running pods warm and run many
        short simulations over it without paying ``__init__``'s pod-by-pod build.
        """
        return Snapshot.from_node_infos(
            [ni.clone() for ni in self.node_info_list], self.namespace_labels
        )

    # -- lookups -------------------------------------------------------------
    def get(self, name: str) -> NodeInfo | None:
        return self._by_name.get(name)

    def __len__(self) -> int:
        return len(self.node_info_list)

    def have_pods_with_affinity(self) -> list[NodeInfo]:
        if self._with_affinity is None:
            self._with_affinity = [ni for ni in self.node_info_list if ni.pods_with_affinity]
        return self._with_affinity

    def has_pods_with_required_anti_affinity(self) -> bool:
        """Whether any node holds a pod with required anti-affinity (kept per change)."""
        if self._anti_affinity_rows is None:
            self._anti_affinity_rows = {
                ni.index for ni in self.node_info_list if ni.pods_with_required_anti_affinity
            }
        return bool(self._anti_affinity_rows)

    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        if self._with_required_anti_affinity is None:
            self._with_required_anti_affinity = [
                ni for ni in self.node_info_list if ni.pods_with_required_anti_affinity
            ]
        return self._with_required_anti_affinity

    def node_changed(self, ni: NodeInfo) -> None:
        """Announce that the pods of ``ni`` (one of the snapshot's own) changed."""
        self.change_log.append(ni.index)
        self._with_affinity = None
        self._with_required_anti_affinity = None
        rows = self._anti_affinity_rows
        if rows is not None:
            # kept up to date (one set operation) rather than rebuilt
            if ni.pods_with_required_anti_affinity:
                rows.add(ni.index)
            else:
                rows.discard(ni.index)
        for cb in self.listeners:
            cb(ni)

    # -- changes -------------------------------------------------------------
    def add_pod(self, pod: Pod, node_name: str) -> NodeInfo:
        ni = self._by_name[node_name]
        ni.add_pod(pod)
        self.node_changed(ni)
        return ni

    def remove_pod(self, pod: Pod, node_name: str) -> bool:
        ni = self._by_name.get(node_name)
        if ni is None or not ni.remove_pod(pod):
            return False
        self.node_changed(ni)
        return True
