"""NodeAffinity: PreFilter, Filter, PreScore, Score and NormalizeScore (upstream ``plugins/nodeaffinity``).

Filter: the node must match the pod's ``nodeSelector`` and required node
affinity, and the profile's ``NodeAffinityArgs.addedAffinity`` (checked first,
with its own reason).  PreFilter narrows the node set when every required
term pins ``metadata.name`` through ``matchFields`` (DaemonSet pods): the
runtime then reports the other nodes as "didn't satisfy plugin(s)
[NodeAffinity]".  Score: the sum of the weights of the preferred terms (the
pod's and the added ones) the node matches, normalized to 0..100.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..framework.cycle_state import CycleState, StateData
from ..framework.interfaces import Handle, PreFilterResult
from ..framework.node_info import NodeInfo
from ..framework.signers import NODE_AFFINITY, NODE_SELECTOR, Fragments, node_affinity_signer
from ..framework.status import Code, Status
from ..objects import Node, NodeSelector, NodeSelectorTerm, Pod
from ..objects.selectors import SelectorError, parse_node_affinity
from .helper import HOSTNAME_LABEL, DefaultNormalized, signatures_for

__all__ = [
    "ERR_REASON_CONFLICT",
    "ERR_REASON_ENFORCED",
    "ERR_REASON_POD",
    "NAME",
    "PLUGIN",
    "NodeAffinity",
    "RequiredNodeAffinity",
    "new",
]

NAME = "NodeAffinity"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"
_OBJECT_NAME_FIELD = "metadata.name"

PreferredTerms = tuple[tuple[int, NodeSelectorTerm], ...]


def _term_reads_name(term: NodeSelectorTerm) -> bool:
    """Whether matching ``term`` depends on the node's name (or hostname label)."""
    if term.fields is not None:
        return True
    return term.expressions is not None and any(
        r.key == HOSTNAME_LABEL for r in term.expressions.requirements
    )


class RequiredNodeAffinity:
    """The pod's ``nodeSelector`` and required node affinity (upstream ``GetRequiredNodeAffinity``)."""

    __slots__ = ("name_dependent", "node_selector", "required")

    def __init__(self, pod: Pod) -> None:
        self.node_selector: tuple[tuple[str, str], ...] = tuple(pod.node_selector.items())
        self.required: NodeSelector | None = pod.required_node_affinity
        self.name_dependent = any(k == HOSTNAME_LABEL for k, _ in self.node_selector) or (
            self.required is not None and any(_term_reads_name(t) for t in self.required.terms)
        )

    def matches(self, node: Node) -> bool:
        labels = node.labels
        for k, v in self.node_selector:
            if labels.get(k) != v:
                return False
        if self.required is not None:
            return self.required.matches(labels, node.name)
        return True

    @property
    def matches_all(self) -> bool:
        return not self.node_selector and self.required is None


class _PreFilterState(StateData):
    __slots__ = ("required",)

    def __init__(self, required: RequiredNodeAffinity) -> None:
        self.required = required


class _PreScoreState(StateData):
    __slots__ = ("preferred",)

    def __init__(self, preferred: PreferredTerms) -> None:
        self.preferred = preferred


def _required(pod: Pod) -> RequiredNodeAffinity:
    cached = pod.cache.get(PRE_FILTER_STATE_KEY)
    if cached is None:
        cached = pod.cache[PRE_FILTER_STATE_KEY] = RequiredNodeAffinity(pod)
    return cached


def _raw_node_affinity(pod: Pod) -> Mapping[str, Any] | None:
    aff = pod.spec.get("affinity")
    if not isinstance(aff, Mapping):
        return None
    na = aff.get("nodeAffinity")
    return na if isinstance(na, Mapping) else None


def _pinned_node_names(raw_terms: Sequence[Any]) -> frozenset[str] | None:
    """Names every term restricts the pod to by ``matchFields metadata.name In``; None: no narrowing.

    Terms are ORed, so one term without such a field requirement means all nodes.
    """
    names: set[str] | None = None
    for term in raw_terms:
        term_names: set[str] | None = None
        fields = term.get("matchFields") if isinstance(term, Mapping) else None
        for r in fields or []:
            if r.get("key") == _OBJECT_NAME_FIELD and r.get("operator") == "In":
                values = {str(v) for v in r.get("values") or []}
                # requirements of one term are ANDed
                term_names = values if term_names is None else term_names & values
        if term_names is None:
            return None
        names = term_names if names is None else names | term_names
    return None if names is None else frozenset(names)


def _score_terms(terms: PreferredTerms, node: Node) -> int:
    labels = node.labels
    name = node.name
    total = 0
    for weight, term in terms:
        if term.matches(labels, name):
            total += weight
    return total


class NodeAffinity(DefaultNormalized):
    NAME = NAME
    # answers from the pod's spec and that one node alone (framework/node_memo.py),
    # its pods aside (framework/filter_loop.py, refilter_with_nominated_pods)
    node_local_filter = True
    filter_reads_no_pods = True

    __slots__ = (
        "_added_name_dependent",
        "added_node_selector",
        "added_preferred",
        "handle",
        "has_added_preferred",
    )

    def __init__(
        self,
        handle: Handle | None = None,
        added_node_selector: NodeSelector | None = None,
        added_preferred: PreferredTerms = (),
        has_added_preferred: bool | None = None,
    ) -> None:
        self.handle = handle
        self.added_node_selector = added_node_selector
        # the terms that can score (weight 0 and empty terms dropped)
        self.added_preferred = added_preferred
        # Upstream keeps an (possibly empty) added term set whenever the args list
        # any preferred term, and then PreScore never skips.
        self.has_added_preferred = (
            bool(added_preferred) if has_added_preferred is None else has_added_preferred
        )
        self._added_name_dependent = (
            added_node_selector is not None
            and any(_term_reads_name(t) for t in added_node_selector.terms)
        ) or any(_term_reads_name(t) for _, t in added_preferred)

    # -- PreFilter / Filter ------------------------------------------------------
    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        na = _raw_node_affinity(pod)
        required_raw = na.get("requiredDuringSchedulingIgnoredDuringExecution") if na else None
        no_node_affinity = required_raw is None
        if (
            no_node_affinity
            and self.added_node_selector is None
            and pod.spec.get("nodeSelector") is None
        ):
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(_required(pod)))
        raw_terms = None if no_node_affinity else required_raw.get("nodeSelectorTerms")
        if not raw_terms:
            return None, None
        names = _pinned_node_names(raw_terms)
        if names is None:
            return None, None
        if not names:
            # every term pins a different set of names: nothing can match
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
        return PreFilterResult(names), None

    def _required_for(self, state: CycleState, pod: Pod) -> RequiredNodeAffinity:
        s = state.get(PRE_FILTER_STATE_KEY)
        if isinstance(s, _PreFilterState):
            return s.required
        # PreFilter disabled: compute here, as upstream falls back to
        return _required(pod)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        node = node_info.node
        added = self.added_node_selector
        if added is not None and not added.matches(node.labels, node.name):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_ENFORCED)
        if not self._required_for(state, pod).matches(node):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_POD)
        return None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        required = self._required_for(state, pod)
        added = self.added_node_selector
        if added is None and required.matches_all:
            return np.ones(len(nodes), dtype=bool)

        def check(node: Node) -> bool:
            if added is not None and not added.matches(node.labels, node.name):
                return False
            return required.matches(node)

        if required.name_dependent or self._added_name_dependent:
            return np.fromiter((check(ni.node) for ni in nodes), dtype=bool, count=len(nodes))
        tab, rows = signatures_for(self.handle, nodes)
        return tab.by_label_set(rows, check, np.bool_)

    # -- PreScore / Score ----------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        na = _raw_node_affinity(pod)
        # an empty list comes back from the API server as absent (nil)
        has_preferred = bool(na and na.get("preferredDuringSchedulingIgnoredDuringExecution"))
        if not has_preferred and not self.has_added_preferred:
            return Status(Code.SKIP)
        state.write(PRE_SCORE_STATE_KEY, _PreScoreState(pod.preferred_node_affinity))
        return None

    def _preferred_for(self, state: CycleState, pod: Pod) -> PreferredTerms:
        s = state.get(PRE_SCORE_STATE_KEY)
        if isinstance(s, _PreScoreState):
            return s.preferred
        return pod.preferred_node_affinity

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> int | Status:
        node = node_info.node
        total = 0
        if self.added_preferred:
            total += _score_terms(self.added_preferred, node)
        preferred = self._preferred_for(state, pod)
        if preferred:
            total += _score_terms(preferred, node)
        return total

    def score_batch(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> np.ndarray:
        terms = self.added_preferred + self._preferred_for(state, pod)
        if not terms:
            return np.zeros(len(nodes), dtype=np.int64)
        if any(_term_reads_name(t) for _, t in terms):
            return np.fromiter(
                (_score_terms(terms, ni.node) for ni in nodes), dtype=np.int64, count=len(nodes)
            )
        tab, rows = signatures_for(self.handle, nodes)
        return tab.by_label_set(rows, lambda node: _score_terms(terms, node), np.int64)

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its answers depend on the pod's node affinity and node selector."""
        selector = pod.spec.get("nodeSelector") or None
        return [(NODE_AFFINITY, node_affinity_signer(pod)), (NODE_SELECTOR, selector)], None


PLUGIN = NodeAffinity


def _parse_added_affinity(raw: Any) -> tuple[NodeSelector | None, PreferredTerms, bool]:
    """(required selector, scoring preferred terms, whether any preferred term was given)."""
    if not raw:
        return None, (), False
    if not isinstance(raw, Mapping):
        raise ValueError("addedAffinity: must be an object")
    try:
        return parse_node_affinity(raw, "addedAffinity")
    except SelectorError as exc:
        raise ValueError(f"parsing {exc}") from None


def new(args: Mapping[str, Any], handle: Handle) -> NodeAffinity:
    added_required, added_preferred, has_preferred = _parse_added_affinity(
        (args or {}).get("addedAffinity")
    )
    return NodeAffinity(handle, added_required, added_preferred, has_preferred)
