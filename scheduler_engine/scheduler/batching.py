"""OpportunisticBatching: one profile's stored results, offered to the next identical pod
(upstream ``framework/runtime/batch.go``).

A cycle that chose a node among scored ones keeps the other scored nodes (the
heap upstream popped its choice from), with the pod's signature. The next cycle, for a pod of that signature,
is offered the head of that list as a hint, when the previous pod's node can
no longer take it (so the previous scores still rank the rest). The rules
are in ``docs/fidelity.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["GATE", "MAX_BATCH_AGE", "OpportunisticBatch"]

GATE = "OpportunisticBatching"
# seconds a stored list may serve (upstream maxBatchAge, 500 ms); the simulated clock
MAX_BATCH_AGE = 0.5


class Hints(Protocol):
    """The scored nodes left; ``pop`` gives the next hint (a list: worst first)."""

    def __len__(self) -> int: ...

    def pop(self) -> str: ...


@dataclass(slots=True)
class _BatchState:
    signature: str
    nodes: Hints
    created: float


@dataclass(slots=True)
class OpportunisticBatch:
    """One profile's batch: what the last cycle stored, and that cycle."""

    state: _BatchState | None = None
    last_cycle: int = -1
    last_chosen: str = ""
    # pods placed on their hint (upstream batchedPods, for tests)
    batched_pods: int = 0
    # why the last hint was refused (upstream's flush reasons, for tests)
    last_refusal: str = field(default="")

    def node_hint(
        self,
        signature: str | None,
        cycle: int,
        now: float,
        rejected_on: Callable[[str], bool | None],
    ) -> str:
        """The hinted node for this cycle's pod, or "" (upstream ``GetNodeHint``).

        ``rejected_on(node)``: whether the Filter plugins reject the pod on ``node``
        (None when the node is gone).
        """
        if not self._usable(signature, cycle, now, rejected_on):
            return ""
        assert self.state is not None
        return self.state.nodes.pop()

    def _usable(
        self,
        signature: str | None,
        cycle: int,
        now: float,
        rejected_on: Callable[[str], bool | None],
    ) -> bool:
        st = self.state
        if st is None or not st.nodes:
            self.last_refusal = "empty"
            return False
        reason = ""
        if cycle != self.last_cycle + 1:
            reason = "pod_skipped"
        elif signature is None or signature != st.signature:
            reason = "pod_incompatible"
        elif now > st.created + MAX_BATCH_AGE:
            reason = "expired"
        else:
            rejected = rejected_on(self.last_chosen)
            if rejected is None:
                reason = "node_missing"
            elif not rejected:
                reason = "node_not_full"
        self.last_refusal = reason
        return not reason

    def store(
        self,
        signature: str | None,
        hinted: str,
        chosen: str,
        others: Hints | None,
        cycle: int,
        now: float,
    ) -> None:
        """Record a cycle that chose ``chosen`` (upstream ``StoreScheduleResults``).

        ``others``: the scored nodes left after ``chosen``, next hint popped first
        (None when the cycle did not score).
        """
        self.last_cycle = cycle
        self.last_chosen = chosen
        if hinted and hinted == chosen:
            self.batched_pods += 1
            return
        if signature is not None and others:
            self.state = _BatchState(signature, others, now)
        else:
            self.state = None
