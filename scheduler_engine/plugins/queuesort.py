"""PrioritySort: the QueueSort plugin (upstream ``plugins/queuesort``).

Higher ``spec.priority`` first; among equal priorities, the pod that entered
the queue earlier (``QueuedPodInfo.timestamp``) first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..framework.interfaces import Handle, QueuedPodInfo

__all__ = ["NAME", "PLUGIN", "PrioritySort", "new"]

NAME = "PrioritySort"


class PrioritySort:
    NAME = NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        p1 = a.pod.priority
        p2 = b.pod.priority
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)


PLUGIN = PrioritySort


def new(args: Mapping[str, Any], handle: Handle) -> PrioritySort:
    return PrioritySort()
