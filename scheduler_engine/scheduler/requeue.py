"""Which cluster events send a pod that a plugin rejected back to the queue.

Upstream's ``EventsToRegister`` and ``isPodWorthRequeuing``, for the events a
one-shot simulation has: an assigned pod added (a bind) or deleted.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["POD_ADD", "POD_DELETE", "REQUEUE_EVENTS", "worth_requeuing"]

# The cluster events of a one-shot simulation: an assigned pod added (a bind) or
# deleted (a preemption victim, or an assumed pod forgotten in the binding cycle).
POD_ADD = "add"
POD_DELETE = "delete"
_ANY_POD_EVENT = frozenset((POD_ADD, POD_DELETE))
# Which of those events each in-tree plugin registers (upstream EventsToRegister), so
# that a pod it rejected is tried again (isPodWorthRequeuing).  Plugins whose hints
# look closer at the pod (InterPodAffinity, PodTopologySpread, NodePorts, ...) are
# taken as always saying Queue; plugins not listed (out-of-tree, test plugins)
# are re-queued by any event.
REQUEUE_EVENTS: dict[str, frozenset[str]] = {
    "NodeResourcesFit": frozenset((POD_DELETE,)),
    "NodePorts": frozenset((POD_DELETE,)),
    "VolumeRestrictions": frozenset((POD_DELETE,)),
    "NodeVolumeLimits": frozenset((POD_DELETE,)),
    "InterPodAffinity": _ANY_POD_EVENT,
    "PodTopologySpread": _ANY_POD_EVENT,
    # PVC/PV and ResourceClaim updates follow other pods' binds and deletes
    "VolumeBinding": _ANY_POD_EVENT,
    "DynamicResources": _ANY_POD_EVENT,
    # node events (or the pod's own updates) only
    "NodeUnschedulable": frozenset(),
    "NodeName": frozenset(),
    "NodeAffinity": frozenset(),
    "TaintToleration": frozenset(),
    "NodeDeclaredFeatures": frozenset(),
    "VolumeZone": frozenset(),
    "SchedulingGates": frozenset(),
    "DefaultPreemption": frozenset(),
    # scheduler-plugins: pod deletes (node and NodeResourceTopology events aside)
    "NodeResourceTopologyMatch": frozenset((POD_DELETE,)),
    # Pod Add (and PodGroup Add/Update)
    "Coscheduling": frozenset((POD_ADD,)),
    "GangScheduling": frozenset((POD_ADD,)),
}


def worth_requeuing(
    rejectors: set[str] | None,
    events: set[str],
    plugin_events: Mapping[str, frozenset[str]] | None = None,
) -> bool:
    """Whether any of ``events`` re-queues a pod its ``rejectors`` turned down.

    ``None`` or no rejector (an error, no FitError) re-queues on any event, as
    upstream puts such pods in backoffQ.
    """
    if not events:
        return False
    if not rejectors:
        return True
    table = REQUEUE_EVENTS if not plugin_events else {**REQUEUE_EVENTS, **plugin_events}
    return any(events & table.get(p, _ANY_POD_EVENT) for p in rejectors)
