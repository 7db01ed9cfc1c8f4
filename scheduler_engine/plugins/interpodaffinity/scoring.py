"""PreScore, Score and NormalizeScore (upstream ``scoring.go``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...framework.cycle_state import CycleState, StateData, missing_state
from ...framework.interfaces import MAX_NODE_SCORE, BasePlugin, NodeScore
from ...framework.node_info import NodeInfo
from ...framework.status import Code, Status
from ...objects import Pod
from .common import _SCORING_NODES_KEY, PRE_SCORE_STATE_KEY


def _scores_for_others(pod: Pod) -> bool:
    """Whether an existing pod's own terms can add to another pod's PreScore."""
    return bool(
        pod.required_affinity_terms
        or pod.preferred_affinity_terms
        or pod.preferred_anti_affinity_terms
    )


class _ScoringNodes:
    """Nodes with a pod whose terms can score an incoming pod, kept from the change log.

    Without preferred terms of its own, an incoming pod's PreScore only reads
    existing pods' required affinity and preferred (anti-)affinity terms: nodes
    whose pods have none (required anti-affinity alone, say) add nothing.
    """

    __slots__ = ("indices", "log_pos", "ordered")

    def __init__(self) -> None:
        self.indices: set[int] = set()
        self.ordered: list[NodeInfo] | None = None
        self.log_pos = -1

    def nodes(self, snapshot: Any) -> list[NodeInfo]:
        infos = snapshot.node_info_list
        log = snapshot.change_log
        if self.log_pos < 0 or len(log) - self.log_pos >= len(infos):
            changed: Iterable[int] = range(len(infos))
        else:
            changed = set(log[self.log_pos :])
        self.log_pos = len(log)
        indices = self.indices
        for i in changed:
            ni = infos[i]
            if any(_scores_for_others(p) for p in ni.pods_with_affinity):
                if i not in indices:
                    indices.add(i)
                    self.ordered = None
            elif i in indices:
                indices.discard(i)
                self.ordered = None
        if self.ordered is None:
            # node order, as the snapshot lists them
            self.ordered = [infos[i] for i in sorted(indices)]
        return self.ordered


class PreScoreState(StateData):
    """topology key → topology value → summed weight.  Read-only after PreScore."""

    __slots__ = ("topology_score",)

    def __init__(self, topology_score: dict[str, dict[str, int]]) -> None:
        self.topology_score = topology_score

    def clone(self) -> PreScoreState:
        return self


class Scoring(BasePlugin):
    """InterPodAffinity's PreScore, Score and NormalizeScore."""

    def _scoring_nodes(self, snapshot: Any) -> list[NodeInfo]:
        ext = getattr(snapshot, "extensions", None)
        if ext is None or not hasattr(snapshot, "change_log"):
            return snapshot.have_pods_with_affinity()
        tracker = ext.get(_SCORING_NODES_KEY)
        if tracker is None:
            tracker = ext[_SCORING_NODES_KEY] = _ScoringNodes()
        return tracker.nodes(snapshot)

    # -- PreScore / Score ----------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        # upstream looks at the spec lists themselves (an empty list is no constraint)
        has_constraints = bool(pod.preferred_affinity_terms or pod.preferred_anti_affinity_terms)
        if self.ignore_preferred_terms_of_existing_pods and not has_constraints:
            return Status(Code.SKIP)
        if self._handle is None:
            return Status(Code.ERROR, "empty shared lister in InterPodAffinity PreScore")
        snapshot = self._handle.snapshot()
        # without preferred terms of its own, only pods whose terms score others can matter
        all_nodes = snapshot.node_info_list if has_constraints else self._scoring_nodes(snapshot)
        ns_map = self._namespace_map()
        terms = self._terms(pod, ns_map)
        ns_labels = ns_map.get(pod.namespace) or {}
        preferred = terms.preferred
        preferred_anti = terms.preferred_anti
        hard_weight = self.hard_pod_affinity_weight

        topology_score: dict[str, dict[str, int]] = {}
        touched = False

        def add(key: str, labels: Mapping[str, str], delta: int) -> None:
            tv = labels.get(key)
            if tv is None:
                return
            per_value = topology_score.get(key)
            if per_value is None:
                per_value = topology_score[key] = {}
            per_value[tv] = per_value.get(tv, 0) + delta

        for ni in all_nodes:
            labels = ni.node.labels
            if not labels:
                continue
            pods = ni.pods if has_constraints else ni.pods_with_affinity
            for other in pods:
                for t in preferred:
                    if t.matches(other) and t.topology_key in labels:
                        add(t.topology_key, labels, t.weight)
                        touched = True
                for t in preferred_anti:
                    if t.matches(other) and t.topology_key in labels:
                        add(t.topology_key, labels, -t.weight)
                        touched = True
                if hard_weight > 0:
                    for at in other.required_affinity_terms:
                        if at.topology_key in labels and at.matches(pod, ns_labels):
                            add(at.topology_key, labels, hard_weight)
                            touched = True
                for wt in other.preferred_affinity_terms:
                    at = wt.term
                    if at.topology_key in labels and at.matches(pod, ns_labels):
                        add(at.topology_key, labels, wt.weight)
                        touched = True
                for wt in other.preferred_anti_affinity_terms:
                    at = wt.term
                    if at.topology_key in labels and at.matches(pod, ns_labels):
                        add(at.topology_key, labels, -wt.weight)
                        touched = True

        # upstream skips when no node produced any entry (even entries summing to 0 count)
        if not touched:
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, PreScoreState(topology_score))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return missing_state(PRE_SCORE_STATE_KEY, "failed to read")
        labels = node_info.node.labels
        score = 0
        for key, per_value in s.topology_score.items():
            tv = labels.get(key)
            if tv is not None:
                score += per_value.get(tv, 0)
        return score

    def normalize_score(
        self, state: CycleState, pod: Pod, scores: list[NodeScore]
    ) -> Status | None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return missing_state(PRE_SCORE_STATE_KEY, "failed to read")
        if not s.topology_score or not scores:
            return None
        lo = min(ns.score for ns in scores)
        hi = max(ns.score for ns in scores)
        diff = hi - lo
        for ns in scores:
            # float64 arithmetic then truncation, as Go's int64(float64) conversion
            ns.score = int(float(MAX_NODE_SCORE) * ((ns.score - lo) / diff)) if diff > 0 else 0
        return None
