"""A pod's :class:`~scheduler_engine.results.PodResult`, read off its last attempt
(and, when explaining, off the recorder: each node's filter failures and scores)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .framework.recorder import PASSED, Recorder
from .framework.runtime import Framework
from .objects import Pod
from .results import STATUS_SCHEDULED, STATUSES, PodResult, PodStatus
from .scheduler.messages import truncate_message
from .scheduler.schedule_one import Attempt

__all__ = ["pod_result"]


def pod_result(
    pod: Pod,
    att: Attempt | None,
    victims: list[str],
    fwk: Framework,
    attempts: int,
    recorder: Recorder | None,
    explain: bool,
    preempted: Attempt | None = None,
) -> PodResult:
    """The pod's result after its last attempt: status, node, message, nomination,
    victims, what plugins report, and (explaining) each node's filter failures and scores;
    ``preempted``: an earlier attempt that failed and nominated a node, kept aside
    by the recorder, explained as :attr:`PodResult.before_preemption`."""
    assert att is not None
    status = PodStatus(att.status) if att.status in STATUSES else PodStatus.UNSCHEDULABLE
    if status == STATUS_SCHEDULED:
        message = f"Successfully assigned {pod.namespace}/{pod.name} to {att.node}"
    else:
        message = att.failure_message
    # a pending pod reports the nomination it ends with (its status.nominatedNodeName):
    # one from the input snapshot stays when PostFilter leaves it alone, and another
    # pod's preemption may have cleared it.  A bound pod reports none: v1.36 clears
    # the field at binding (ClearingNominatedNodeNameAfterBinding, beta, on); its
    # victims still say that it preempted.
    nominated = None if status == STATUS_SCHEDULED else (pod.nominated_node_name or None)
    r = PodResult(
        pod.key,
        status,
        node=att.node if status == STATUS_SCHEDULED else None,
        message=truncate_message(message),
        nominated_node=nominated,
        victims=list(dict.fromkeys(victims)),
        profile=fwk.profile_name,
        attempts=attempts,
    )
    if status == STATUS_SCHEDULED and (pod.resource_claims or pod.requests.scalar):
        dra = fwk.plugins.get("DynamicResources")
        if dra is not None and hasattr(dra, "allocations"):
            r.allocations = dra.allocations(pod.key)
    if status == STATUS_SCHEDULED:
        for name, pl in fwk.plugins.items():
            result_for = getattr(pl, "result_for", None)
            found = result_for(pod.key) if result_for is not None else None
            if found:
                r.plugin_results[name] = found
    if explain and recorder is not None:
        rec = recorder.pod_record(pod.key) or {}
        r.record = rec
        r.scores = dict(att.scores or {})
        failed = att if status != STATUS_SCHEDULED else None
        r.filter_failures, r.all_filter_failures = _node_failures(
            rec.get("filter", {}), failed, fwk
        )
        # a pod that preempted and was tried again: why no node fit before that
        if preempted is not None and not att.nominated_node:
            r.before_preemption = _before_preemption(recorder, pod.key, preempted, fwk)
        r.plugin_scores = {
            node: {pl: dict(v) for pl, v in per.items()}
            for node, per in rec.get("score", {}).items()
        }
    return r


def _before_preemption(
    recorder: Recorder, pod_key: str, preempted: Attempt, fwk: Framework
) -> dict[str, Any] | None:
    """The attempt that preempted, from the record the recorder kept aside."""
    kept = recorder.kept_filters(pod_key)
    if kept is None:
        return None
    ff, allff = _node_failures(kept, preempted, fwk)
    return {
        "message": truncate_message(preempted.failure_message),
        "nominatedNode": preempted.nominated_node,
        "filterFailures": ff,
        "allFilterFailures": allff,
    }


def _node_failures(
    per_node: Mapping[str, Mapping[str, Any]], failed: Attempt | None, fwk: Framework
) -> tuple[dict[str, dict[str, str]], dict[str, list[dict[str, str]]]]:
    """Each node's first and every filter failure in an attempt's filter record; ``failed``
    (the attempt, if it failed): the nodes PreFilter ruled out, which no filter saw."""
    ff, allff = _filter_failures(per_node)
    d = failed.diagnosis if failed is not None else None
    if d is not None and d.node_to_status.absent.reasons:
        absent = d.node_to_status.absent
        plugin = absent.plugin or ", ".join(sorted(d.unschedulable_plugins))
        entry = {"plugin": plugin, "reason": absent.message()}
        for node in (n.name for n in fwk.handle.snapshot().node_info_list):
            if node not in ff and node not in d.node_to_status.statuses:
                ff[node] = entry
                allff[node] = [entry]
    return ff, allff


def _filter_failures(
    per_node: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[str, dict[str, str]], dict[str, list[dict[str, str]]]]:
    first: dict[str, dict[str, str]] = {}
    every: dict[str, list[dict[str, str]]] = {}
    # a recorded status or entry shared by nodes (built once for nodes rejected alike:
    # LazyFilters) gives one failure or list shared by them, read and never changed
    made: dict[int, dict[str, str]] = {}
    lists: dict[int, list[dict[str, str]] | None] = {}
    for node, per_plugin in per_node.items():
        if id(per_plugin) in lists:
            fails = lists[id(per_plugin)]
            if fails is not None:
                every[node], first[node] = fails, fails[0]
            continue
        fails = None
        for pl, v in per_plugin.items():
            if v is PASSED:
                continue  # most nodes pass most filters: no list, no dicts for them
            fail = made.get(id(v))
            if fail is None:
                if v.get("code") == "Success":
                    continue
                fail = made[id(v)] = {"plugin": pl, "reason": ", ".join(v.get("reasons", []))}
                if v.get("detail"):
                    fail["detail"] = v["detail"]
            if fails is None:
                fails = every[node] = [fail]
                first[node] = fail
            else:
                fails.append(fail)
        lists[id(per_plugin)] = fails
    return first, every
