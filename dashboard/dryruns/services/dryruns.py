"""Dry-runs as requests see them: create (freeze the state, queue it), cancel, compare.

The request checks what is cheap (sizes, the shape, kinds and names of every
object, the full parse of configs, workload templates and the few
non-Pod/Node objects) and answers 400 naming the field; the worker parses the
thousands of pods and nodes and fails the run with the object and field named.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from dashboard import conf
from dashboard.cluster.models import Cluster
from dashboard.cluster.services.snapshots import iter_snapshot_objects
from scheduler_engine import SchedulerConfig, build_cluster
from scheduler_engine.cascade import MAX_CASCADE_DEPTH
from scheduler_engine.cluster import MAX_REPORTED_ERRORS
from scheduler_engine.documents import parse_documents
from scheduler_engine.errors import InputError
from scheduler_engine.features import parse_feature_gate_overrides, resolve_feature_gates
from scheduler_engine.objects.validation import node_errors, pod_errors

from .. import codec
from ..models import DryRun, ProfileVersion
from ..tasks import run_dry_run_task
from .errors import BadInput, NotCancellable, mappings
from .metrics import verdicts
from .moves import Placements, check_moves
from .profiles import default_engine_config, parse_config
from .results import ensure_indexes, read_index
from .workload import expand_workload

__all__ = ["cancel_dry_run", "compare_dry_runs", "create_dry_run"]


def _snapshot_objects(snapshot: Any) -> list[dict[str, Any]]:
    if isinstance(snapshot, str):
        if len(snapshot.encode()) > conf.max_snapshot_bytes():
            raise BadInput.one("snapshot", "is larger than SCHEDLAB_MAX_SNAPSHOT_BYTES")
        try:
            return parse_documents(snapshot, source="snapshot")
        except InputError as exc:
            raise BadInput.one("snapshot", exc.one_line()) from None
    if isinstance(snapshot, dict):
        snapshot = (
            snapshot.get("items", [snapshot]) if snapshot.get("kind") == "List" else [snapshot]
        )
    if isinstance(snapshot, list) and all(isinstance(o, dict) for o in snapshot):
        return snapshot
    raise BadInput.one("snapshot", "expected YAML/JSON text, a kind: List or a list of objects")


def _check_objects(objects: list[dict[str, Any]], field: str) -> None:
    """The engine's full parse: names the object and field of the first bad one."""
    try:
        build_cluster(objects, source=field)
    except InputError as exc:
        raise BadInput.one(field, exc.one_line()) from None


# Kinds whose full parse is cheap (few objects): checked in the request.  Pods
# and Nodes, thousands of them, get the structural check here and the full
# parse in the worker, which fails the run naming the object and field.
_DEEP_IN_WORKER = frozenset({"Pod", "Node"})


def _check_structure(objects: list[dict[str, Any]], field: str) -> None:
    """Shape, kinds and names of every object (cheap); 400 naming ``field[i].path``."""
    seen: dict[tuple[str, str, str, str], int] = {}
    cheap: list[dict[str, Any]] = []
    problems: list[tuple[str, str]] = []
    total = 0
    for i, where, o in mappings(objects, field, "must be a Kubernetes object (a mapping)"):
        kind = o.get("kind")
        if not isinstance(kind, str) or not kind:
            raise BadInput.one(f"{where}.kind", "is required")
        meta = o.get("metadata")
        if not isinstance(meta, dict):
            raise BadInput.one(f"{where}.metadata", "must be a mapping")
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise BadInput.one(f"{where}.metadata.name", "is required")
        ns = meta.get("namespace", "")
        if not isinstance(ns, str):
            raise BadInput.one(f"{where}.metadata.namespace", "must be a string")
        for part in ("labels", "annotations"):
            if meta.get(part) is not None and not isinstance(meta[part], dict):
                raise BadInput.one(f"{where}.metadata.{part}", "must be a mapping")
        for part in ("spec", "status"):
            if o.get(part) is not None and not isinstance(o[part], dict):
                raise BadInput.one(f"{where}.{part}", "must be a mapping")
        if kind == "Pod":
            containers = (o.get("spec") or {}).get("containers")
            if not isinstance(containers, list) or not all(isinstance(c, dict) for c in containers):
                raise BadInput.one(f"{where}.spec.containers", "must be a list of containers")
        if kind in _DEEP_IN_WORKER:
            # what the API server refuses (quantities, resource names, names, labels,
            # taints, tolerations): every problem counted, the first N listed
            errors = (pod_errors if kind == "Pod" else node_errors)(o)
            total += len(errors)
            room = MAX_REPORTED_ERRORS - len(problems)
            problems += [(f"{where}.{e.field}", e.message) for e in errors[: max(0, room)]]
        # kinds of two API groups (the two PodGroups) are different objects
        group = str(o.get("apiVersion") or "").rpartition("/")[0]
        key = (group, kind, ns or ("default" if kind == "Pod" else ""), name)
        if key in seen:
            raise BadInput.one(
                f"{where}.metadata.name",
                f"duplicate {kind} {'/'.join(filter(None, key[2:]))} (also {field}[{seen[key]}])",
            )
        seen[key] = i
        if kind not in _DEEP_IN_WORKER:
            cheap.append(o)
    if problems:
        raise BadInput.many(problems, total)
    if cheap:
        _check_objects(cheap, field)


def _check_workload(pods: list[dict[str, Any]]) -> None:
    """Full parse of one pod per distinct template: replicas differ only in names."""
    distinct: dict[str, dict[str, Any]] = {}
    for p in pods:
        meta = {k: v for k, v in (p.get("metadata") or {}).items() if k not in ("name", "uid")}
        key = json.dumps([meta, p.get("spec")], sort_keys=True, default=str)
        distinct.setdefault(key, p)
    _check_objects(list(distinct.values()), "workload")


# the most scheduling cycles a dry-run's caches may lag
MAX_SCHEDULER_LAG = 1_000_000


def _check_scheduler_lag(lag: Any, config: SchedulerConfig, hardware_view: bool) -> None:
    """A whole number of cycles, and a configuration with schedulers to collide."""
    if isinstance(lag, bool) or not isinstance(lag, int) or not 0 <= lag <= MAX_SCHEDULER_LAG:
        raise BadInput.one(
            "scheduler_lag",
            f"must be a whole number of scheduling cycles, 0 to {MAX_SCHEDULER_LAG}",
        )
    if hardware_view:
        raise BadInput.one("scheduler_lag", "give either scheduler_lag or hardware_view")
    if len(config.profiles) < 2:
        names = ", ".join(p.scheduler_name for p in config.profiles)
        raise BadInput.one(
            "scheduler_lag",
            "needs a configuration with two or more profiles (schedulerNames) to collide; "
            f"this one has {names}",
        )


def _freeze(
    cluster: Cluster, source: str, snapshot: Any, pods: list[dict[str, Any]], moves: Any
) -> tuple[bytes, int, list[dict[str, str]], dict[str, Any]]:
    """The frozen state (packed), its object count, the checked moves and resource versions.

    The mirrored state goes from the database into the packed document a chunk
    of rows at a time: the web process never holds the cluster's objects all at
    once (150,000 pods were 1.3 GiB of dicts, JSON text and bytes at 15,000 nodes).
    """
    objects: Iterable[dict[str, Any]]
    if source == DryRun.Source.SNAPSHOT:
        if snapshot is None:
            raise BadInput.one("snapshot", "is required when source is snapshot")
        objects = _snapshot_objects(snapshot)
        resource_versions: dict[str, Any] = {}
        # the full parse of pods and nodes happens in the worker (see _check_structure)
        _check_structure(objects + pods, "snapshot")
    elif source == DryRun.Source.MIRROR:
        if snapshot is not None:
            raise BadInput.one("snapshot", "only with source snapshot")
        objects = iter_snapshot_objects(cluster)
        resource_versions = dict(cluster.resource_versions or {})
    else:
        raise BadInput.one("source", 'must be "mirror" or "snapshot"')
    seen = Placements()
    everything = itertools.chain(objects, pods)
    data, count = codec.pack_items(seen.tap(everything) if moves is not None else everything)
    return data, count, check_moves(moves, seen), resource_versions


def run_feature_gates(given: Any) -> dict[str, bool]:
    """Every gate's value for a run: the deployment's gates, then the ones it gives.

    ``given`` is a mapping (gate → true/false) or ``--feature-gates`` text
    (``GenericWorkload=true,GangScheduling=true``); None gives the deployment's.
    """
    try:
        if isinstance(given, str):
            given = parse_feature_gate_overrides(given, field="feature_gates")
        elif given is not None and not isinstance(given, dict):
            raise InputError(
                'must be an object of gate names to true or false, or "Name=true,..." text',
                field="feature_gates",
            )
        return resolve_feature_gates(
            {**(conf.feature_gates() or {}), **(given or {})}, field="feature_gates"
        )
    except InputError as exc:
        raise BadInput.one(exc.field or "feature_gates", exc.message) from None


def create_dry_run(
    cluster: Cluster,
    *,
    profile_version: ProfileVersion | None = None,
    inline_config: str = "",
    source: str = DryRun.Source.MIRROR,
    snapshot: Any = None,
    workload: Any = None,
    seed: int = 0,
    explain: bool = False,
    hardware_view: bool = False,
    scheduler_lag: int | None = None,
    cascade_depth: int = 0,
    moves: Any = None,
    feature_gates: Any = None,
    user: AbstractBaseUser | None = None,
) -> DryRun:
    """Freeze the cluster state and the workload, validate everything, queue the run.

    ``cascade_depth`` (1 to ``SCHEDLAB_CASCADE_MAX_DEPTH``; 0: off) follows
    preemption's cascade (``summary.cascade``, docs/cascades.md).
    ``moves`` (``[{"pod": "ns/name", "from": node, "to": node}]``) are applied
    by the worker before scheduling: a defragmentation plan tried out.
    ``feature_gates`` (see :func:`run_feature_gates`) are kube-scheduler's
    gates the run uses; every gate's value is stored with it.
    """
    gates = run_feature_gates(feature_gates)
    limit = min(conf.cascade_max_depth(), MAX_CASCADE_DEPTH)
    if (
        isinstance(cascade_depth, bool)
        or not isinstance(cascade_depth, int)
        or not 0 <= cascade_depth <= limit
    ):
        raise BadInput.one(
            "cascade_depth", f"must be between 0 and {limit} (SCHEDLAB_CASCADE_MAX_DEPTH)"
        )
    if profile_version is not None and inline_config:
        raise BadInput.one("inline_config", "give either profile_version or inline_config")
    config = None
    if inline_config:
        config = parse_config(inline_config, prefix="inline_config", feature_gates=gates)
    elif profile_version is not None:
        config = parse_config(profile_version.document, feature_gates=gates)
    else:
        config = default_engine_config(gates)
    if scheduler_lag is not None:
        if cascade_depth:
            raise BadInput.one("scheduler_lag", "give either scheduler_lag or cascade_depth")
        _check_scheduler_lag(scheduler_lag, config, hardware_view)
    pods = expand_workload(workload)
    if pods:
        _check_workload([p for p in pods if p.get("kind") == "Pod"])
    data, count, checked_moves, resource_versions = _freeze(cluster, source, snapshot, pods, moves)
    with transaction.atomic():
        run = DryRun.objects.create(
            cluster=cluster,
            profile_version=profile_version,
            inline_config=inline_config,
            source=source,
            snapshot=data,
            snapshot_sha256=codec.sha256(data),
            snapshot_objects=count,
            resource_versions=resource_versions,
            workload=workload if isinstance(workload, list | dict) else [],
            workload_pods=sum(1 for p in pods if p.get("kind") == "Pod"),
            seed=seed,
            explain=explain,
            hardware_view=hardware_view,
            scheduler_lag=scheduler_lag,
            cascade_depth=cascade_depth,
            moves=checked_moves,
            feature_gates=gates,
            created_by=user if user is not None and user.is_authenticated else None,
            result_page_size=conf.result_page_size(),
        )
        transaction.on_commit(lambda: run_dry_run_task.delay(run.pk))
    return run


def cancel_dry_run(run: DryRun) -> DryRun:
    """Queued runs stop at once; running ones at the next progress check."""
    with transaction.atomic():
        run = DryRun.objects.select_for_update().get(pk=run.pk)
        if run.finished:
            raise NotCancellable(f"dry-run {run.pk} already {run.status}")
        run.cancel_requested = True
        fields = ["cancel_requested"]
        if run.status == DryRun.Status.QUEUED:
            run.status = DryRun.Status.CANCELLED
            run.finished_at = timezone.now()
            fields += ["status", "finished_at"]
        run.save(update_fields=fields)
    return run


def compare_dry_runs(a: DryRun, b: DryRun, *, limit: int = 1000, offset: int = 0) -> dict[str, Any]:
    """Per-pod placement diff (b vs a), metric deltas and a verdict per metric.

    ``changes`` lists changed pods ``offset``..``offset+limit`` (queue order); counts are whole.
    """
    for run, field in ((a, "id"), (b, "other")):
        if run.status != DryRun.Status.SUCCEEDED:
            raise BadInput.one(field, f"dry-run {run.pk} is {run.status}, not succeeded")
    # the compact placement index: pod, status, node, message (no explanations)
    ra = {r["pod"]: r for r in read_index(ensure_indexes(a), "placements", 0, a.result_count)}
    rb = {r["pod"]: r for r in read_index(ensure_indexes(b), "placements", 0, b.result_count)}
    changes: list[dict[str, Any]] = []
    counts = {"same": 0, "moved": 0, "newlyScheduled": 0, "newlyUnscheduled": 0, "other": 0}
    for pod in list(dict.fromkeys([*ra, *rb])):
        x, y = ra.get(pod, {}), rb.get(pod, {})
        sx, sy = x.get("status"), y.get("status")
        if sx == sy and x.get("node") == y.get("node"):
            counts["same"] += 1
            continue
        if sx == sy == "Scheduled":
            kind = "moved"
        elif sy == "Scheduled":
            kind = "newlyScheduled"
        elif sx == "Scheduled":
            kind = "newlyUnscheduled"
        else:
            kind = "other"
        counts[kind] += 1
        if sum(counts.values()) - counts["same"] > offset and len(changes) < limit:
            changes.append(
                {
                    "pod": pod,
                    "change": kind,
                    "a": {"status": sx, "node": x.get("node")},
                    "b": {"status": sy, "node": y.get("node")},
                    "message": y.get("message", ""),
                }
            )
    ma = {**a.metrics.get("after", {}), "podsPerSecond": a.pods_per_second}
    mb = {**b.metrics.get("after", {}), "podsPerSecond": b.pods_per_second}
    return {
        "a": a.pk,
        "b": b.pk,
        "sameState": a.snapshot_sha256 == b.snapshot_sha256,
        "counts": counts,
        "changes": changes,
        "changesTruncated": sum(counts.values()) - counts["same"] > offset + len(changes),
        "metrics": verdicts(ma, mb),
    }
