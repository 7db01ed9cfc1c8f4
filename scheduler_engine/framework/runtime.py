"""The framework runtime: one profile's plugins, called per extension point.

Upstream counterpart: ``pkg/scheduler/framework/runtime/framework.go``.  A
:class:`Framework` is built once per profile from a resolved
:class:`~scheduler_engine.config.types.ProfileConfig`, a
:class:`~scheduler_engine.framework.registry.Registry` and a handle; it keeps
one list per extension point, in configured order, and every plugin call of
the engine goes through its ``run_*`` methods.  That is the one place where

* exceptions raised by plugins (bugs) become ``ERROR`` statuses naming the
  plugin, worded as upstream wraps plugin errors;
* results are recorded for explanations (only when a recorder is attached,
  so the fast path pays nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .cycle_state import CycleState
from .interfaces import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    POINT_METHODS,
    NodeScore,
    NodeToStatus,
    PostFilterResult,
    PreFilterResult,
    QueuedPodInfo,
)
from .node_info import NodeInfo
from .recorder import Recorder, status_value
from .status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from ..config.types import ProfileConfig
    from ..objects import Pod
    from .registry import Registry

__all__ = ["MAX_PERMIT_TIMEOUT", "Framework", "ScoreResult", "go_duration"]

# Permit plugins may not ask to wait longer than this (upstream maxTimeout).
MAX_PERMIT_TIMEOUT = 15 * 60.0

# CycleState key caching the filter plugins not skipped in this cycle.
_ACTIVE_FILTERS = "framework/activeFilters"

# Method each point calls, to find the plugins of a point among the instances.
_POINT_METHODS = POINT_METHODS


def _error(exc: BaseException, plugin: str) -> Status:
    """An exception raised by a plugin: a bug, reported as an ERROR status."""
    return Status(Code.ERROR, f"{type(exc).__name__}: {exc}", plugin=plugin, error=exc)


def _wrap(status: Status, fmt: str, plugin: str) -> Status:
    """Upstream's ``fmt.Errorf("running X plugin %q: %w", ...)`` around a non-rejection."""
    msg = fmt.format(plugin=plugin, msg=status.message())
    return Status(Code.ERROR, msg, plugin=plugin, error=status.error)


def go_duration(seconds: float) -> str:
    """A duration as Go's ``time.Duration.String()`` prints it (``10s``, ``1m30s``, ``500ms``)."""
    ns = round(seconds * 1e9)
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    if ns < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if ns >= size:
                return sign + _trim(ns / size) + unit
    h, rem = divmod(ns, 3_600_000_000_000)
    m, rem = divmod(rem, 60_000_000_000)
    s = _trim(rem / 1e9)
    out = ""
    if h:
        out += f"{h}h"
    if h or m:
        out += f"{m}m"
    return sign + out + s + "s"


def _trim(x: float) -> str:
    text = f"{x:.9f}".rstrip("0").rstrip(".")
    return text or "0"


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


class Framework:
    """One profile's plugins, with upstream's semantics for running each extension point."""

    def __init__(
        self,
        profile: ProfileConfig,
        registry: Registry,
        handle: Any,
        *,
        recorder: Recorder | None = None,
    ) -> None:
        self.profile = profile
        self.profile_name = profile.scheduler_name
        self.percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score
        self.handle = handle
        self.recorder = recorder
        # recording filter calls is switched off while PostFilter simulates evictions
        self._record_filters = True
        # plugins enabled by the configuration but absent from the registry (arriving later)
        self.missing_plugins: list[str] = []
        self.plugins: dict[str, Any] = {}

        needed: list[str] = []
        for point in _POINT_METHODS:
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
                if inst is not None and callable(getattr(inst, _POINT_METHODS[p], None)):
                    out.append((ref.name, inst))
            return out

        self.pre_enqueue_plugins = point("preEnqueue")
        qs = point("queueSort")
        self.queue_sort_plugin = qs[0][1] if qs else None
        self.pre_filter_plugins = point("preFilter")
        self.filter_plugins = point("filter")
        # (name, bound filter method, bound filter_batch or None)
        self._filters: list[tuple[str, Callable[..., Any], Callable[..., Any] | None]] = [
            (n, p.filter, getattr(p, "filter_batch", None)) for n, p in self.filter_plugins
        ]
        self.post_filter_plugins = point("postFilter")
        self.pre_score_plugins = point("preScore")
        weights = {ref.name: ref.weight for ref in profile.enabled("score")}
        self.score_plugins: list[tuple[str, Any, int]] = [
            (n, p, weights.get(n) or 1) for n, p in point("score")
        ]
        self.reserve_plugins = point("reserve")
        self.permit_plugins = point("permit")
        self.pre_bind_plugins = point("preBind")
        self.bind_plugins = point("bind")
        self.post_bind_plugins = point("postBind")

    # -- small queries ----------------------------------------------------------
    def has_filter_plugins(self) -> bool:
        return bool(self.filter_plugins)

    def has_post_filter_plugins(self) -> bool:
        return bool(self.post_filter_plugins)

    def has_score_plugins(self) -> bool:
        return bool(self.score_plugins)

    def queue_sort_less(self) -> Callable[[QueuedPodInfo, QueuedPodInfo], bool]:
        if self.queue_sort_plugin is None:
            return lambda a, b: False
        return self.queue_sort_plugin.less

    # -- PreEnqueue -------------------------------------------------------------
    def run_pre_enqueue_plugins(self, pod: Pod) -> Status | None:
        """The first non-success status (the gating plugin), or None."""
        rec = self.recorder
        for name, pl in self.pre_enqueue_plugins:
            try:
                s = pl.pre_enqueue(pod)
            except Exception as exc:
                s = _error(exc, name)
            if rec is not None:
                rec.record(pod.key, "preEnqueue", "", name, status_value(s))
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
        rec = self.recorder
        try:
            for name, pl in self.pre_filter_plugins:
                try:
                    r, s = pl.pre_filter(state, pod, nodes)
                except Exception as exc:
                    r, s = None, _error(exc, name)
                if rec is not None:
                    v = status_value(s)
                    if r is not None and r.node_names is not None and not (s and s.is_skip()):
                        v["nodeNames"] = sorted(r.node_names)
                    rec.record(pod.key, "preFilter", "", name, v)
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
                    return (
                        None,
                        _wrap(s, 'running PreFilter plugin "{plugin}": {msg}', name),
                        set(),
                    )
                if r is not None and r.node_names is not None:
                    plugins_with_nodes.add(name)
                    result = r if result is None else result.merge(r)
                    if not result.node_names:
                        names = sorted(plugins_with_nodes)
                        if len(names) == 1:
                            msg = f"node(s) didn't satisfy plugin {names[0]}"
                        else:
                            msg = (
                                f"node(s) didn't satisfy plugin(s) {go_list(names)} simultaneously"
                            )
                        return (
                            result,
                            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg),
                            plugins_with_nodes,
                        )
            return result, return_status, plugins_with_nodes
        finally:
            state.skip_filter_plugins = skip
            state.delete(_ACTIVE_FILTERS)

    def run_pre_filter_extension_add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        return self._run_pre_filter_extension(
            state, pod_to_schedule, pod_to_add, node_info, "add_pod", "AddPod"
        )

    def run_pre_filter_extension_remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        return self._run_pre_filter_extension(
            state, pod_to_schedule, pod_to_remove, node_info, "remove_pod", "RemovePod"
        )

    def _run_pre_filter_extension(
        self,
        state: CycleState,
        pod_to_schedule: Pod,
        other: Pod,
        node_info: NodeInfo,
        method: str,
        upstream_name: str,
    ) -> Status | None:
        skip = state.skip_filter_plugins
        for name, pl in self.pre_filter_plugins:
            if name in skip:
                continue
            try:
                ext = pl.pre_filter_extensions()
                if ext is None:
                    continue
                s = getattr(ext, method)(state, pod_to_schedule, other, node_info)
            except Exception as exc:
                s = _error(exc, name)
            if s is not None and s.code != Code.SUCCESS:
                return Status(
                    Code.ERROR,
                    f'running {upstream_name} on PreFilter plugin "{name}": {s.message()}',
                    plugin=name,
                    error=s.error,
                )
        return None

    # -- Filter -----------------------------------------------------------------
    def active_filters(
        self, state: CycleState
    ) -> list[tuple[str, Callable[..., Any], Callable[..., Any] | None]]:
        """Filter plugins not skipped by their PreFilter in this cycle (cached in the state)."""
        active = state.get(_ACTIVE_FILTERS)
        if active is None:
            skip = state.skip_filter_plugins
            active = [f for f in self._filters if f[0] not in skip] if skip else self._filters
            state.write(_ACTIVE_FILTERS, active)
        return active

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Upstream ``RunFilterPlugins``: the first rejection, in plugin order."""
        if self.recorder is not None and self._record_filters:
            return self._run_filter_plugins_explained(state, pod, node_info)
        for name, filt, _ in self.active_filters(state):
            try:
                s = filt(state, pod, node_info)
            except Exception as exc:
                return Status(
                    Code.ERROR,
                    f'running "{name}" filter plugin: {type(exc).__name__}: {exc}',
                    plugin=name,
                    error=exc,
                )
            if s is not None and s.code != Code.SUCCESS:
                if s.code not in (
                    Code.UNSCHEDULABLE,
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    Code.PENDING,
                ):
                    return _wrap(s, 'running "{plugin}" filter plugin: {msg}', name)
                s.plugin = name
                return s
        return None

    def _run_filter_plugins_explained(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        """Every filter runs (beyond upstream) and is recorded; the first rejection decides."""
        first: Status | None = None
        rec = self.recorder
        assert rec is not None
        node = node_info.name
        for name, filt, _ in self.active_filters(state):
            try:
                s = filt(state, pod, node_info)
            except Exception as exc:
                s = Status(
                    Code.ERROR,
                    f'running "{name}" filter plugin: {type(exc).__name__}: {exc}',
                    plugin=name,
                    error=exc,
                )
            rec.record(pod.key, "filter", node, name, status_value(s))
            if s is not None and s.code != Code.SUCCESS and first is None:
                if s.code not in (
                    Code.UNSCHEDULABLE,
                    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                    Code.PENDING,
                    Code.ERROR,
                ):
                    s = _wrap(s, 'running "{plugin}" filter plugin: {msg}', name)
                s.plugin = name
                first = s
        return first

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        """Upstream's two passes: with, then without, nominated pods of >= priority.

        Pass one treats those nominated pods as running (the pod must not take
        room opened for them); if it passes and pods were added, pass two runs
        without them (filters such as pod affinity may depend on their absence).
        """
        nominated = self.handle.nominated_pods_for_node(node_info.name)
        if not nominated:
            return self.run_filter_plugins(state, pod, node_info)
        state_out: CycleState | None = None
        info_out: NodeInfo | None = None
        prio = pod.priority
        for p in nominated:
            if p.priority >= prio and p.uid != pod.uid:
                if info_out is None:
                    info_out = node_info.clone()
                    state_out = state.clone()
                info_out.add_pod(p)
                assert state_out is not None
                s = self.run_pre_filter_extension_add_pod(state_out, pod, p, info_out)
                if s is not None and s.code != Code.SUCCESS:
                    return s
        if info_out is None:
            return self.run_filter_plugins(state, pod, node_info)
        assert state_out is not None
        s = self.run_filter_plugins(state_out, pod, info_out)
        if s is not None and s.code != Code.SUCCESS:
            return s
        return self.run_filter_plugins(state, pod, node_info)

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
        rec = self.recorder
        self._record_filters = False
        try:
            for name, pl in self.post_filter_plugins:
                try:
                    r, s = pl.post_filter(state, pod, filtered)
                except Exception as exc:
                    r, s = None, _error(exc, name)
                if rec is not None:
                    v = status_value(s)
                    if r is not None and r.nominating_info is not None:
                        v["nominatedNode"] = r.nominating_info.nominated_node_name
                    if r is not None and r.victims:
                        v["victims"] = [p.key for p in r.victims]
                    rec.record(pod.key, "postFilter", "", name, v)
                if s is None or s.code == Code.SUCCESS:
                    return r, s if s is not None else Status(Code.SUCCESS, plugin=name)
                if s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                    return r, s.with_plugin(name)
                if s.code not in (Code.UNSCHEDULABLE, Code.PENDING):
                    return None, Status(Code.ERROR, *s.reasons, plugin=name, error=s.error)
                if (
                    r is not None
                    and r.nominating_info is not None
                    and (r.nominating_info.mode != "Noop")
                ):
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
        rec = self.recorder
        try:
            for name, pl in self.pre_score_plugins:
                try:
                    s = pl.pre_score(state, pod, nodes)
                except Exception as exc:
                    s = _error(exc, name)
                if rec is not None:
                    rec.record(pod.key, "preScore", "", name, status_value(s))
                if s is not None and s.code == Code.SKIP:
                    skip.add(name)
                    continue
                if s is not None and s.code != Code.SUCCESS:
                    return _wrap(s, 'running PreScore plugin "{plugin}": {msg}', name)
            return None
        finally:
            state.skip_score_plugins = skip

    def run_score_plugins(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], *, batch: bool = True
    ) -> tuple[ScoreResult | None, Status | None]:
        """Raw scores, NormalizeScore, weights and totals (upstream ``RunScorePlugins``).

        A plugin's ``score_batch`` is used when ``batch`` (never when explaining
        per node would differ: both must agree exactly).  A score outside
        [0, 100] after normalizing is an error, as upstream.
        """
        n = len(nodes)
        res = ScoreResult(n)
        skip = state.skip_score_plugins
        rec = self.recorder
        explain = rec is not None
        for name, pl, weight in self.score_plugins:
            if name in skip:
                continue
            # raw scores
            raw: np.ndarray
            try:
                sb = getattr(pl, "score_batch", None) if batch else None
                if sb is not None:
                    raw = np.asarray(sb(state, pod, nodes), dtype=np.int64)
                else:
                    raw = np.empty(n, dtype=np.int64)
                    score = pl.score
                    for i, ni in enumerate(nodes):
                        v = score(state, pod, ni)
                        if isinstance(v, Status):
                            if v.code == Code.SUCCESS:
                                v = 0
                            else:
                                return None, Status(
                                    Code.ERROR,
                                    f'running Score plugins: plugin "{name}" failed with: '
                                    f"{v.message()}",
                                    plugin=name,
                                    error=v.error,
                                )
                        raw[i] = v
            except Exception as exc:
                return None, Status(
                    Code.ERROR,
                    f'running Score plugins: plugin "{name}" failed with: '
                    f"{type(exc).__name__}: {exc}",
                    plugin=name,
                    error=exc,
                )
            # normalize
            norm = raw
            try:
                ext = pl.score_extensions()
                if ext is not None:
                    nb = getattr(ext, "normalize_score_batch", None) if batch else None
                    if nb is not None:
                        norm = raw.copy()
                        out = nb(state, pod, norm)
                        if isinstance(out, Status):
                            s: Status | None = out
                        else:
                            s = None
                            if out is not None:
                                norm = np.asarray(out, dtype=np.int64)
                    else:
                        scores = [
                            NodeScore(ni.name, int(v)) for ni, v in zip(nodes, raw, strict=True)
                        ]
                        s = ext.normalize_score(state, pod, scores)
                        norm = np.fromiter((x.score for x in scores), dtype=np.int64, count=n)
                    if s is not None and s.code != Code.SUCCESS:
                        return None, Status(
                            Code.ERROR,
                            f'running Normalize on Score plugins: plugin "{name}" failed with: '
                            f"{s.message()}",
                            plugin=name,
                            error=s.error,
                        )
            except Exception as exc:
                return None, Status(
                    Code.ERROR,
                    f'running Normalize on Score plugins: plugin "{name}" failed with: '
                    f"{type(exc).__name__}: {exc}",
                    plugin=name,
                    error=exc,
                )
            if n and (int(norm.max()) > MAX_NODE_SCORE or int(norm.min()) < MIN_NODE_SCORE):
                bad = int(norm.max()) if int(norm.max()) > MAX_NODE_SCORE else int(norm.min())
                return None, Status(
                    Code.ERROR,
                    "applying score defaultWeights on Score plugins: "
                    f'plugin "{name}" returns an invalid score {bad}, it should in the range of '
                    f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",
                    plugin=name,
                )
            res.totals += norm * weight
            if explain:
                res.plugins.append(name)
                res.raw[name] = raw
                res.normalized[name] = norm
                res.weights[name] = weight
        if rec is not None:
            for name in res.plugins:
                w = res.weights[name]
                raw, norm = res.raw[name], res.normalized[name]
                for i, ni in enumerate(nodes):
                    rec.record(
                        pod.key,
                        "score",
                        ni.name,
                        name,
                        {
                            "raw": int(raw[i]),
                            "normalized": int(norm[i]),
                            "weighted": int(norm[i]) * w,
                        },
                    )
        return res, None

    # -- Reserve / Permit ---------------------------------------------------------
    def run_reserve_plugins_reserve(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        rec = self.recorder
        for name, pl in self.reserve_plugins:
            try:
                s = pl.reserve(state, pod, node)
            except Exception as exc:
                s = _error(exc, name)
            if rec is not None:
                rec.record(pod.key, "reserve", node, name, status_value(s))
            if s is not None and s.code != Code.SUCCESS:
                if s.is_rejected():
                    s.plugin = name
                    return s
                return _wrap(s, 'running Reserve plugin "{plugin}": {msg}', name)
        return None

    def run_reserve_plugins_unreserve(self, state: CycleState, pod: Pod, node: str) -> None:
        """Unreserve in the reverse order of Reserve; failures cannot be reported."""
        rec = self.recorder
        for name, pl in reversed(self.reserve_plugins):
            try:
                pl.unreserve(state, pod, node)
                v: Any = {"code": "Success", "reasons": []}
            except Exception as exc:
                v = status_value(_error(exc, name))
            if rec is not None:
                rec.record(pod.key, "unreserve", node, name, v)

    def run_permit_plugins(
        self, state: CycleState, pod: Pod, node: str
    ) -> tuple[Status | None, dict[str, float]]:
        """(status, plugin → wait timeout); WAIT when a plugin waits and none rejects."""
        waits: dict[str, float] = {}
        wait_status: Status | None = None
        rec = self.recorder
        for name, pl in self.permit_plugins:
            try:
                s, timeout = pl.permit(state, pod, node)
            except Exception as exc:
                s, timeout = _error(exc, name), 0.0
            if rec is not None:
                v = status_value(s)
                if s is not None and s.code == Code.WAIT:
                    v["timeout"] = go_duration(min(float(timeout), MAX_PERMIT_TIMEOUT))
                rec.record(pod.key, "permit", node, name, v)
            if s is None or s.code == Code.SUCCESS:
                continue
            if s.is_rejected():
                return s.with_plugin(name), {}
            if s.code == Code.WAIT:
                waits[name] = min(float(timeout), MAX_PERMIT_TIMEOUT)
                wait_status = s
                continue
            return _wrap(s, 'running Permit plugin "{plugin}": {msg}', name), {}
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
        rec = self.recorder
        for name, pl in self.pre_bind_plugins:
            try:
                s = pl.pre_bind(state, pod, node)
            except Exception as exc:
                s = _error(exc, name)
            if rec is not None:
                rec.record(pod.key, "preBind", node, name, status_value(s))
            if s is not None and s.code not in (Code.SUCCESS, Code.SKIP):
                if s.is_rejected():
                    s.plugin = name
                    return s
                return _wrap(s, 'running PreBind plugin "{plugin}": {msg}', name)
        return None

    def run_bind_plugins(self, state: CycleState, pod: Pod, node: str) -> Status | None:
        """The first binder that does not SKIP binds; SKIP from all (or no binder) is SKIP."""
        if not self.bind_plugins:
            return Status(Code.SKIP)
        rec = self.recorder
        status: Status | None = None
        for name, pl in self.bind_plugins:
            try:
                status = pl.bind(state, pod, node)
            except Exception as exc:
                status = _error(exc, name)
            if rec is not None:
                rec.record(pod.key, "bind", node, name, status_value(status))
            if status is not None and status.code == Code.SKIP:
                continue
            if status is not None and status.code != Code.SUCCESS:
                if status.is_rejected():
                    status.plugin = name
                    return status
                return _wrap(status, 'running Bind plugin "{plugin}": {msg}', name)
            return status
        return status

    def run_post_bind_plugins(self, state: CycleState, pod: Pod, node: str) -> None:
        rec = self.recorder
        for name, pl in self.post_bind_plugins:
            try:
                pl.post_bind(state, pod, node)
                v: Any = {"code": "Success", "reasons": []}
            except Exception as exc:
                v = status_value(_error(exc, name))
            if rec is not None:
                rec.record(pod.key, "postBind", node, name, v)


def go_list(items: Sequence[str]) -> str:
    """A string slice as Go's ``%v`` prints it: ``[A B]``."""
    return "[" + " ".join(items) + "]"
