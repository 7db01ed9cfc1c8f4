"""SchedulingGates: a PreEnqueue plugin (upstream ``plugins/schedulinggates``).

A pod with ``spec.schedulingGates`` waits outside the active queue until every
gate is removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..framework.interfaces import Handle
from ..framework.status import Code, Status
from ..objects import Pod

__all__ = ["NAME", "PLUGIN", "SchedulingGates", "gates_message", "new"]

NAME = "SchedulingGates"


def gates_message(gates: tuple[str, ...]) -> str:
    # upstream formats the gate names as a Go slice (%v): "[a b]"
    return f"waiting for scheduling gates: [{' '.join(gates)}]"


class SchedulingGates:
    NAME = NAME

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.scheduling_gates:
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, gates_message(pod.scheduling_gates))


PLUGIN = SchedulingGates


def new(args: Mapping[str, Any], handle: Handle) -> SchedulingGates:
    return SchedulingGates()
