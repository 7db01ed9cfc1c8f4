"""Preemption cascades: what the controllers recreate after preemption, and the chain it starts.

Preemption deletes its victims; a victim that a controller owns comes back
as a new pending pod (a ReplicaSet's, a ReplicationController's, a Job's or
a DaemonSet's under a new name, a StatefulSet's under the same one), which is scheduled again and may
preempt others in turn.  :class:`CascadeTracker` follows that chain for
:func:`scheduler_engine.simulate.simulate` (``cascade_depth``): it gives each
wave of evictions its depth (one more than its preemptor's), makes the
replacements the owners would create for the victims of every depth below
the limit, and reports each depth (``summary.cascade``, see the README).
The preemption itself is the engine's own, unchanged.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cluster import PodDisruptionBudget
from .framework.handle import Eviction, go_timestamp
from .gang_diagnosis import broken_gangs
from .objects import Pod, parse_pod
from .objects.names import generated_name
from .objects.owners import Owner, owner_of

__all__ = [
    "CAUSE_BARE",
    "MAX_CASCADE_DEPTH",
    "CascadeTracker",
    "replacement_pod",
]

# the deepest chain anyone may ask to follow (each depth is another wave of scheduling)
MAX_CASCADE_DEPTH = 20
# the cause of a victim nobody recreates: no controller (or CAUSE_UNKNOWN: one not known)
CAUSE_BARE = "bare"
JOB_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"
# metadata the API server sets on a pod it creates (the replacement gets its own)
_SERVER_FIELDS = (
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "generation",
    "selfLink",
)


def _replacement_name(victim: Pod, owner: Owner, seed: str) -> str:
    if owner.kind == "StatefulSet":
        return victim.name  # the same identity, once the old pod is gone
    base = f"{owner.name}-"
    if owner.kind == "Job":
        index = (victim.raw.get("metadata") or {}).get("annotations", {}).get(JOB_INDEX_ANNOTATION)
        if index is not None:
            base = f"{owner.name}-{index}-"
    return generated_name(base, seed)


def replacement_pod(
    victim: Pod,
    owner: Owner,
    now: float,
    priority_classes: Mapping[str, Mapping[str, Any]],
    seed: str,
) -> Pod:
    """The pending pod ``owner`` creates for the deleted ``victim`` (same template, not bound)."""
    raw = copy.deepcopy(victim.raw)
    meta = {k: v for k, v in (raw.get("metadata") or {}).items() if k not in _SERVER_FIELDS}
    name = _replacement_name(victim, owner, seed)
    if name != victim.name:
        meta["generateName"] = name[:-5]
    meta["name"] = name
    meta["uid"] = generated_name(f"{victim.uid or victim.key}-", seed)
    meta["creationTimestamp"] = go_timestamp(now)
    spec = {k: v for k, v in (raw.get("spec") or {}).items() if k != "nodeName"}
    out = {**raw, "metadata": meta, "spec": spec, "status": {"phase": "Pending"}}
    pod = parse_pod(out, priority_classes)
    pod.creation_ts = now
    return pod


@dataclass(slots=True)
class _Victim:
    eviction: Eviction
    depth: int
    owner: Owner | None
    replacement: str | None = None


class CascadeTracker:
    """Depths of evictions and the replacements to schedule, wave by wave, up to ``depth_limit``."""

    def __init__(
        self,
        depth_limit: int,
        priority_classes: Mapping[str, Mapping[str, Any]],
        pdbs: Sequence[PodDisruptionBudget],
    ) -> None:
        if not 1 <= depth_limit <= MAX_CASCADE_DEPTH:
            raise ValueError(f"depth_limit must be between 1 and {MAX_CASCADE_DEPTH}")
        self.depth_limit = depth_limit
        self.priority_classes = priority_classes
        self.pdbs = list(pdbs)
        # pod key → the depth of the wave it belongs to (0: pending before the run)
        self.level: dict[str, int] = {}
        self.victims: list[_Victim] = []
        self._seen = 0
        self.limit_reached = False

    def next_wave(self, evictions: Sequence[Eviction], now: float) -> list[Pod]:
        """Give the evictions since the last call their depth; the replacements to schedule."""
        fresh = evictions[self._seen :]
        self._seen = len(evictions)
        out: list[Pod] = []
        for e in fresh:
            if e.victim.terminating:
                continue  # deleted before the run: its controller already acted
            depth = self.level.get(e.by, 0) + 1
            v = _Victim(e, depth, owner_of(e.victim))
            self.victims.append(v)
            if v.owner is None or not v.owner.recreates:
                continue
            if depth >= self.depth_limit:
                self.limit_reached = True
                continue
            seed = f"{e.victim.uid or e.victim.key}/cascade/{len(self.victims)}"
            pod = replacement_pod(e.victim, v.owner, now, self.priority_classes, seed)
            v.replacement = pod.key
            self.level[pod.key] = depth
            out.append(pod)
        return out

    def report(
        self,
        results: Mapping[str, Any],
        running: Iterable[Pod],
        objects: Mapping[str, Sequence[Mapping[str, Any]]],
    ) -> dict[str, Any]:
        """``summary.cascade``: per depth what was evicted and what became of it; totals.

        ``results`` maps pod key → its PodResult (status, node, message).
        """
        running = list(running)
        by_depth: dict[int, list[_Victim]] = {}
        for v in self.victims:
            by_depth.setdefault(v.depth, []).append(v)
        levels: list[dict[str, Any]] = []
        pdb_so_far: Counter[str] = Counter()
        for depth in sorted(by_depth):
            vs = by_depth[depth]
            levels.append(self._level(depth, vs, results, running, objects, pdb_so_far))
        totals = {
            "evictions": sum(len(lv["evictions"]) for lv in levels),
            "recreated": sum(len(lv["recreated"]) for lv in levels),
            "placed": sum(lv["placed"] for lv in levels),
            "nowhereToGo": sum(len(lv["nowhereToGo"]) for lv in levels),
            "notRecreated": sum(lv["notRecreated"] for lv in levels),
            "pdbViolations": sum(len(lv["pdbViolations"]) for lv in levels),
            "brokenGangs": sum(len(lv["brokenGangs"]) for lv in levels),
        }
        return {
            "depthLimit": self.depth_limit,
            "depth": max(by_depth, default=0),
            "stoppedBy": "depthLimit" if self.limit_reached else "end",
            "levels": levels,
            "totals": totals,
        }

    def _level(
        self,
        depth: int,
        vs: list[_Victim],
        results: Mapping[str, Any],
        running: list[Pod],
        objects: Mapping[str, Sequence[Mapping[str, Any]]],
        pdb_so_far: Counter[str],
    ) -> dict[str, Any]:
        evictions: list[dict[str, Any]] = []
        classes: Counter[str] = Counter()
        recreated: list[str] = []
        nowhere: list[dict[str, Any]] = []
        placed = 0
        for v in vs:
            pod = v.eviction.victim
            owner = v.owner
            cause = owner.cause if owner is not None else CAUSE_BARE
            entry: dict[str, Any] = {
                "pod": pod.key,
                "node": v.eviction.node,
                "by": v.eviction.by,
                "priority": pod.priority,
                "priorityClass": pod.priority_class_name,
                "owner": owner.to_dict() if owner is not None else None,
                "cause": cause,
                "recreatedAs": v.replacement,
                "outcome": None,
            }
            classes[pod.priority_class_name or "(none)"] += 1
            if v.replacement is not None:
                recreated.append(v.replacement)
                r = results.get(v.replacement)
                status = str(r.status) if r is not None else "Unknown"
                entry["outcome"] = {
                    "status": status,
                    "node": r.node if r is not None else None,
                    "message": r.message if r is not None else "",
                }
                if status == "Scheduled":
                    placed += 1
                else:
                    nowhere.append(
                        {
                            "pod": v.replacement,
                            "replaces": pod.key,
                            "status": status,
                            "message": (r.message if r is not None else "") or "",
                        }
                    )
            evictions.append(entry)
        return {
            "depth": depth,
            "evictions": evictions,
            "evictionCount": len(evictions),
            "nodes": sorted({v.eviction.node for v in vs}),
            "priorityClasses": dict(sorted(classes.items())),
            "recreated": recreated,
            "placed": placed,
            "nowhereToGo": nowhere,
            "notRecreated": sum(1 for v in vs if v.replacement is None),
            "pdbViolations": self._pdb_violations(vs, pdb_so_far),
            "brokenGangs": broken_gangs([v.eviction for v in vs], running, objects),
        }

    def _pdb_violations(self, vs: list[_Victim], so_far: Counter[str]) -> list[dict[str, Any]]:
        """PDBs whose allowed disruptions the evictions up to this depth exceed, first here."""
        out: list[dict[str, Any]] = []
        for pdb in self.pdbs:
            hit = [
                v.eviction.victim.key
                for v in vs
                if pdb.matches(v.eviction.victim)
                and v.eviction.victim.name not in pdb.disrupted_pods
            ]
            if not hit:
                continue
            key = f"{pdb.namespace}/{pdb.name}"
            before = so_far[key]
            so_far[key] += len(hit)
            if so_far[key] > pdb.disruptions_allowed:
                out.append(
                    {
                        "pdb": key,
                        "disruptionsAllowed": pdb.disruptions_allowed,
                        "evicted": hit,
                        "evictedSoFar": so_far[key],
                        "alreadyViolated": before > pdb.disruptions_allowed,
                    }
                )
        return out
