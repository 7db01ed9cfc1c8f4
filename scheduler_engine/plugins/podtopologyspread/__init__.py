"""PodTopologySpread: PreFilter (+ AddPod/RemovePod), Filter, PreScore, Score, NormalizeScore.

Upstream counterpart: ``pkg/scheduler/framework/plugins/podtopologyspread``
(v1.36).  Hard constraints (``whenUnsatisfiable: DoNotSchedule``) filter nodes
by skew; soft ones (``ScheduleAnyway``) score them.  Pods without constraints
of their own get the profile's default constraints (the system defaults:
hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway), with a selector
taken from the Services, ReplicationControllers, ReplicaSets and StatefulSets
that select the pod (upstream ``helper.DefaultSelector``).

Feature gates as in v1.36: NodeInclusionPolicyInPodTopologySpread is GA (the
policies always apply), MatchLabelKeysInPodTopologySpread is on (keys are merged
into the selector here too; merging again what the API server already merged
changes nothing), TaintTolerationComparisonOperators is off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...framework import Handle
from ...framework.signers import Fragments, unsignable
from ...framework.status import Status
from ...objects import Pod
from .common import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    NAME,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    SYSTEM_DEFAULT_CONSTRAINTS,
    SYSTEM_DEFAULTING,
    Constraint,
    CriticalPaths,
    _filter_constraints,
    default_selector,
)
from .filtering import Filtering, PreFilterState
from .scoring import PreScoreState, Scoring, topology_normalizing_weight

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "NAME",
    "PLUGIN",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "CriticalPaths",
    "PodTopologySpread",
    "PreFilterState",
    "PreScoreState",
    "default_selector",
    "new",
    "topology_normalizing_weight",
]


class PodTopologySpread(Filtering, Scoring):
    NAME = NAME

    def __init__(
        self,
        default_constraints: Sequence[Mapping[str, Any]] = (),
        system_defaulted: bool = False,
        handle: Handle | None = None,
    ) -> None:
        self.default_constraints = tuple(default_constraints)
        self.system_defaulted = system_defaulted
        self.handle = handle

    # -- constraints -----------------------------------------------------------
    def _objects_of_kind(self, kind: str) -> list[Mapping[str, Any]]:
        cluster = getattr(self.handle, "cluster", None) if self.handle is not None else None
        if cluster is None:
            return []
        return cluster.of_kind(kind)

    def _default_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        constraints = _filter_constraints(self.default_constraints, pod.labels, action)
        if not constraints:
            return []
        selector = default_selector(pod, self._objects_of_kind)
        if selector.empty:
            return []
        for c in constraints:
            c.selector = selector
        return constraints

    def get_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """The pod's own constraints for ``action``, else the defaults; raises SelectorError."""
        if pod.topology_spread_constraints:
            # depends only on the pod: parse once
            cache = pod.cache.get(NAME)
            if cache is None:
                cache = pod.cache[NAME] = {}
            got = cache.get(action)
            if got is None:
                got = cache[action] = _filter_constraints(
                    pod.topology_spread_constraints, pod.labels, action
                )
            return got
        return self._default_constraints(pod, action)

    # -- SignPod (OpportunisticBatching) ---------------------------------------
    @property
    def refuses_every_pod(self) -> bool:
        """Default constraints (the system ones included) refuse every pod."""
        return bool(self.default_constraints)

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Spreading depends on other pods: a pod with constraints, its own or the
        plugin's defaults (whether or not they would select it), is not signable."""
        if pod.spec.get("topologySpreadConstraints"):
            return unsignable("pods with topology constraints are not signable")
        if self.default_constraints:
            return unsignable("pods with default topology constraints are not signable")
        return [], None

    # -- PreFilter ---------------------------------------------------------------


PLUGIN = PodTopologySpread


def new(args: Mapping[str, Any], handle: Handle | None) -> PodTopologySpread:
    """Build from PodTopologySpreadArgs (``defaultConstraints``, ``defaultingType``)."""
    args = args or {}
    defaulting = args.get("defaultingType") or SYSTEM_DEFAULTING
    if defaulting == SYSTEM_DEFAULTING:
        return PodTopologySpread(SYSTEM_DEFAULT_CONSTRAINTS, True, handle)
    return PodTopologySpread(tuple(args.get("defaultConstraints") or ()), False, handle)
