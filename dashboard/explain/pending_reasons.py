"""Why a pod is still pending although the engine would place it now, and what to do.

Read off what the mirror holds: the pod's scheduling gates, scheduler name,
nominated node and ``PodScheduled`` condition, its latest FailedScheduling
event, and when the mirror last saw nodes and pods change. The scheduler
retries an unschedulable pod when a cluster event may make it fit, after its
backoff (``podInitialBackoffSeconds`` doubling up to ``podMaxBackoffSeconds``),
and at the latest after ``podMaxInUnschedulablePodsDuration`` (5 minutes).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Max
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.timesince import timesince

from dashboard.cluster.models import Cluster, Event, Node, Pod
from scheduler_engine import SchedulerConfig

__all__ = ["MAX_IN_UNSCHEDULABLE", "PendingReason", "pending_reasons"]

# upstream's DefaultPodMaxInUnschedulablePodsDuration
MAX_IN_UNSCHEDULABLE = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class PendingReason:
    key: str
    why: str
    todo: str


def _when(value: Any) -> datetime | None:
    return parse_datetime(value) if isinstance(value, str) else None


def _last_attempt(pod: Pod, event: Event | None) -> datetime | None:
    """When the scheduler last tried the pod: PodScheduled=False, or its latest event."""
    times = []
    for c in (pod.obj.get("status") or {}).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") == "PodScheduled" and c.get("status") == "False":
            t = _when(c.get("lastTransitionTime")) or _when(c.get("lastProbeTime"))
            if t:
                times.append(t)
    if event is not None and event.last_seen:
        times.append(event.last_seen)
    return max(times) if times else None


def pending_reasons(
    cluster: Cluster, pod: Pod, config: SchedulerConfig, now: datetime | None = None
) -> list[PendingReason]:
    """Each reason that applies, most likely first; the last one always says what to check."""
    now = now or timezone.now()
    out = _held_back(pod, config)
    if out:
        return out
    out.append(_since_last_attempt(cluster, pod, config, now))
    if not cluster.is_live:
        out.append(
            PendingReason(
                "snapshot",
                f"{cluster.name} is an imported snapshot, frozen when it was taken: the "
                "real scheduler may have placed the pod since.",
                "Import a fresh snapshot, or mirror the live cluster.",
            )
        )
    return out


def _held_back(pod: Pod, config: SchedulerConfig) -> list[PendingReason]:
    """What keeps this scheduler from placing the pod at all: gates, another scheduler, a nomination."""
    spec = pod.obj.get("spec") or {}
    status = pod.obj.get("status") or {}
    out: list[PendingReason] = []
    gates = [g.get("name") for g in spec.get("schedulingGates") or [] if isinstance(g, dict)]
    if gates:
        out.append(
            PendingReason(
                "gates",
                f"It carries scheduling gates ({', '.join(map(str, gates))}): the scheduler "
                "does not try a gated pod at all.",
                "Whoever added the gate removes it when the pod may run (a queueing "
                "controller such as Kueue, when it admits the workload); remove it by hand "
                "only if that controller is gone.",
            )
        )
    name = spec.get("schedulerName") or "default-scheduler"
    if config.profile(name) is None:
        served = ", ".join(p.scheduler_name for p in config.profiles)
        out.append(
            PendingReason(
                "scheduler",
                f'It asks for scheduler "{name}", which no profile of the active configuration '
                f"serves ({served}): that scheduler, not this one, must place it.",
                f'Check that a scheduler named "{name}" is running and healthy, or set '
                "spec.schedulerName to one that is (it cannot change on an existing pod: "
                "recreate it).",
            )
        )
    nominated = status.get("nominatedNodeName")
    if nominated:
        out.append(
            PendingReason(
                "nominated",
                f"Preemption nominated it to {nominated}: it waits there for its victims to "
                "finish terminating (their grace period).",
                f"Look at the terminating pods on {nominated} (kubectl get pods "
                f"--field-selector spec.nodeName={nominated}); a finalizer or a long "
                "terminationGracePeriodSeconds keeps the room taken.",
            )
        )
    return out


def _since_last_attempt(
    cluster: Cluster, pod: Pod, config: SchedulerConfig, now: datetime
) -> PendingReason:
    """Never tried, backing off, not retried since the cluster changed, or nothing changed."""
    event = (
        Event.objects.filter(
            cluster=cluster, involved_namespace=pod.namespace, involved_name=pod.name
        )
        .order_by("-last_seen")
        .only("last_seen", "count")
        .first()
    )
    attempt = _last_attempt(pod, event)
    if attempt is None:
        created = _when((pod.obj.get("metadata") or {}).get("creationTimestamp"))
        age = f"created {timesince(created, now)} ago and " if created else ""
        return PendingReason(
            "no-attempt",
            f"The mirror shows no scheduling attempt: it was {age}has no PodScheduled "
            "condition and no FailedScheduling event.",
            "Check that kube-scheduler runs and is the leader (kubectl -n kube-system get "
            "pods -l component=kube-scheduler; its logs); a scheduler that is down or "
            "stuck leaves every new pod like this.",
        )
    if now - attempt < timedelta(seconds=config.pod_max_backoff_seconds):
        return PendingReason(
            "backoff",
            f"Its last attempt failed {timesince(attempt, now)} ago: it waits out its "
            f"backoff (at most {config.pod_max_backoff_seconds} s) before the next one.",
            "Nothing: it is retried within seconds.",
        )
    since = _last_change(cluster, pod)
    if since is not None and since > attempt:
        return PendingReason(
            "stale",
            f"Its last attempt failed {timesince(attempt, now)} ago; the cluster has "
            f"changed since (the mirror saw a change {timesince(since, now)} ago). "
            "The scheduler retries an unschedulable pod when a change may make it "
            "fit, and at the latest after 5 minutes.",
            "Wait up to 5 minutes from the change; a pod pending longer than that "
            "after the change points at the scheduler (its logs) or at a plugin or "
            "profile setting this engine does not share with your scheduler.",
        )
    return PendingReason(
        "unchanged",
        f"Its last attempt failed {timesince(attempt, now)} ago and the mirror saw "
        "no change since: the engine's profile places it where the cluster's "
        "scheduler did not.",
        "Compare the active profile with the scheduler's own configuration "
        "(the kube-scheduler ConfigMap): a different profile, or an out-of-tree "
        "plugin, decides differently.",
    )


def _last_change(cluster: Cluster, pod: Pod) -> datetime | None:
    """When the mirror last saw a node, or a pod other than this one, change."""
    changed = (
        Node.objects.filter(cluster=cluster).aggregate(t=Max("updated_at"))["t"],
        Pod.objects.filter(cluster=cluster).exclude(pk=pod.pk).aggregate(t=Max("updated_at"))["t"],
    )
    return max((t for t in changed if t is not None), default=None)
