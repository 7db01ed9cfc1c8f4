"""The filter loop: upstream ``findNodesThatPassFilters`` over per-node and vectorised filters.

Part of the framework runtime (:class:`~.runtime.Framework` runs it): the
runtime, not ``schedule_one``, decides whether a plugin's vectorised method
(:class:`~.interfaces.BatchFilterPlugin`) or its per-node ``filter`` runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .cycle_state import CycleState
from .node_info import NodeInfo
from .node_memo import FEASIBLE_ROWS, NodeMemo, pod_spec_signature
from .outcomes import filter_status, plugin_error, wrap
from .recorder import PASSED, LazyFilters, status_value
from .status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from ..objects import Pod

__all__ = ["FilterLoop", "FilterPass"]

# (name, bound filter, bound filter_batch or None)
_Filter = tuple[str, Callable[..., Any], Callable[..., Any] | None]
# CycleState key caching the filter plugins not skipped in this cycle.
_ACTIVE_FILTERS = "framework/activeFilters"
# CycleState key caching the PreFilter extensions of the plugins not skipped in this cycle.
_EXTENSIONS = "framework/preFilterExtensions"
# CycleState key: (the active filters, those of them that read the node's pods)
_POD_FILTERS = "framework/podFilters"


class FilterPass:
    """What :meth:`Framework.find_nodes_that_pass_filters` found.

    ``feasible`` in the rotated order the nodes were examined; ``examined`` how
    many nodes count as processed (upstream's ``len(feasible) + len(statuses)``);
    ``rejected`` the rejected nodes with their statuses, in examination order;
    ``error`` the first Error, which ends the search; ``verdicts`` the
    vectorised filters' verdicts per node, by plugin name, when they ran.
    """

    __slots__ = ("error", "examined", "feasible", "rejected", "verdicts")

    def __init__(
        self,
        feasible: list[NodeInfo],
        examined: int,
        rejected: list[tuple[str, Status]] | None = None,
        error: Status | None = None,
        verdicts: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.feasible = feasible
        self.examined = examined
        self.rejected = rejected if rejected is not None else []
        self.error = error
        self.verdicts = verdicts


def _called(
    filt: Callable[..., Status | None], name: str, state: CycleState, pod: Pod, ni: NodeInfo
) -> Status | None:
    """A filter's status on the node, a raised exception as the plugin's error."""
    try:
        return filt(state, pod, ni)
    except Exception as exc:
        return plugin_error(exc, name)


class FilterLoop:
    """Filter and the PreFilter extensions node by node, and the loop over the nodes;
    the runtime builds the plugin lists they read."""

    batch: bool
    vectorise: bool
    _record_filters: bool
    recorder: Any
    pre_filter_plugins: list[tuple[str, Any]]
    plugins: dict[str, Any]
    _filters: list[_Filter]
    handle: Any
    exact_diagnosis: bool
    # vectorised Filter plugins with node-local verdicts → per-node verdict (see node_memo)
    _memo_filters: dict[str, Callable[..., Any]]
    # Filter plugin → whether its verdict ignores the node's pods (``filter_reads_no_pods``)
    _reads_no_pods: dict[str, bool]
    # Filter plugin → its statuses over many nodes (``StatusBatchFilterPlugin``)
    _status_batch: dict[str, Callable[..., Any]]

    def _node_memo(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[NodeMemo, np.ndarray, str] | None:
        """The snapshot's node memo, the rows of ``nodes`` in it and the pod's spec; None: not usable."""
        try:
            snap = self.handle.snapshot()
        except Exception:  # a handle without a snapshot (unit tests)
            return None
        if not hasattr(snap, "change_log"):
            return None
        memo = NodeMemo.of(snap, self)
        rows = memo.rows(nodes, state)
        if rows is None:
            return None
        return memo, rows, pod_spec_signature(pod)

    # -- PreFilter extensions ----------------------------------------------------
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
        extensions = state.get(_EXTENSIONS)
        if extensions is None:
            extensions = self._pre_filter_extensions(state)
        for name, ext in extensions:
            try:
                if ext is None:  # asking for them failed: it fails again here, in its turn
                    ext = self.plugins[name].pre_filter_extensions()
                    if ext is None:
                        continue
                s = getattr(ext, method)(state, pod_to_schedule, other, node_info)
            except Exception as exc:
                s = plugin_error(exc, name)
            if s is not None and s.code != Code.SUCCESS:
                return wrap(
                    s, f'running {upstream_name} on PreFilter plugin "{{plugin}}": {{msg}}', name
                )
        return None

    def has_pre_filter_extensions(self, state: CycleState) -> bool:
        """Whether AddPod/RemovePod call any plugin in this cycle."""
        extensions = state.get(_EXTENSIONS)
        if extensions is None:
            extensions = self._pre_filter_extensions(state)
        return bool(extensions)

    def _pre_filter_extensions(self, state: CycleState) -> list[tuple[str, Any]]:
        """The PreFilter plugins not skipped in this cycle that have extensions, with them
        (cached in the state; a plugin whose ``pre_filter_extensions`` raised, with None)."""
        skip = state.skip_filter_plugins
        extensions: list[tuple[str, Any]] = []
        for name, pl in self.pre_filter_plugins:
            if name in skip:
                continue
            try:
                ext = pl.pre_filter_extensions()
            except Exception:
                ext = None
            else:
                if ext is None:
                    continue
            extensions.append((name, ext))
        state.write(_EXTENSIONS, extensions)
        return extensions

    # -- Filter, node by node ----------------------------------------------------
    def active_filters(self, state: CycleState) -> list[_Filter]:
        """Filter plugins not skipped by their PreFilter in this cycle (cached in the state)."""
        active = state.get(_ACTIVE_FILTERS)
        if active is None:
            skip = state.skip_filter_plugins
            active = [f for f in self._filters if f[0] not in skip] if skip else self._filters
            state.write(_ACTIVE_FILTERS, active)
        return active

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Upstream ``RunFilterPlugins``: the first rejection, in plugin order.

        When explaining, every filter runs (beyond upstream) and is recorded;
        the first rejection still decides.
        """
        return self._filter_node(state, pod, node_info, self.active_filters(state))

    def run_filter_plugins_unrecorded(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        """:meth:`run_filter_plugins` for the runtime's own checks (the batch's look at
        the previous pod's node): an explanation does not show them."""
        record = self._record_filters
        self._record_filters = False
        try:
            return self._filter_node(state, pod, node_info, self.active_filters(state))
        finally:
            self._record_filters = record

    def _filter_node(
        self,
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        filters: list[_Filter],
        passes: list[list[bool] | None] | None = None,
        j: int = 0,
        known: list[list[Status | None] | None] | None = None,
    ) -> Status | None:
        """The node's filters in order; recording, every one (beyond upstream).

        ``passes[f][j]`` True (a vectorised verdict on the node at position
        ``j``) records filter ``f`` as passed without its per-node call: the
        two decide alike. ``known[f][j]`` (recording) is filter ``f``'s status
        on that node, given by its ``filter_statuses_batch`` for every node at once.
        """
        every = self.recorder is not None and self._record_filters
        if not every:
            # not recorded: the hook's conversion inline (the hot path), stopping at the first no
            if passes is not None:
                # only the filters the vectorised verdicts do not pass
                filters = [
                    f for f, v in zip(filters, passes, strict=False) if v is None or not v[j]
                ]
            for name, filt, _ in filters:
                try:
                    s = filt(state, pod, node_info)
                except Exception as exc:
                    s = plugin_error(exc, name)
                if s is not None and s.code != Code.SUCCESS:
                    return filter_status(s, name)
            return None
        # recorded: what _call("filter", ...) does, inlined (every node of every
        # explanation passes here), into the node's entry of the pod's record
        rec = self.recorder
        assert rec is not None
        values = rec.filter_values(pod.key, node_info.name)
        first: Status | None = None
        for f, (name, filt, _) in enumerate(filters):
            if passes is not None:
                passed = passes[f]
                if passed is not None and passed[j]:
                    values[name] = PASSED
                    continue
            statuses = known[f] if known is not None else None
            s = statuses[j] if statuses is not None else _called(filt, name, state, pod, node_info)
            if s is None:
                values[name] = PASSED
                continue
            if s.code != Code.SUCCESS:
                s = filter_status(s, name)
                if first is None:
                    first = s
            values[name] = status_value(s)
        return first

    @staticmethod
    def _filter_node_kept(
        state: CycleState,
        pod: Pod,
        node_info: NodeInfo,
        opened: list[tuple[str, Any, Any, Any]],
        j: int,
        calls: dict[int, list[Status | None]],
    ) -> Status | None:
        """:meth:`_filter_node` recorded lazily: the same calls, in the same order, and
        the first rejection; the statuses of the filters called go to ``calls[j]``.

        ``opened``: ``(name, filter, verdicts, statuses)`` of the filters some node
        does not pass by its verdict (the others pass every node)."""
        first: Status | None = None
        called: list[Status | None] | None = None
        for name, filt, passed, statuses in opened:
            if passed is not None and passed[j]:
                continue
            if statuses is None:
                s = _called(filt, name, state, pod, node_info)
                if called is None:
                    called = calls[j] = []
                called.append(s)
            else:
                s = statuses[j]
            if first is None and s is not None and s.code != Code.SUCCESS:
                first = filter_status(s, name)
        return first

    def _record_passed(self, pod: Pod, node_info: NodeInfo, passed: dict[str, Any]) -> None:
        """Record the node as passing every filter (their vectorised verdicts say so).

        ``passed`` is ``passed_values(filters)``: each filter's name → PASSED.
        """
        assert self.recorder is not None
        per_node = self.recorder.pod(pod.key).setdefault("filter", {})
        values = per_node.get(node_info.name)
        if values is None:
            per_node[node_info.name] = dict(passed)
        else:
            values.update(passed)

    @staticmethod
    def passed_values(filters: list[_Filter]) -> dict[str, Any]:
        """What a node passing every one of ``filters`` records: name → PASSED, in order."""
        return dict.fromkeys((name for name, _, _ in filters), PASSED)

    def run_filter_plugins_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        """Upstream's two passes: with, then without, nominated pods of >= priority.

        Pass one treats those nominated pods as running (the pod must not take
        room opened for them); if it passes and pods were added, pass two runs
        without them (filters such as pod affinity may depend on their absence).
        """
        return self._filter_node_with_nominated_pods(
            state, pod, node_info, self.active_filters(state)
        )

    def refilter_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo
    ) -> Status | None:
        """:meth:`run_filter_plugins_with_nominated_pods` again on a node it passed, since
        when only the node's pods changed: whether it passes still (not its status).

        Filters that declare ``filter_reads_no_pods`` pass again whatever pods
        the node holds, so only the others run (all of them when recorded).
        """
        if self.recorder is not None and self._record_filters:
            active = self.active_filters(state)
            return self._filter_node_with_nominated_pods(state, pod, node_info, active)
        known = state.get(_POD_FILTERS)
        # (the active filters are kept in the state once asked for: ``active_filters``)
        if known is None or known[0] is not state.get(_ACTIVE_FILTERS):
            active = self.active_filters(state)
            reading = [f for f in active if not self._reads_no_pods.get(f[0], False)]
            known = (active, reading)
            state.write(_POD_FILTERS, known)
        return self._filter_node_with_nominated_pods(state, pod, node_info, known[1])

    def _filter_node_with_nominated_pods(
        self, state: CycleState, pod: Pod, node_info: NodeInfo, filters: list[_Filter]
    ) -> Status | None:
        nominated = self.handle.nominated_pods_for_node(node_info.name)
        if not nominated:
            return self._filter_node(state, pod, node_info, filters)
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
            return self._filter_node(state, pod, node_info, filters)
        assert state_out is not None
        s = self._filter_node(state_out, pod, info_out, filters)
        if s is not None and s.code != Code.SUCCESS:
            return s
        return self._filter_node(state, pod, node_info, filters)

    # -- the loop over the nodes -------------------------------------------------
    def find_nodes_that_pass_filters(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], start: int, to_find: int
    ) -> FilterPass:
        """Upstream ``findNodesThatPassFilters``' loop, from ``nodes[start]`` round the list.

        The search ends when ``to_find`` nodes pass (when explaining, the rest
        are still run and recorded, not decided on).  Vectorised filters, when
        used, first narrow the candidates to the nodes they all pass; the
        other filters (every filter, on nodes with nominated pods) then run per
        node.  When no candidate passes, the per-node run over every node
        gives each node its exact status.
        """
        n = len(nodes)
        active = self.active_filters(state)
        if self.recorder is not None and self.vectorise and self._record_filters:
            # explaining: every node is recorded, but what a vectorised filter lets
            # through needs no per-node call
            known = self._statuses(state, pod, nodes, active)
            passes = self._vectorised_passes(state, pod, nodes, active, known)
            return self._pass_per_node(
                state, pod, nodes, range(start, start + n), start, to_find, active, passes, known
            )
        vectorised = [(name, fb) for name, _, fb in active if fb is not None] if self.batch else []
        if vectorised:
            found = self._pass_vectorised(state, pod, nodes, start, to_find, active, vectorised)
            if found.error is not None or found.feasible:
                return found
            if not self.exact_diagnosis:
                quick = self._diagnose_vectorised(state, pod, nodes, active)
                if quick is not None:
                    return quick
            if found.verdicts:
                # each node's exact status: only the filters its verdicts do not pass run
                verdicts = found.verdicts
                known = [verdicts.get(name) for name, _, _ in active]
                passes = [None if v is None else v.tolist() for v in known]
                passes.append(None)  # (no node passes every filter: none is feasible)
                return self._pass_per_node(
                    state, pod, nodes, range(start, start + n), start, to_find, active, passes
                )
        return self._pass_per_node(
            state, pod, nodes, range(start, start + n), start, to_find, active
        )

    def _statuses(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], active: list[_Filter]
    ) -> list[list[Status | None] | None] | None:
        """Per active filter, its status on every node from ``filter_statuses_batch``
        (None: it has none, or it failed and the per-node calls report it)."""
        if not self._status_batch:
            return None
        known: list[list[Status | None] | None] = []
        for name, _, _ in active:
            statuses = None
            sb = self._status_batch.get(name)
            if sb is not None:
                try:
                    statuses = sb(state, pod, nodes)
                except Exception:
                    statuses = None
            known.append(statuses)
        return known

    def _vectorised_passes(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        active: list[_Filter],
        known: list[list[Status | None] | None] | None = None,
    ) -> list[list[bool] | None] | None:
        """Per active filter, its vectorised verdict per node (None: called per node),
        then whether all passed the node (None unless every filter has a verdict).
        A filter's statuses (``known``) give its verdicts."""
        passes: list[list[bool] | None] = []
        every: np.ndarray | None = np.ones(len(nodes), dtype=bool)
        for f, (_, _, fb) in enumerate(active):
            verdict = None
            statuses = known[f] if known is not None else None
            if statuses is not None:
                # a status other than None is recorded as the per-node call would
                verdict = np.fromiter((st is None for st in statuses), bool, len(nodes))
            elif fb is not None:
                try:
                    verdict = fb(state, pod, nodes)
                except Exception:  # the per-node call reports it, as without batch
                    verdict = None
            if verdict is None:
                every = None
            elif every is not None:
                every &= verdict
            passes.append(None if verdict is None else verdict.tolist())
        if all(v is None for v in passes):
            return None
        # last: per node, whether every filter passed it (None: some run per node)
        passes.append(None if every is None else every.tolist())
        return passes

    def _diagnose_vectorised(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo], active: list[_Filter]
    ) -> FilterPass | None:
        """Every node rejected by its first vectorised filter (None unless all filters are)."""
        if any(fb is None for _, _, fb in active) or self.handle.has_nominated_pods():
            return None
        undecided = np.ones(len(nodes), dtype=bool)
        rejected: list[tuple[str, Status]] = []
        for name, _, fb in active:
            failed = undecided & ~fb(state, pod, nodes)
            if failed.any():
                s = Status(Code.UNSCHEDULABLE, f"node(s) didn't satisfy plugin {name}", plugin=name)
                rejected.extend((nodes[j].name, s) for j in np.flatnonzero(failed).tolist())
                undecided &= ~failed
        if undecided.any():
            return None
        return FilterPass([], len(nodes), rejected)

    def _pass_vectorised(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        start: int,
        to_find: int,
        active: list[_Filter],
        vectorised: list[tuple[str, Callable[..., Any]]],
    ) -> FilterPass:
        n = len(nodes)
        mask: np.ndarray | None = None
        verdicts: dict[str, np.ndarray] = {}
        memo = self._node_memo(state, pod, nodes) if self._memo_filters else None
        for name, fb in vectorised:
            m = None
            if memo is not None and name in self._memo_filters:
                key = ("filter", name, memo[2])
                one = self._memo_filters[name]
                m = memo[0].values(key, memo[1], state, pod, one, fb, np.bool_)
            if m is None:
                try:
                    m = fb(state, pod, nodes)
                except Exception as exc:
                    return FilterPass([], 0, error=filter_status(plugin_error(exc, name), name))
            verdicts[name] = m
            mask = m if mask is None else (mask & m)
        idx = np.flatnonzero(mask)
        if start:
            cut = int(np.searchsorted(idx, start))
            idx = np.concatenate((idx[cut:], idx[:cut]))
        rest = [f for f in active if f[2] is None]
        if not rest and not self.handle.has_nominated_pods():
            # every filter decided at once: the first to_find survivors
            rows = idx[:to_find]
            chosen = rows.tolist()
            feasible = [nodes[j] for j in chosen]
            # the score memo reads the rows back instead of looking each node up again
            state.write(FEASIBLE_ROWS, (feasible, nodes, rows))
            if len(chosen) >= to_find:
                return FilterPass(feasible, ((chosen[-1] - start) % n) + 1)
            return FilterPass(feasible, n, verdicts=verdicts)
        found = self._pass_per_node(state, pod, nodes, idx.tolist(), start, to_find, rest)
        if found.error is not None:
            found.examined = 0
        found.verdicts = verdicts
        return found

    def _pass_per_node(
        self,
        state: CycleState,
        pod: Pod,
        nodes: Sequence[NodeInfo],
        order: Sequence[int],
        start: int,
        to_find: int,
        filters: list[_Filter],
        passes: list[list[bool] | None] | None = None,
        known: list[list[Status | None] | None] | None = None,
    ) -> FilterPass:
        """The one per-node loop over the positions ``order`` (taken modulo ``len(nodes)``).

        Nodes with nominated pods run every active filter, with upstream's
        two passes; the others run ``filters`` (``passes``: see ``_filter_node``).
        """
        n = len(nodes)
        feasible: list[NodeInfo] = []
        rejected: list[tuple[str, Status]] = []
        examined = n
        explain = self.recorder is not None
        done = False
        nominated = (
            self.handle.nominated_pods_for_node if self.handle.has_nominated_pods() else None
        )
        active = self.active_filters(state)
        every = passes[-1] if passes is not None else None
        passed = self.passed_values(filters) if explain and every is not None else {}
        kept = per_node = None
        if explain and passes is not None and self.recorder.lazy:
            names = [name for name, _, _ in filters]
            kept = LazyFilters(names, passes, known, self.passed_values(filters))
            per_node = self.recorder.lazy_filters(pod.key, kept)
            filt_of = {name: filt for name, filt, _ in filters}
            opened = [(name, filt_of[name], p, st) for name, p, st in kept.open]
        for k in order:
            j = k % n
            ni = nodes[j]
            if nominated is not None and nominated(ni.name):
                s = self._filter_node_with_nominated_pods(state, pod, ni, active)
            elif passes is None:
                s = self._filter_node(state, pod, ni, filters)
            elif kept is not None:
                s = None
                if every is None or not every[j]:
                    s = self._filter_node_kept(state, pod, ni, opened, j, kept.calls)
                values = per_node.get(ni.name)
                if values is None:
                    per_node[ni.name] = j
                else:  # recorded before this pass (the nominated node): merged, as the loop does
                    values.update(kept.values(j))
            elif every is not None and every[j]:
                self._record_passed(pod, ni, passed)
                s = None
            else:
                s = self._filter_node(state, pod, ni, filters, passes, j, known)
            if done:
                # explaining only: nodes past the cut-off are recorded, not decided on
                continue
            if s is None or s.code == Code.SUCCESS:
                feasible.append(ni)
                if len(feasible) >= to_find:
                    examined = ((j - start) % n) + 1
                    if not explain:
                        break
                    done = True
            elif s.code == Code.ERROR:
                return FilterPass([], ((j - start) % n) + 1, rejected, s)
            else:
                rejected.append((ni.name, s))
        return FilterPass(feasible, examined, rejected)
