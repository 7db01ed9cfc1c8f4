"""TaintToleration: Filter, PreScore, Score and NormalizeScore (upstream ``plugins/tainttoleration``).

Filter: a node with a ``NoSchedule`` or ``NoExecute`` taint that the pod does
not tolerate is rejected (UnschedulableAndUnresolvable; since v1.35 the
reason no longer names the taint).  Score: the number of ``PreferNoSchedule``
taints the pod does not tolerate, normalized reversed so that fewer is better.
Toleration operators ``Gt``/``Lt`` need the alpha gate
TaintTolerationComparisonOperators, off in v1.36: they tolerate nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState, StateData, missing_state
from ..framework.interfaces import MAX_NODE_SCORE, Handle, NodeScore
from ..framework.node_info import NodeInfo
from ..framework.status import Code, Status
from ..objects import Pod, Taint, Toleration
from ..objects.taints import NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE
from .helper import default_normalize_score, default_normalize_scores_array, signatures_for

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

    def clone(self) -> _PreScoreState:
        return self


class TaintToleration:
    NAME = NAME
    # answers from the pod's spec and that one node alone (framework/node_memo.py)
    node_local_filter = True
    node_local_score = True

    __slots__ = ("handle",)

    def __init__(self, handle: Handle | None = None) -> None:
        self.handle = handle

    # -- Filter ------------------------------------------------------------------
    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        taints = node_info.node.taints
        if not taints or not _has_untolerated(taints, pod.tolerations):
            return None
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_UNTOLERATED)

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

    def score_extensions(self) -> TaintToleration:
        return self

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        return default_normalize_score(MAX_NODE_SCORE, True, scores)

    def normalize_score_batch(self, state: CycleState, pod: Pod, scores: np.ndarray) -> None:
        default_normalize_scores_array(MAX_NODE_SCORE, True, scores)


PLUGIN = TaintToleration


def new(args: Mapping[str, Any], handle: Handle) -> TaintToleration:
    return TaintToleration(handle)
