"""TaintToleration: Filter, PreScore, Score and NormalizeScore (upstream ``plugins/tainttoleration``).

Filter: a node with a ``NoSchedule`` or ``NoExecute`` taint that the pod does
not tolerate is rejected (UnschedulableAndUnresolvable; since v1.35 the
reason no longer names the taint).  Score: the number of ``PreferNoSchedule``
taints the pod does not tolerate, normalized reversed so that fewer is better.
Toleration operators ``Gt``/``Lt`` need the alpha gate
TaintTolerationComparisonOperators, off in v1.36: they tolerate nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..framework.cycle_state import CycleState, StateData, missing_state
from ..framework.node_info import NodeInfo
from ..framework.signers import TOLERATIONS, Fragments, tolerations_signer
from ..framework.status import Status
from ..objects import Pod, Taint, Toleration
from ..objects.taints import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE
from .helper import DefaultNormalized, NodeLocalFilter, signatures_for

__all__ = [
    "ERR_REASON_NOT_MATCH",
    "ERR_REASON_UNTOLERATED",
    "NAME",
    "PLUGIN",
    "TaintToleration",
    "count_intolerable_prefer_no_schedule",
    "new",
]

NAME = "TaintToleration"
PRE_SCORE_STATE_KEY = "PreScore" + NAME
# Upstream still exports this constant, but Filter reports ERR_REASON_UNTOLERATED.
ERR_REASON_NOT_MATCH = "node(s) had taints that the pod didn't tolerate"
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"


def _has_untolerated(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> bool:
    for taint in taints:
        effect = taint.effect
        if effect != NO_SCHEDULE and effect != NO_EXECUTE:
            continue
        for tol in tolerations:
            if tol.tolerates(taint):
                break
        else:
            return True
    return False


def count_intolerable_prefer_no_schedule(
    taints: Sequence[Taint], tolerations: Sequence[Toleration]
) -> int:
    n = 0
    for taint in taints:
        if taint.effect != PREFER_NO_SCHEDULE:
            continue
        for tol in tolerations:
            if tol.tolerates(taint):
                break
        else:
            n += 1
    return n


def prefer_no_schedule_tolerations(tolerations: Sequence[Toleration]) -> tuple[Toleration, ...]:
    # an empty effect matches every effect, PreferNoSchedule included
    return tuple(t for t in tolerations if not t.effect or t.effect == PREFER_NO_SCHEDULE)


class _PreScoreState(StateData):
    __slots__ = ("tolerations",)

    def __init__(self, tolerations: tuple[Toleration, ...]) -> None:
        self.tolerations = tolerations


class TaintToleration(DefaultNormalized, NodeLocalFilter):
    NAME = NAME
    REASON = ERR_REASON_UNTOLERATED
    REVERSE_SCORES = True
    # a node's score, too, reads the pod's spec and that node alone (framework/node_memo.py)
    node_local_score = True
    __slots__ = ()

    # -- Filter ------------------------------------------------------------------
    def fits(self, pod: Pod, node_info: NodeInfo) -> bool:
        taints = node_info.node.taints
        return not taints or not _has_untolerated(taints, pod.tolerations)

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        tab, rows = signatures_for(self.handle, nodes)
        tolerations = pod.tolerations
        return tab.by_taint_set(
            rows, lambda taints: not _has_untolerated(taints, tolerations), np.bool_
        )

    # -- Score -------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        state.write(
            PRE_SCORE_STATE_KEY, _PreScoreState(prefer_no_schedule_tolerations(pod.tolerations))
        )
        return None

    def _tolerations(self, state: CycleState) -> tuple[Toleration, ...] | Status:
        s = state.get(PRE_SCORE_STATE_KEY)
        if not isinstance(s, _PreScoreState):
            return missing_state(PRE_SCORE_STATE_KEY, "failed to read", NAME)
        return s.tolerations

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        tolerations = self._tolerations(state)
        if isinstance(tolerations, Status):
            return tolerations
        taints = node_info.node.taints
        if not taints:
            return 0
        return count_intolerable_prefer_no_schedule(taints, tolerations)

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        tolerations = self._tolerations(state)
        if isinstance(tolerations, Status):
            raise RuntimeError(tolerations.message())
        tab, rows = signatures_for(self.handle, nodes)
        return tab.by_taint_set(
            rows,
            lambda taints: count_intolerable_prefer_no_schedule(taints, tolerations),
            np.int64,
        )

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its answers depend on the pod's tolerations."""
        return [(TOLERATIONS, tolerations_signer(pod))], None


PLUGIN = TaintToleration
new = TaintToleration.new
