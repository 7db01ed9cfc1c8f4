"""The scheduling queue of a one-shot simulation (upstream ``backend/queue``, simplified).

What a real kube-scheduler reaches at steady state, made deterministic:

* Every pending pod passes the PreEnqueue plugins of its profile first; a pod
  a PreEnqueue plugin rejects (scheduling gates, ...) never enters activeQ and
  is reported with that plugin's message.
* activeQ is ordered by the profile's QueueSort ``less`` (PrioritySort:
  higher priority first, then earlier timestamp).  A pod's timestamp is its
  ``creationTimestamp``; pods that tie keep the order of the snapshot, which
  is how a running scheduler meets pods created one after another.
* Each popped pod gets one scheduling attempt per round.  A pod whose
  PostFilter (preemption) nominated a node waits for the next round: its
  victims' deletion re-queues it together with every other pod that event
  re-queues, and they go in queue order (a higher-priority pod may take the
  freed room: it ignores nominations of lower priority).  Until then the
  nomination holds the room against pods of lower or equal priority.
* Pods left unschedulable are retried in further rounds, in queue order,
  when a cluster event after their last attempt is one that a plugin which
  rejected them registers (upstream queueing hints, ``isPodWorthRequeuing``):
  a bind is a pod Add, an eviction or an assumed pod forgotten in the binding
  cycle a pod Delete.  NodeResourcesFit re-queues on Delete only, node-only
  plugins (taints, node affinity, ...) never; see
  ``scheduler_engine.scheduler.requeue.REQUEUE_EVENTS``.  A pod not retried keeps the
  message of its earlier attempt, as its event in a real cluster does (until
  upstream's five-minute flush, which a simulation does not model).  Rounds
  stop when no pod is worth retrying (or after ``max_rounds``).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from ..framework.interfaces import QueuedPodInfo

__all__ = ["ActiveQueue"]

Less = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


class _Entry:
    __slots__ = ("less", "qpi", "seq")

    def __init__(self, qpi: QueuedPodInfo, seq: int, less: Less) -> None:
        self.qpi = qpi
        self.seq = seq
        self.less = less

    def __lt__(self, other: _Entry) -> bool:
        less = self.less
        if less(self.qpi, other.qpi):
            return True
        if less(other.qpi, self.qpi):
            return False
        # neither is first: the order pods arrived in (snapshot order)
        return self.seq < other.seq


class ActiveQueue:
    """A heap ordered by a QueueSort ``less``; ``seq`` (arrival order) breaks ties."""

    def __init__(self, less: Less) -> None:
        self.less = less
        self._heap: list[_Entry] = []

    def push(self, qpi: QueuedPodInfo, seq: int) -> None:
        heapq.heappush(self._heap, _Entry(qpi, seq, self.less))

    def pop(self) -> tuple[QueuedPodInfo, int]:
        e = heapq.heappop(self._heap)
        return e.qpi, e.seq

    def __len__(self) -> int:
        return len(self._heap)

    def __bool__(self) -> bool:
        return bool(self._heap)
