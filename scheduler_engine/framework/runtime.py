"""The framework runtime: one profile's plugins, called per extension point.

Upstream counterpart: ``pkg/scheduler/framework/runtime/framework.go``.  A
:class:`Framework` is built once per profile from a resolved
:class:`~scheduler_engine.config.types.ProfileConfig`, a
:class:`~scheduler_engine.framework.registry.Registry` and a handle; it keeps
one list per extension point, in configured order, and every plugin call of
the engine goes through one hook, :meth:`Framework._call`.  That is the one
place where

* exceptions raised by plugins (bugs) become ``ERROR`` statuses naming the
  plugin;
* results are recorded for explanations (only when a recorder is attached,
  so the fast path pays nothing).

The ``run_*`` methods then apply each point's upstream rules to the statuses
(which codes stop the loop, how a non-rejection is wrapped).  The runtime also
decides between a plugin's per-node and vectorised methods
(:class:`~.interfaces.BatchFilterPlugin`, :class:`~.interfaces.BatchScorePlugin`,
:class:`~.interfaces.BatchScoreExtensions`): vectorised when not explaining
and the framework was built with ``batch``; the results are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from .cycle_state import CycleState
from .filter_loop import _ACTIVE_FILTERS, _EXTENSIONS, FilterLoop, FilterPass, _Filter
from .interfaces import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    POINT_METHODS,
    BatchFilterPlugin,
    BatchScoreExtensions,
    BatchScorePlugin,
    NodeLocalFilterPlugin,
    NodeLocalScorePlugin,
    NodeScore,
    NodeToStatus,
    PodBlindFilterPlugin,
    PostFilterResult,
    PreFilterResult,
    QueuedPodInfo,
    SignPlugin,
    StatusBatchFilterPlugin,
)
from .node_info import NodeInfo
from .node_memo import filter_verdict, score_value
from .outcomes import (
    MAX_PERMIT_TIMEOUT,
    POINTS,
    invalid_score,
    no_node_satisfies,
    plugin_error,
    rejected_or_wrapped,
    score_failed,
    wrap,
)
from .placement import Placement, PodGroupAssignments, PodGroupInfo
from .recorder import Recorder, status_value
from .signers import batchable_plugins, sign_pod
from .status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from ..config.types import ProfileConfig
    from ..objects import Pod
    from .registry import Registry

__all__ = ["MAX_PERMIT_TIMEOUT", "FilterPass", "Framework", "ScoreResult"]


class ScoreResult:
    """Scores of the nodes given to :meth:`Framework.run_score_plugins`, in their order."""

    __slots__ = ("normalized", "plugins", "raw", "totals", "weights")

    def __init__(self, n: int) -> None:
        self.totals = np.zeros(n, dtype=np.int64)
        # plugin name → arrays, only filled when explaining
        self.plugins: list[str] = []
        self.raw: dict[str, np.ndarray] = {}
        self.normalized: dict[str, np.ndarray] = {}
        self.weights: dict[str, int] = {}


class Framework(FilterLoop):
    """One profile's plugins, with upstream's semantics for running each extension point."""

    def __init__(
        self,
        profile: ProfileConfig,
        registry: Registry,
        handle: Any,
        *,
        recorder: Recorder | None = None,
        batch: bool = True,
    ) -> None:
        self.profile = profile
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.handle = handle
        self.recorder = recorder
        # vectorised plugin methods decide unless explaining (each node is recorded);
        # explaining, they still give scores and the filters each node passes
        self.batch = batch and recorder is None
        self.vectorise = batch
        # False (trace replay): when no node passes, the vectorised filters' verdicts
        # give each node its status (the first plugin that rejects it, without that
        # plugin's reasons) instead of every filter again per node
        self.exact_diagnosis = True
        # recording filter calls is switched off while PostFilter simulates evictions
        self._record_filters = True
        # plugins enabled by the configuration but absent from the registry
        self.missing_plugins: list[str] = []
        self.plugins: dict[str, Any] = {}

        needed: list[str] = []
        for point in POINT_METHODS:
            for ref in profile.enabled(point):
                if ref.name not in needed:
                    needed.append(ref.name)
        for name in needed:
            if name not in registry:
                self.missing_plugins.append(name)
                continue
            args: Mapping[str, Any] = profile.plugin_args.get(name, {})
            self.plugins[name] = registry.factory(name)(args, handle)

        def point(p: str) -> list[tuple[str, Any]]:
            out = []
            for ref in profile.enabled(p):
                inst = self.plugins.get(ref.name)
                if inst is not None and callable(getattr(inst, POINT_METHODS[p], None)):
                    out.append((ref.name, inst))
            return out

        self.pre_enqueue_plugins = point("preEnqueue")
        qs = point("queueSort")
        self.queue_sort_plugin = qs[0][1] if qs else None
        self.pre_filter_plugins = point("preFilter")
        self.filter_plugins = point("filter")
        self._filters: list[_Filter] = [
            (n, p.filter, p.filter_batch if isinstance(p, BatchFilterPlugin) else None)
            for n, p in self.filter_plugins
        ]
        self._status_batch = {
            n: p.filter_statuses_batch
            for n, p in self.filter_plugins
            if isinstance(p, StatusBatchFilterPlugin)
        }
        self._reads_no_pods = {
            n: isinstance(p, PodBlindFilterPlugin) and p.filter_reads_no_pods is True
            for n, p in self.filter_plugins
        }
        self.post_filter_plugins = point("postFilter")
        self.pre_score_plugins = point("preScore")
        weights = {ref.name: ref.weight for ref in profile.enabled("score")}
        self.score_plugins: list[tuple[str, Any, int]] = [
            (n, p, weights.get(n) or 1) for n, p in point("score")
        ]
        self._score_batch: dict[str, Callable[..., Any]] = {
            n: p.score_batch for n, p, _ in self.score_plugins if isinstance(p, BatchScorePlugin)
        }
        # vectorised plugins with node-local answers → their per-node answer (see node_memo)
        self._memo_scores = {
            n: score_value(p.score)
            for n, p, _ in self.score_plugins
            if isinstance(p, NodeLocalScorePlugin) and p.node_local_score
        }
        self._memo_filters = {
            n: filter_verdict(p.filter)
            for n, p in self.filter_plugins
            if isinstance(p, NodeLocalFilterPlugin) and p.node_local_filter
        }
        # score extensions' types → whether they offer normalize_score_batch
        self._batch_ext: dict[type, bool] = {}
        self.reserve_plugins = point("reserve")
        self.permit_plugins = point("permit")
        self.pre_bind_plugins = point("preBind")
        self.bind_plugins = point("bind")
        self.post_bind_plugins = point("postBind")
        self.placement_generate_plugins = point("placementGenerate")
        pweights = {ref.name: ref.weight for ref in profile.enabled("placementScore")}
        self.placement_score_plugins: list[tuple[str, Any, int]] = [
            (n, p, pweights.get(n) or 1) for n, p in point("placementScore")
        ]

    # -- the hook every plugin call goes through ------------------------------------
    def _call(
        self, point: str, pod: Pod, node: str, name: str, method: Callable[..., Any], *args: Any
    ) -> tuple[Status | None, Any]:
        """Call one plugin at one point: (status, what else it answered), recorded.

        An exception becomes an ERROR status naming the plugin.
        """
        answer, detail, finish = POINTS[point]
        extra = None
        try:
            if answer is None:
                s = method(*args)
            else:
                s, extra = answer(method(*args))
        except Exception as exc:
            s = plugin_error(exc, name)
        if finish is not None and s is not None and s.code != Code.SUCCESS:
            s = finish(s, name)
        rec = self.recorder
        if rec is not None:
            v = status_value(s)
            if detail is not None:
                detail(v, s, extra)
            rec.record(pod.key, point, node, name, v)
        return s, extra

    # -- small queries ----------------------------------------------------------
    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    @cached_property
    def signers(self) -> list[tuple[str, SignPlugin]] | None:
        """OpportunisticBatching's signers: None when a PreFilter, Filter, PreScore or
        Score plugin cannot sign (the profile then signs no pod)."""
        score = [(n, p) for n, p, _ in self.score_plugins]
        return batchable_plugins(
            [self.pre_filter_plugins, self.filter_plugins, self.pre_score_plugins, score]
        )

    def sign_pod(self, pod: Pod) -> str | None:
        """The pod's signature under this profile (upstream ``SignPod``), None if unsignable."""
        return sign_pod(self.signers, pod)

    def queue_sort_less(self) -> Callable[[QueuedPodInfo, QueuedPodInfo], bool]:
        if self.queue_sort_plugin is None:
            return lambda a, b: False
        return self.queue_sort_plugin.less

    # -- PreEnqueue -------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Pod) -> Status | None:
        """The first non-success status (the gating plugin), or None."""
        for name, pl in self.pre_enqueue_plugins:
            s, _ = self._call("preEnqueue", pod, "", name, pl.pre_enqueue, pod)
            if s is not None and s.code != Code.SUCCESS:
                return s.with_plugin(name)
        return None

    # -- PreFilter --------------------------------------------------------------
    def run_pre_filter_plugins(
        self, state: CycleState, pod: Pod
    ) -> tuple[PreFilterResult | None, Status | None, set[str]]:
        """Upstream ``RunPreFilterPlugins``: merged node set, status, plugins that narrowed it.

        SKIP marks the plugin's Filter (and PreFilter extensions) skipped;
        UnschedulableAndUnresolvable stops at once; Unschedulable lets the
        other PreFilters run (preemption needs their state); a narrowing to no
        node at all is UnschedulableAndUnresolvable.
        """
        skip: set[str] = set()
        nodes = self.handle.snapshot().node_info_list
        result: PreFilterResult | None = None
        plugins_with_nodes: set[str] = set()
        return_status: Status | None = None
        try:
            for name, pl in self.pre_filter_plugins:
                s, r = self._call("preFilter", pod, "", name, pl.pre_filter, state, pod, nodes)
                if s is not None and s.code == Code.SKIP:
                    skip.add(name)
                    continue
                if s is not None and s.code != Code.SUCCESS:
                    s.plugin = name
                    if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                        return None, s, set()
                    if s.code == Code.UNSCHEDULABLE:
                        return_status = s
                        continue
                    return None, wrap(s, 'running PreFilter plugin "{plugin}": {msg}', name), set()
                if r is not None and r.node_names is not None:
                    plugins_with_nodes.add(name)
                    result = r if result is None else result.merge(r)
                    if not result.node_names:
                        return result, no_node_satisfies(plugins_with_nodes), plugins_with_nodes
            return result, return_status, plugins_with_nodes
        finally:
            state.skip_filter_plugins = skip
            state.delete(_ACTIVE_FILTERS)
            state.delete(_EXTENSIONS)

    # -- PostFilter -------------------------------------------------------------
    def run_post_filter_plugins(
        self, state: CycleState, pod: Pod, filtered: NodeToStatus
    ) -> tuple[PostFilterResult | None, Status]:
        """Upstream ``RunPostFilterPlugins``.

        Runs until the first Success, UnschedulableAndUnresolvable or Error;
        otherwise all run and their reasons are joined (DynamicResources' "no
        new claims to deallocate" then DefaultPreemption's "preemption: ..."),
        the first rejecting plugin named, the last non-noop result kept.
        """
        result: PostFilterResult | None = None
        reasons: list[str] = []
        rejector = ""
        self._record_filters = False
        try:
            for name, pl in self.post_filter_plugins:
                s, r = self._call("postFilter", pod, "", name, pl.post_filter, state, pod, filtered)
                if s is None or s.code == Code.SUCCESS:
                    return r, s if s is not None else Status(Code.SUCCESS, plugin=name)
                if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return r, s.with_plugin(name)
                if s.code not in (Code.UNSCHEDULABLE, Code.PENDING):
                    return None, Status(Code.ERROR, *s.reasons, plugin=name, error=s.error)
                info = r.nominating_info if r is not None else None
                if info is not None and info.mode != "Noop":
                    result = r
                reasons.extend(s.reasons)
                if not rejector:
                    rejector = name
            return result, Status(Code.UNSCHEDULABLE, *reasons, plugin=rejector)
        finally:
            self._record_filters = True

    # -- PreScore / Score ---------------------------------------------------------
    def run_pre_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> Status | None:
        skip: set[str] = set()
        try:
            for name, pl in self.pre_score_plugins:
                s, _ = self._call("preScore", pod, "", name, pl.pre_score, state, pod, nodes)
                if s is not None and s.code == Code.SKIP:
                    skip.add(name)
                    continue
                if s is not None and s.code != Code.SUCCESS:
                    return wrap(s, 'running PreScore plugin "{plugin}": {msg}', name)
            return None
        finally:
            state.skip_score_plugins = skip

    def run_score_plugins(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        *,
        batch: bool | None = None,
    ) -> tuple[ScoreResult | None, Status | None]:
        """Raw scores, NormalizeScore, weights and totals (upstream ``RunScorePlugins``).

        Vectorised methods are used when ``batch`` (default: the framework's
        choice).  A score outside [0, 100] after normalizing is an error, as
        upstream.
        """
        if batch is None:
            batch = self.vectorise
        res = ScoreResult(len(nodes))
        skip = state.skip_score_plugins
        explain = self.recorder is not None
        memo = self._node_memo(state, pod, nodes) if batch and self._memo_scores else None
        for name, pl, weight in self.score_plugins:
            if name in skip:
                continue
            raw = None
            if memo is not None and name in self._memo_scores:
                key = ("score", name, memo[2])
                one, many = self._memo_scores[name], self._score_batch[name]
                raw = memo[0].values(key, memo[1], state, pod, one, many, np.int64)
            if raw is None:
                raw, s = self._score_raw(state, pod, nodes, name, pl, batch)
                if s is not None:
                    return None, s
            norm, s = self._score_normalized(state, pod, nodes, name, pl, raw, batch)
            if s is not None:
                return None, s
            if len(nodes):
                hi, lo = int(norm.max()), int(norm.min())
                if hi > MAX_NODE_SCORE or lo < MIN_NODE_SCORE:
                    return None, invalid_score(name, hi if hi > MAX_NODE_SCORE else lo)
            res.totals += norm * weight
            if explain:
                res.plugins.append(name)
                res.raw[name] = raw
                res.normalized[name] = norm
                res.weights[name] = weight
        if explain:
            self._record_scores(pod, nodes, res)
        return res, None

    def _score_raw(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        name: str,
        pl: Any,
        batch: bool,
    ) -> tuple[np.ndarray, Status | None]:
        """One plugin's raw scores of ``nodes``, or the error it failed with."""
        vectorised = self._score_batch.get(name) if batch else None
        try:
            if vectorised is not None:
                return np.asarray(vectorised(state, pod, nodes), dtype=np.int64), None
            score = pl.score
            values = [score(state, pod, ni) for ni in nodes]
            try:
                return np.array(values, dtype=np.int64), None
            except TypeError:
                # a Status among the values: Success counts as 0, anything else fails
                for k, v in enumerate(values):
                    if isinstance(v, Status):
                        if v.code != Code.SUCCESS:
                            return _EMPTY, score_failed("running Score plugins", name, v)
                        values[k] = 0
                return np.array(values, dtype=np.int64), None
        except Exception as exc:
            return _EMPTY, score_failed("running Score plugins", name, plugin_error(exc, name))

    def _score_normalized(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        name: str,
        pl: Any,
        raw: np.ndarray,
        batch: bool,
    ) -> tuple[np.ndarray, Status | None]:
        """One plugin's NormalizeScore over its raw scores (``raw`` itself without one)."""
        try:
            ext = pl.score_extensions()
            if ext is None:
                return raw, None
            if batch and self._offers_batch_normalize(ext):
                norm = raw.copy()
                out = ext.normalize_score_batch(state, pod, norm)
                if isinstance(out, Status):
                    s: Status | None = out
                else:
                    s = None
                    if out is not None:
                        norm = np.asarray(out, dtype=np.int64)
            else:
                scores = [NodeScore(ni.name, v) for ni, v in zip(nodes, raw.tolist(), strict=True)]
                s = ext.normalize_score(state, pod, scores)
                norm = np.fromiter((x.score for x in scores), dtype=np.int64, count=len(scores))
        except Exception as exc:
            s = plugin_error(exc, name)
        if s is not None and s.code != Code.SUCCESS:
            return _EMPTY, score_failed("running Normalize on Score plugins", name, s)
        return norm, None

    def _offers_batch_normalize(self, ext: Any) -> bool:
        kind = type(ext)
        known = self._batch_ext.get(kind)
        if known is None:
            known = self._batch_ext[kind] = isinstance(ext, BatchScoreExtensions)
        return known

    def _record_scores(self, pod: Pod, nodes: Sequence[NodeInfo], res: ScoreResult) -> None:
        rec = self.recorder
        assert rec is not None
        per_node = rec.pod(pod.key).setdefault("score", {})
        for name in res.plugins:
            w = res.weights[name]
            raw, norm = res.raw[name].tolist(), res.normalized[name].tolist()
            for i, ni in enumerate(nodes):
                value = {"raw": raw[i], "normalized": norm[i], "weighted": norm[i] * w}
                per_node.setdefault(ni.name, {})[name] = value

    # -- Reserve / Permit ---------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        for name, pl in self.reserve_plugins:
            s, _ = self._call("reserve", pod, node, name, pl.reserve, state, pod, node)
            if s is not None and s.code != Code.SUCCESS:
                return rejected_or_wrapped(s, 'running Reserve plugin "{plugin}": {msg}', name)
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        """Unreserve in the reverse order of Reserve; failures cannot be reported."""
        for name, pl in reversed(self.reserve_plugins):
            self._call("unreserve", pod, node, name, pl.unreserve, state, pod, node)

    def run_permit_plugins(
        self, state: CycleState, pod: Pod, node: str
    ) -> tuple[Status | None, dict[str, float]]:
        """(status, plugin → wait timeout); WAIT when a plugin waits and none rejects."""
        waits: dict[str, float] = {}
        wait_status: Status | None = None
        for name, pl in self.permit_plugins:
            s, timeout = self._call("permit", pod, node, name, pl.permit, state, pod, node)
            if s is None or s.code == Code.SUCCESS:
                continue
            if s.is_rejected():
                return s.with_plugin(name), {}
            if s.code == Code.WAIT:
                waits[name] = min(float(timeout), MAX_PERMIT_TIMEOUT)
                wait_status = s
                continue
            return wrap(s, 'running Permit plugin "{plugin}": {msg}', name), {}
        if wait_status is not None:
            return (
                Status(
                    Code.WAIT,
                    *wait_status.reasons,
                    "one or more plugins asked to wait and no plugin rejected pod",
                    plugin=wait_status.plugin,
                ),
                waits,
            )
        return None, {}

    # -- binding cycle ------------------------------------------------------------
    def run_pre_bind_plugins(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        for name, pl in self.pre_bind_plugins:
            s, _ = self._call("preBind", pod, node, name, pl.pre_bind, state, pod, node)
            if s is not None and s.code not in (Code.SUCCESS, Code.SKIP):
                return rejected_or_wrapped(s, 'running PreBind plugin "{plugin}": {msg}', name)
        return None

    def run_bind_plugins(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        """The first binder that does not SKIP binds; SKIP from all (or no binder) is SKIP."""
        if not self.bind_plugins:
            return Status(Code.SKIP)
        status: Status | None = None
        for name, pl in self.bind_plugins:
            status, _ = self._call("bind", pod, node, name, pl.bind, state, pod, node)
            if status is not None and status.code == Code.SKIP:
                continue
            if status is not None and status.code != Code.SUCCESS:
                return rejected_or_wrapped(status, 'running Bind plugin "{plugin}": {msg}', name)
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node: str) -> None:
        for name, pl in self.post_bind_plugins:
            self._call("postBind", pod, node, name, pl.post_bind, state, pod, node)

    # -- pod-group placements (v1.36 alpha, TopologyAwareWorkloadScheduling) --------------
    def run_placement_generate_plugins(
        self, state: CycleState, group: PodGroupInfo, nodes: list[NodeInfo]
    ) -> tuple[list[Placement] | None, Status | None]:
        """The first PlacementGenerate plugin's placements (all nodes without one)."""
        parent = Placement("", nodes)
        if not self.placement_generate_plugins:
            return [parent], None
        name, pl = self.placement_generate_plugins[0]
        try:
            placements, s = pl.generate_placements(state, group, parent)
        except Exception as exc:
            placements, s = None, plugin_error(exc, name)
        if s is not None and s.code != Code.SUCCESS:
            return None, s.with_plugin(name)
        if not placements:
            return None, Status(Code.UNSCHEDULABLE, "no feasible placements found", plugin=name)
        return placements, None

    def run_placement_score_plugins(
        self, state: CycleState, group: PodGroupInfo, candidates: list[PodGroupAssignments]
    ) -> tuple[list[tuple[int, dict[str, int]]] | None, Status | None]:
        """Per candidate: (weighted total, plugin → weighted score), upstream's error wording."""
        per_plugin: dict[str, list[int]] = {}
        for name, pl, _ in self.placement_score_plugins:
            scores: list[int] = []
            for pga in candidates:
                try:
                    v, s = pl.score_placement(state, group, pga)
                except Exception as exc:
                    v, s = 0, plugin_error(exc, name)
                if s is not None and s.code != Code.SUCCESS:
                    return None, Status(
                        Code.ERROR,
                        f'running PlacementScore plugins: plugin "{name}" failed with: {s.message()}',
                    )
                scores.append(int(v))
            per_plugin[name] = scores
        for name, pl, _ in self.placement_score_plugins:
            ext = (
                pl.placement_score_extensions()
                if hasattr(pl, "placement_score_extensions")
                else None
            )
            if ext is None:
                continue
            s = ext.normalize_placement_score(state, group, per_plugin[name])
            if s is not None and s.code != Code.SUCCESS:
                return None, Status(
                    Code.ERROR,
                    "running NormalizePlacementScore on PlacementScore plugins: "
                    f'plugin "{name}" failed with: {s.message()}',
                )
        out: list[tuple[int, dict[str, int]]] = []
        for i in range(len(candidates)):
            total = 0
            parts: dict[str, int] = {}
            for name, _, weight in self.placement_score_plugins:
                v = per_plugin[name][i]
                if v > MAX_NODE_SCORE or v < 0:
                    return None, Status(
                        Code.ERROR,
                        "applying score defaultWeights on PlacementScore plugins: "
                        f'plugin "{name}" returns an invalid score {v}, it should in the range '
                        f"of [0, {MAX_NODE_SCORE}] after normalizing",
                    )
                parts[name] = v * weight
                total += v * weight
            out.append((total, parts))
        return out, None


_EMPTY = np.zeros(0, dtype=np.int64)
