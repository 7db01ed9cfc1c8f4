"""Every filter of a profile on a node, not only the first that rejects.

A :class:`Probe` runs one profile's PreFilter plugins for a pod and then
each of its Filter plugins on the nodes asked about, through the framework's
own plugin lists, so what it reports is what the scheduler would decide.
It is the one place the what-if modules call the engine from: nearest fit
reads its failures, and every candidate change is verified with it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..framework.cycle_state import CycleState
from ..framework.node_info import NodeInfo
from ..framework.outcomes import plugin_error
from ..framework.runtime import Framework
from ..framework.snapshot import Snapshot
from ..framework.status import Code, Status
from ..objects import Pod

__all__ = ["Failure", "Prepared", "Probe"]


@dataclass(frozen=True, slots=True)
class Failure:
    """One filter plugin's rejection of one node: its name and its reasons, as it words them."""

    plugin: str
    reasons: tuple[str, ...]
    unresolvable: bool = False

    @property
    def reason(self) -> str:
        return ", ".join(self.reasons)

    def to_dict(self) -> dict[str, str]:
        return {"plugin": self.plugin, "reason": self.reason}


@dataclass(slots=True)
class Prepared:
    """A pod's PreFilter outcome: the cycle state its filters read."""

    pod: Pod
    state: CycleState
    # nodes a PreFilter narrowed the search to (None: all), and which plugins did
    allowed: frozenset[str] | None
    narrowed_by: tuple[str, ...]
    # a PreFilter rejection that holds for every node (None: the filters decide)
    rejection: Failure | None


@contextmanager
def _unrecorded(fwk: Framework) -> Iterator[None]:
    """Calls made here leave the explanation's record alone."""
    rec, fwk.recorder = fwk.recorder, None
    try:
        yield
    finally:
        fwk.recorder = rec


class Probe:
    """One profile's filters over one snapshot."""

    def __init__(self, fwk: Framework) -> None:
        self.fwk = fwk

    @property
    def snapshot(self) -> Snapshot:
        return self.fwk.handle.snapshot()

    def prepare(self, pod: Pod) -> Prepared:
        """Run the PreFilter plugins for ``pod`` on the whole snapshot."""
        state = CycleState()
        with _unrecorded(self.fwk):
            result, status, plugins = self.fwk.run_pre_filter_plugins(state, pod)
        allowed = result.node_names if result is not None else None
        rejection = None
        if status is not None and status.code != Code.SUCCESS:
            # the scheduler stops at a PreFilter that fails, whatever others narrowed to
            default = "PreFilter" if allowed is None else ", ".join(sorted(plugins))
            rejection = _failure(status, status.plugin or default)
        return Prepared(pod, state, allowed, tuple(sorted(plugins)), rejection)

    def failures(self, prep: Prepared, node_info: NodeInfo) -> list[Failure]:
        """Every filter that rejects the node (empty: the pod fits there)."""
        if prep.rejection is not None:
            return [prep.rejection]
        out: list[Failure] = []
        if prep.allowed is not None and node_info.name not in prep.allowed:
            out.append(self._narrowed(prep))
        for name, filt, _ in self.fwk.active_filters(prep.state):
            try:
                s = filt(prep.state, prep.pod, node_info)
            except Exception as exc:  # a plugin bug: reported as the runtime would
                s = plugin_error(exc, name)
            if s is not None and s.code != Code.SUCCESS:
                out.append(_failure(s, name))
        return out

    def every_node(self, prep: Prepared) -> Iterator[tuple[NodeInfo, list[Failure]]]:
        """:meth:`failures` of every node of the snapshot, in its order.

        Filters with a vectorised method first decide every node at once; a
        plugin's per-node method then runs only where it rejects (for its
        reasons). The two paths decide alike (the engine's property tests).
        """
        nodes = self.snapshot.node_info_list
        passes: dict[str, Any] = {}
        if prep.rejection is None:
            for name, _, batch in self.fwk.active_filters(prep.state):
                if batch is None:
                    continue
                try:
                    passes[name] = batch(prep.state, prep.pod, nodes).tolist()
                except Exception:  # the per-node method reports it, as the runtime would
                    continue
        if not passes:
            for ni in nodes:
                yield ni, self.failures(prep, ni)
            return
        filters = self.fwk.active_filters(prep.state)
        for j, ni in enumerate(nodes):
            out: list[Failure] = []
            if prep.allowed is not None and ni.name not in prep.allowed:
                out.append(self._narrowed(prep))
            for name, filt, _ in filters:
                ok = passes.get(name)
                if ok is not None and ok[j]:
                    continue
                try:
                    s = filt(prep.state, prep.pod, ni)
                except Exception as exc:
                    s = plugin_error(exc, name)
                if s is not None and s.code != Code.SUCCESS:
                    out.append(_failure(s, name))
            yield ni, out

    def _narrowed(self, prep: Prepared) -> Failure:
        names = ", ".join(prep.narrowed_by)
        return Failure(names, (f"node(s) didn't satisfy plugin(s) [{names}]",), unresolvable=True)

    def fits(self, prep: Prepared, node_info: NodeInfo) -> bool:
        """Whether the scheduler would find the node feasible: its filters with the
        nominated pods of higher or equal priority counted, as the scheduling cycle runs them."""
        if prep.rejection is not None:
            return False
        if prep.allowed is not None and node_info.name not in prep.allowed:
            return False
        with _unrecorded(self.fwk):
            s = self.fwk.run_filter_plugins_with_nominated_pods(prep.state, prep.pod, node_info)
        return s is None or s.code == Code.SUCCESS

    def without(
        self, prep: Prepared, node_info: NodeInfo, victims: Sequence[Pod]
    ) -> tuple[Prepared, NodeInfo]:
        """The state and node as preemption sees them once ``victims`` are gone from the node.

        A RemovePod extension that fails rejects the node (as it fails upstream's
        victim selection there).
        """
        state = prep.state.clone()
        ni = node_info.clone()
        rejection = prep.rejection
        with _unrecorded(self.fwk):
            for v in victims:
                ni.remove_pod(v)
                s = self.fwk.run_pre_filter_extension_remove_pod(state, prep.pod, v, ni)
                if rejection is None and s is not None and s.code != Code.SUCCESS:
                    rejection = _failure(s, s.plugin or "RemovePod")
        return Prepared(prep.pod, state, prep.allowed, prep.narrowed_by, rejection), ni


def _failure(s: Status, plugin: str) -> Failure:
    reasons = tuple(s.reasons) or (s.message(),)
    return Failure(plugin, reasons, s.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
