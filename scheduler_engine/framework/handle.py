"""What plugins can reach during a simulation (upstream ``framework.Handle``).

One :class:`SimulationContext` is shared by every profile of a run: the
cluster, the snapshot every cycle sees, the nominator (pods nominated to
nodes by preemption), evictions, waiting pods, the seeded RNG and the
simulated clock.  Each profile's framework gets its own :class:`FrameworkHandle`
over it, because the filter-running helpers belong to the framework.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..gocompat import go_duration
from ..objects.podgroup import NativePodGroup
from .pod_group_state import PodGroupStates
from .snapshot import Snapshot
from .status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from ..cluster import ClusterState
    from ..objects import Pod
    from .cycle_state import CycleState
    from .node_info import NodeInfo
    from .runtime import Framework

__all__ = ["Eviction", "FrameworkHandle", "SimulationContext", "WaitingPod"]


@dataclass(slots=True)
class Eviction:
    """A running pod removed by preemption."""

    victim: Pod
    node: str
    # the preemptor's key ("" when unknown)
    by: str = ""
    reason: str = ""


def go_timestamp(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _terminating_copy(pod: Pod, now: float) -> Pod:
    """The victim after preemption's status patch and delete call: DisruptionTarget, deletionTimestamp."""
    dying = copy.copy(pod)
    raw = pod.raw
    meta = dict(raw.get("metadata") or {})
    meta["deletionTimestamp"] = go_timestamp(now)
    status = dict(raw.get("status") or {})
    conditions = [
        c
        for c in status.get("conditions") or ()
        if not (isinstance(c, dict) and c.get("type") == "DisruptionTarget")
    ]
    conditions.append(
        {
            "type": "DisruptionTarget",
            "status": "True",
            "reason": "PreemptionByScheduler",
            "message": f"{pod.scheduler_name}: preempting to accommodate a higher priority pod",
        }
    )
    status["conditions"] = conditions
    dying.raw = {**raw, "metadata": meta, "status": status}  # type: ignore[assignment]
    dying.terminating = True
    return dying


class WaitingPod:
    """A pod that Permit holds (upstream ``waitingPod``): allowed by all, or rejected."""

    __slots__ = ("deadlines", "pending", "pod", "status")

    # how many waiting pods were allowed or rejected so far (in any run): who holds
    # many waiting pods rescans them only when this moved or a deadline passed
    settled: int = 0

    def __init__(self, pod: Pod, waits: dict[str, float], now: float) -> None:
        self.pod = pod
        # plugin → timeout (seconds) still pending
        self.pending: dict[str, float] = dict(waits)
        self.deadlines: dict[str, float] = {p: now + t for p, t in waits.items()}
        # None while waiting; SUCCESS when allowed by all; a rejection otherwise
        self.status: Status | None = None

    def get_pod(self) -> Pod:
        return self.pod

    def get_pending_plugins(self) -> list[str]:
        return list(self.pending)

    def allow(self, plugin: str) -> None:
        self.pending.pop(plugin, None)
        self.deadlines.pop(plugin, None)
        if not self.pending and self.status is None:
            self.status = Status(Code.SUCCESS)
            WaitingPod.settled += 1

    def reject(self, plugin: str, msg: str) -> bool:
        if self.status is not None:
            return False
        self.status = Status(Code.UNSCHEDULABLE, msg, plugin=plugin)
        WaitingPod.settled += 1
        return True

    def expire(self, now: float) -> bool:
        """Time out the earliest pending plugin whose deadline passed (as upstream's timers)."""
        if self.status is not None or not self.deadlines:
            return False
        plugin = min(self.deadlines, key=lambda p: (self.deadlines[p], p))
        if self.deadlines[plugin] > now:
            return False
        waited = go_duration(self.pending[plugin])
        return self.reject(
            plugin, f"rejected due to timeout after waiting {waited} at plugin {plugin}"
        )

    def next_deadline(self) -> float | None:
        return min(self.deadlines.values()) if self.deadlines else None


@dataclass
class SimulationContext:
    """State shared by every profile of one run."""

    cluster: ClusterState
    snapshot: Snapshot
    rng: random.Random
    clock: float = 0.0
    parallelism: int = 16
    # node name → pods nominated to it (in nomination order); pod key → node
    nominated: dict[str, list[Pod]] = field(default_factory=dict)
    nominated_node_of: dict[str, str] = field(default_factory=dict)
    evictions: list[Eviction] = field(default_factory=list)
    waiting: dict[str, WaitingPod] = field(default_factory=dict)
    # the pod being scheduled (evictions are attributed to it)
    current_pod: str = ""
    # called when an evicted pod is gone (the queue re-activates pods waiting for room)
    on_evict: list[Callable[[Eviction], None]] = field(default_factory=list)
    # the native workload API (GenericWorkload gate): PodGroups by "ns/name", member states
    native_pod_groups: dict[str, NativePodGroup] = field(default_factory=dict)
    pod_groups: PodGroupStates = field(default_factory=PodGroupStates)
    # feature gates of the run that plugins read (gate → value; absent: off)
    feature_gates: dict[str, bool] = field(default_factory=dict)
    # pod key → (the pod as it terminates on its node, its eviction): deleted, not yet gone
    deleting: dict[str, tuple[Pod, Eviction]] = field(default_factory=dict)

    def now(self) -> float:
        return self.clock

    # -- nominator ----------------------------------------------------------------
    def nominate(self, pod: Pod, node_name: str) -> None:
        """Set (``""`` clears) the pod's nominated node, as ``AddNominatedPod`` in Override mode."""
        self.delete_nominated(pod)
        if node_name:
            self.nominated.setdefault(node_name, []).append(pod)
            self.nominated_node_of[pod.key] = node_name
        pod.nominated_node_name = node_name

    def delete_nominated(self, pod: Pod) -> None:
        old = self.nominated_node_of.pop(pod.key, None)
        if old is None:
            return
        lst = [p for p in self.nominated.get(old, ()) if p.key != pod.key]
        if lst:
            self.nominated[old] = lst
        else:
            self.nominated.pop(old, None)

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return self.nominated.get(node_name, [])

    # -- evictions ----------------------------------------------------------------
    def evict(self, pod: Pod, preemptor: Pod | None = None, reason: str = "") -> bool:
        """Delete a running pod (preemption): it terminates now and is gone at :meth:`finish_deletions`.

        Until then the node still holds it, marked as being deleted with the
        ``DisruptionTarget`` condition preemption sets, as the pods scheduled
        meanwhile see it upstream.  Deleting a pod already being deleted here,
        or not on its node, does nothing.
        """
        node = pod.node_name
        if not node or pod.key in self.deleting:
            return False
        ni = self.snapshot.get(node)
        if ni is None or not any(p.key == pod.key for p in ni.pods):
            return False
        by = preemptor.key if preemptor is not None else self.current_pod
        ev = Eviction(pod, node, by, reason)
        self.evictions.append(ev)
        if pod.uid in self.waiting:
            # a pod waiting at Permit is rejected: it leaves the cache at once
            self.snapshot.remove_pod(pod, node)
            self.cluster.pods = [p for p in self.cluster.pods if p.key != pod.key]
            self.pod_groups.delete(pod)
            for cb in self.on_evict:
                cb(ev)
            return True
        dying = pod if pod.terminating else _terminating_copy(pod, self.clock)
        if dying is not pod:
            self.snapshot.remove_pod(pod, node)
            self.snapshot.add_pod(dying, node)
        self.deleting[pod.key] = (dying, ev)
        return True

    def finish_deletions(self) -> int:
        """The pods being deleted leave the snapshot and the cluster (their Delete events)."""
        if not self.deleting:
            return 0
        gone = list(self.deleting.values())
        self.deleting.clear()
        keys = {dying.key for dying, _ in gone}
        self.cluster.pods = [p for p in self.cluster.pods if p.key not in keys]
        for dying, ev in gone:
            self.snapshot.remove_pod(dying, ev.node)
            self.pod_groups.delete(dying)
            for cb in self.on_evict:
                cb(ev)
        return len(gone)

    # -- waiting pods ---------------------------------------------------------------
    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.waiting.get(uid)

    def iterate_over_waiting_pods(self) -> Iterator[WaitingPod]:
        return iter(list(self.waiting.values()))


class FrameworkHandle:
    """The Handle one profile's plugins receive (see ``interfaces.Handle``).

    Its filter-running helpers are the framework's own methods, bound by
    :meth:`attach` (upstream's framework is its own handle): a plugin's call
    reaches the framework without a frame of ours in between.
    """

    run_filter_plugins: Callable[[CycleState, Pod, NodeInfo], Status | None]
    run_filter_plugins_with_nominated_pods: Callable[[CycleState, Pod, NodeInfo], Status | None]
    refilter_with_nominated_pods: Callable[[CycleState, Pod, NodeInfo], Status | None]
    has_pre_filter_extensions: Callable[[CycleState], bool]
    run_pre_filter_extension_add_pod: Callable[[CycleState, Pod, Pod, NodeInfo], Status | None]
    run_pre_filter_extension_remove_pod: Callable[[CycleState, Pod, Pod, NodeInfo], Status | None]

    def __init__(self, ctx: SimulationContext) -> None:
        self.ctx = ctx
        # set by attach() once the plugins exist
        self.framework: Framework | None = None

    def attach(self, fwk: Framework) -> None:
        """Link the profile's framework: each helper declared above becomes its method."""
        self.framework = fwk
        for name in FrameworkHandle.__annotations__:
            setattr(self, name, getattr(fwk, name))

    @property
    def cluster(self) -> ClusterState:
        return self.ctx.cluster

    def snapshot(self) -> Snapshot:
        return self.ctx.snapshot

    def nominated_pods_for_node(self, node_name: str) -> list[Pod]:
        return self.ctx.nominated.get(node_name, [])

    def has_nominated_pods(self) -> bool:
        """Whether any node has pods nominated to it."""
        return bool(self.ctx.nominated)

    @property
    def rng(self) -> random.Random:
        return self.ctx.rng

    def now(self) -> float:
        return self.ctx.clock

    @property
    def parallelism(self) -> int:
        return self.ctx.parallelism

    @property
    def profile_name(self) -> str:
        return self.framework.profile_name if self.framework is not None else ""

    # -- preemption --------------------------------------------------------------------
    def evict(self, pod: Pod, preemptor: Pod | None = None, reason: str = "") -> Status | None:
        """Delete a victim: it leaves the snapshot and the cluster, and is recorded.

        Evicting a pod that is not running (already gone) is not an error, as
        a delete of an already deleted pod is not for the preemptor.
        """
        self.ctx.evict(pod, preemptor, reason)
        return None

    def nominate(self, pod: Pod, node_name: str) -> None:
        self.ctx.nominate(pod, node_name)

    def clear_nominated_node_name(self, pod: Pod) -> None:
        """Lower-priority pods nominated to a preempted node lose their nomination."""
        self.ctx.nominate(pod, "")

    # -- pod groups (the native workload API) ------------------------------------------
    def native_pod_group(self, namespace: str, name: str) -> NativePodGroup | None:
        return self.ctx.native_pod_groups.get(f"{namespace}/{name}")

    def pod_group_states(self) -> PodGroupStates:
        return self.ctx.pod_groups

    def feature_enabled(self, gate: str) -> bool:
        return self.ctx.feature_gates.get(gate, False)

    # -- Permit ------------------------------------------------------------------------
    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return self.ctx.get_waiting_pod(uid)

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], Any]) -> None:
        for wp in self.ctx.iterate_over_waiting_pods():
            callback(wp)

    def reject_waiting_pod(self, uid: str) -> bool:
        wp = self.ctx.waiting.get(uid)
        return wp.reject("", "removed") if wp is not None else False
