"""TopologyPlacementGenerator (upstream ``plugins/topologyaware``, v1.36 alpha).

Enabled by the ``TopologyAwareWorkloadScheduling`` gate.  For a PodGroup
with ``spec.schedulingConstraints.topology``, one placement per value of the
first constraint's node label key (nodes without the label are in none);
when members of the group already run, only their domain.  Without a
constraint, the whole cluster is the one placement.
"""

from __future__ import annotations

from typing import Any

from ..framework.cycle_state import CycleState
from ..framework.placement import Placement, PodGroupInfo
from ..framework.status import Code, Status
from .helper import HandlePlugin, pod_group_state

__all__ = ["NAME", "PLUGIN", "TopologyPlacementGenerator", "new"]

NAME = "TopologyPlacementGenerator"


class TopologyPlacementGenerator(HandlePlugin):
    NAME = NAME

    def generate_placements(
        self, state: CycleState, group: PodGroupInfo, parent: Placement
    ) -> tuple[list[Placement] | None, Status | None]:
        assert self.handle is not None
        pg = self.handle.native_pod_group(group.namespace, group.name)
        if pg is None:
            return None, Status(Code.ERROR, f'podgroup.scheduling.k8s.io "{group.name}" not found')
        key = pg.topology_key
        if key is None:
            return [parent], None
        st = pod_group_state(self.handle, group.key)
        if isinstance(st, Status):
            return None, st
        required: str | None = None
        scheduled = st.scheduled_pods()
        if scheduled:
            snap = self.handle.snapshot()
            domain = ""
            for p in scheduled:
                ni = snap.get(p.node_name)
                if ni is None:
                    return None, Status(
                        Code.ERROR,
                        "cannot determine domain for already scheduled pods: getting node for "
                        f'pod {p.key}: nodeinfo not found for node name "{p.node_name}"',
                    )
                d = ni.node.labels.get(key)
                if d is None:
                    return None, Status(
                        Code.ERROR,
                        "cannot determine domain for already scheduled pods: "
                        f"no topology domain found for pod {p.key}",
                    )
                if domain and domain != d:
                    return None, Status(
                        Code.ERROR,
                        "cannot determine domain for already scheduled pods: "
                        f"more than 1 domain found for pod group: {domain}, {d}",
                    )
                domain = d
            required = domain
        per_domain: dict[str, list[Any]] = {}
        for ni in parent.nodes:
            d = ni.node.labels.get(key)
            if d is not None and (required is None or required == d):
                per_domain.setdefault(d, []).append(ni)
        # upstream ranges over a Go map: the order is random; the seeded RNG stands in
        names = sorted(per_domain)
        self.handle.rng.shuffle(names)
        return [Placement(d, per_domain[d]) for d in names], None


PLUGIN = TopologyPlacementGenerator
new = TopologyPlacementGenerator.new
