"""InterPodAffinity: required and preferred pod (anti-)affinity.

Extension points: PreFilter (with add/remove-pod extensions for preemption),
Filter, PreScore, Score and NormalizeScore.  Upstream counterpart:
``pkg/scheduler/framework/plugins/interpodaffinity`` (kube-scheduler v1.36).

PreFilter counts, per topology pair (label key, label value):

* existing pods whose required anti-affinity terms select the incoming pod
  (symmetry: a running pod may forbid the newcomer);
* existing pods that match *all* of the incoming pod's required affinity
  terms, once per term;
* existing pods that match each of the incoming pod's required anti-affinity
  terms.

Filter is then a few dictionary look-ups per node.  PreScore sums weights per
topology pair from the incoming pod's preferred terms and from existing pods'
terms that select the incoming pod (their required affinity terms weighted by
``hardPodAffinityWeight``); Score adds the pairs a node carries and
NormalizeScore scales to 0..100 between the lowest and highest raw score.

Terminating pods are counted like any other, as upstream does.

Speed: PreFilter's counts are sums of per-node shares.  Each share is kept in
the snapshot's ``extensions`` (keyed by what the terms select) with the node's
generation, so a later pod with the same terms recounts only nodes whose pods
changed since; the result equals counting every pod from scratch.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from ...framework.interfaces import Handle
from ...framework.signers import LABELS, Fragments, unsignable
from ...framework.status import Status
from ...objects import Pod
from .common import (
    _MAX_HARD_WEIGHT,
    _MIN_HARD_WEIGHT,
    DEFAULT_HARD_POD_AFFINITY_WEIGHT,
    ERR_REASON_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
    NAME,
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
    _ResolvedTerms,
)
from .filtering import _CACHE_KEY, Filtering, PreFilterState, _Aggregate
from .scoring import PreScoreState, Scoring

__all__ = [
    "DEFAULT_HARD_POD_AFFINITY_WEIGHT",
    "ERR_REASON_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH",
    "ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH",
    "NAME",
    "PLUGIN",
    "PRE_FILTER_STATE_KEY",
    "PRE_SCORE_STATE_KEY",
    "InterPodAffinity",
    "PreFilterState",
    "PreScoreState",
    "new",
]


class InterPodAffinity(Filtering, Scoring):
    NAME = NAME

    __slots__ = ("_handle", "hard_pod_affinity_weight", "ignore_preferred_terms_of_existing_pods")

    def __init__(
        self,
        handle: Handle | None,
        hard_pod_affinity_weight: int = DEFAULT_HARD_POD_AFFINITY_WEIGHT,
        ignore_preferred_terms_of_existing_pods: bool = False,
    ) -> None:
        if not _MIN_HARD_WEIGHT <= hard_pod_affinity_weight <= _MAX_HARD_WEIGHT:
            raise ValueError(
                f"hardPodAffinityWeight: Invalid value: {hard_pod_affinity_weight}: "
                f"not in valid range [{_MIN_HARD_WEIGHT}, {_MAX_HARD_WEIGHT}]"
            )
        self._handle = handle
        self.hard_pod_affinity_weight = hard_pod_affinity_weight
        self.ignore_preferred_terms_of_existing_pods = ignore_preferred_terms_of_existing_pods

    # -- shared helpers ------------------------------------------------------
    def _namespace_map(self) -> Mapping[str, Mapping[str, str]]:
        handle = self._handle
        if handle is None:
            return {}
        ns_map = handle.snapshot().namespace_labels
        if ns_map:
            return ns_map
        cluster = getattr(handle, "cluster", None)
        return getattr(cluster, "namespaces", None) or {}

    def _snapshot(self) -> Any:
        return self._handle.snapshot() if self._handle is not None else None

    def _cache(self) -> OrderedDict[Any, _Aggregate] | None:
        """Per-snapshot aggregates (None without a snapshot: count from scratch)."""
        if self._handle is None:
            return None
        ext = self._handle.snapshot().extensions
        cache = ext.get(_CACHE_KEY)
        if cache is None:
            cache = ext[_CACHE_KEY] = OrderedDict()
        return cache

    def _terms(self, pod: Pod, ns_map: Mapping[str, Mapping[str, str]]) -> _ResolvedTerms:
        # resolving a namespaceSelector lists namespaces: once per pod and namespace map
        cached = pod.cache.get(NAME)
        if cached is None or cached.ns_map is not ns_map:
            cached = _ResolvedTerms(pod, ns_map)
            pod.cache[NAME] = cached
        return cached

    # -- SignPod (OpportunisticBatching) ---------------------------------------
    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Pods with pod (anti-)affinity are not signable; others by their labels, which
        existing pods' terms may match."""
        affinity = pod.spec.get("affinity") or {}
        if affinity.get("podAffinity") is not None or affinity.get("podAntiAffinity") is not None:
            return unsignable("pods with InterPodAffinity are not signable")
        if self.ignore_preferred_terms_of_existing_pods:
            return [], None
        return [(LABELS, dict(pod.labels))], None

    # -- PreFilter -----------------------------------------------------------


PLUGIN = InterPodAffinity


def new(args: Mapping[str, Any], handle: Handle) -> InterPodAffinity:
    """Factory; ``args`` is InterPodAffinityArgs (camelCase), defaults applied here too."""
    args = args or {}
    weight = args.get("hardPodAffinityWeight")
    return InterPodAffinity(
        handle,
        DEFAULT_HARD_POD_AFFINITY_WEIGHT if weight is None else int(weight),
        bool(args.get("ignorePreferredTermsOfExistingPods", False)),
    )
