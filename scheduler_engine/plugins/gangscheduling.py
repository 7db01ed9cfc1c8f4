"""GangScheduling: all-or-nothing pod groups (upstream ``plugins/gangscheduling``, v1.36 alpha).

Enabled by the ``GangScheduling`` feature gate (which needs ``GenericWorkload``).
For pods with ``spec.schedulingGroup`` whose native ``PodGroup`` has the
``gang`` policy:

* PreEnqueue holds a pod back until its PodGroup exists and the group has at
  least ``minCount`` pods (assigned or not);
* Permit waits (five minutes) until ``minCount`` pods of the group are
  scheduled (assigned or assumed), then allows every assumed member waiting.

In a pod-group cycle (``scheduler.schedule_one_podgroup``) the Permit answer
decides whether the group as a whole is schedulable; nothing waits there.
"""

from __future__ import annotations

from typing import Any

from ..framework.cycle_state import CycleState
from ..framework.status import Code, Status
from ..objects import Pod
from ..objects.podgroup import pod_group_name
from .helper import HandlePlugin, pod_group_state

__all__ = [
    "MSG_WAITING_FOR_MIN_COUNT_SCHEDULED",
    "MSG_WAITING_FOR_MIN_COUNT_TO_APPEAR",
    "NAME",
    "PERMIT_TIMEOUT_SECONDS",
    "PLUGIN",
    "GangScheduling",
    "new",
]

NAME = "GangScheduling"
PERMIT_TIMEOUT_SECONDS = 300.0

MSG_WAITING_FOR_MIN_COUNT_TO_APPEAR = (
    "waiting for minCount pods from a gang to appear in scheduling queue"
)
MSG_WAITING_FOR_MIN_COUNT_SCHEDULED = "waiting for minCount pods from a gang to be scheduled"


def waiting_for_pod_group(name: str) -> str:
    # upstream's wording, "pods's" included
    return f'waiting for pods\'s pod group "{name}" to appear in scheduling queue'


class GangScheduling(HandlePlugin):
    NAME = NAME

    def _group(self, pod: Pod) -> tuple[str, Any] | None:
        name = pod_group_name(pod.raw)
        if name is None or self.handle is None:
            return None
        return name, self.handle.native_pod_group(pod.namespace, name)

    def pre_enqueue(self, pod: Pod) -> Status | None:
        found = self._group(pod)
        if found is None:
            return None
        name, pg = found
        if pg is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, waiting_for_pod_group(name))
        if pg.min_count is None:
            return None
        st = pod_group_state(self.handle, pg.key)
        if isinstance(st, Status):
            return st
        if st.all_pods_count() < pg.min_count:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_WAITING_FOR_MIN_COUNT_TO_APPEAR)
        return None

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        found = self._group(pod)
        if found is None:
            return None, 0.0
        name, pg = found
        if pg is None:
            return (
                Status(
                    Code.ERROR,
                    f'failed to get podGroup {pod.namespace}/{name}: podgroup.scheduling.k8s.io "{name}" not found',
                ),
                0.0,
            )
        if pg.min_count is None:
            return None, 0.0
        st = pod_group_state(self.handle, pg.key)
        if isinstance(st, Status):
            return st, 0.0
        if st.scheduled_pods_count() < pg.min_count:
            return Status(Code.WAIT, MSG_WAITING_FOR_MIN_COUNT_SCHEDULED), PERMIT_TIMEOUT_SECONDS
        # quorum: allow every assumed member waiting on Permit
        for uid in list(st.assumed):
            wp = self.handle.get_waiting_pod(uid)
            if wp is not None:
                wp.allow(NAME)
        return None, 0.0


PLUGIN = GangScheduling
new = GangScheduling.new
