"""What a simulation returns: per pod a :class:`PodResult`, for the run a :class:`SimulationResult`.

``SimulationResult.to_dict()`` is the JSON document of the engine CLI's
contract (``results`` in queue order, ``events``, then ``summary``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .scheduler import events as ev

__all__ = [
    "STATUSES",
    "STATUS_ERROR",
    "STATUS_SCHEDULED",
    "STATUS_SKIPPED",
    "STATUS_UNSCHEDULABLE",
    "PodResult",
    "PodStatus",
    "SimulationResult",
]


class PodStatus(StrEnum):
    """A pod's outcome in the results (the JSON strings of the CLI's contract)."""

    SCHEDULED = "Scheduled"
    UNSCHEDULABLE = "Unschedulable"
    SKIPPED = "Skipped"
    ERROR = "Error"


STATUS_SCHEDULED = PodStatus.SCHEDULED
STATUS_UNSCHEDULABLE = PodStatus.UNSCHEDULABLE
STATUS_SKIPPED = PodStatus.SKIPPED
STATUS_ERROR = PodStatus.ERROR
STATUSES = tuple(PodStatus)


@dataclass
class PodResult:
    pod: str
    status: PodStatus
    node: str | None = None
    # None: a pod PreEnqueue held back whose PodScheduled condition has no message
    message: str | None = ""
    nominated_node: str | None = None
    victims: list[str] = field(default_factory=list)
    profile: str = ""
    attempts: int = 0
    # with explain
    scores: dict[str, int] | None = None
    filter_failures: dict[str, dict[str, str]] | None = None
    all_filter_failures: dict[str, list[dict[str, str]]] | None = None
    plugin_scores: dict[str, dict[str, dict[str, int]]] | None = None
    record: dict[str, Any] | None = None
    # a pod that preempted and was tried again: the attempt that preempted (message,
    # nominatedNode, filterFailures, allFilterFailures), why no node fit before that
    before_preemption: dict[str, Any] | None = None
    # DRA: claims allocated for the pod (claim, allocatedNow, allocation)
    allocations: list[dict[str, Any]] = field(default_factory=list)
    # the events the scheduler recorded on the pod, in order (type, reason, message)
    events: list[ev.Event] = field(default_factory=list)
    # Skipped by a PreEnqueue plugin: which one and why (upstream logs it, the pod shows none)
    pre_enqueue: dict[str, str] | None = None
    # a member of a pod group: the gang's diagnosis (see scheduler_engine.gang_diagnosis)
    gang: dict[str, Any] | None = None
    # running gangs this pod's preemption took members from
    broke_gangs: list[str] = field(default_factory=list)
    # plugin name → what the plugin reports of the pod (OpenGpuShare: the GPUs it got)
    plugin_results: dict[str, Any] = field(default_factory=dict)
    # unschedulable, explained with what-if: the closest nodes and verified changes
    nearest: list[dict[str, Any]] | None = None
    fixes: list[dict[str, Any]] | None = None

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "pod": self.pod,
            "status": str(self.status),
            "node": self.node,
            "message": self.message,
            "nominatedNode": self.nominated_node,
            "victims": list(self.victims),
            "events": [dict(e) for e in self.events],
        }
        if self.allocations:
            d["allocations"] = list(self.allocations)
        if self.pre_enqueue is not None:
            d["preEnqueue"] = dict(self.pre_enqueue)
        if self.gang is not None:
            d["gang"] = dict(self.gang)
        if self.broke_gangs:
            d["brokeGangs"] = list(self.broke_gangs)
        if self.plugin_results:
            d["pluginResults"] = dict(self.plugin_results)
        if explain:
            d["scores"] = dict(self.scores or {})
            d["filterFailures"] = dict(self.filter_failures or {})
            d["allFilterFailures"] = dict(self.all_filter_failures or {})
            d["pluginScores"] = dict(self.plugin_scores or {})
            d["record"] = self.record or {}
            if self.before_preemption is not None:
                d["beforePreemption"] = dict(self.before_preemption)
            if self.nearest is not None:
                d["nearest"] = list(self.nearest)
                d["fixes"] = list(self.fixes or [])
        return d


@dataclass
class SimulationResult:
    results: list[PodResult]
    summary: dict[str, Any]
    explain: bool = False
    # every event of the run in the order recorded, each naming its pod ("pod": "ns/name"):
    # the pending pods' and the Preempted events of running victims
    events: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "results": [r.to_dict(self.explain) for r in self.results],
            "events": [dict(e) for e in self.events],
            "summary": dict(self.summary),
        }

    def by_pod(self) -> dict[str, PodResult]:
        return {r.pod: r for r in self.results}
