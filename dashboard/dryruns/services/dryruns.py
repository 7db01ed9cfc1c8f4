"""Dry-runs: create (freeze the state), run on a worker, cancel, reap lost runs, compare.

The request checks what is cheap (sizes, the shape, kinds and names of every
object, the full parse of configs, workload templates and the few
non-Pod/Node objects) and answers 400 naming the field; the worker parses the
thousands of pods and nodes and fails the run with the object and field named.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from dashboard import conf
from dashboard.cluster.models import Cluster
from dashboard.cluster.services import broadcast
from dashboard.cluster.services.snapshots import export_snapshot
from scheduler_engine import SchedulerConfig, build_cluster, default_config, simulate
from scheduler_engine.documents import parse_documents
from scheduler_engine.errors import InputError

from .. import codec
from ..indexes import INDEX_VERSION, Indexes, build_indexes
from ..models import DryRun, DryRunIndexPage, DryRunResultPage, ProfileVersion
from .compact import compact_result, explain_affordable
from .errors import BadInput, Cancelled, NotCancellable
from .metrics import fleet_metrics, verdicts
from .profiles import parse_config
from .workload import expand_workload

__all__ = [
    "cancel_dry_run",
    "compare_dry_runs",
    "create_dry_run",
    "dry_run_group",
    "ensure_indexes",
    "read_index",
    "read_results",
    "reap_stale_runs",
    "run_dry_run",
]

log = logging.getLogger(__name__)

# how often a running dry-run saves progress, checks for cancellation and beats
PROGRESS_INTERVAL = 0.5


def dry_run_group(dry_run_id: int) -> str:
    return f"dryrun-{dry_run_id}"


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
    seen: dict[tuple[str, str, str], int] = {}
    cheap: list[dict[str, Any]] = []
    for i, o in enumerate(objects):
        where = f"{field}[{i}]"
        if not isinstance(o, dict):
            raise BadInput.one(where, "must be a Kubernetes object (a mapping)")
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
        key = (kind, ns or ("default" if kind == "Pod" else ""), name)
        if key in seen:
            raise BadInput.one(
                f"{where}.metadata.name",
                f"duplicate {kind} {'/'.join(filter(None, key[1:]))} (also {field}[{seen[key]}])",
            )
        seen[key] = i
        if kind not in _DEEP_IN_WORKER:
            cheap.append(o)
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
    user: AbstractBaseUser | None = None,
) -> DryRun:
    """Freeze the cluster state and the workload, validate everything, queue the run."""
    if profile_version is not None and inline_config:
        raise BadInput.one("inline_config", "give either profile_version or inline_config")
    if inline_config:
        parse_config(inline_config, prefix="inline_config")
    pods = expand_workload(workload)
    if pods:
        _check_workload(pods)
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
        objects = export_snapshot(cluster)["items"]
        resource_versions = dict(cluster.resource_versions or {})
    else:
        raise BadInput.one("source", 'must be "mirror" or "snapshot"')
    data = codec.pack(objects + pods)
    with transaction.atomic():
        run = DryRun.objects.create(
            cluster=cluster,
            profile_version=profile_version,
            inline_config=inline_config,
            source=source,
            snapshot=data,
            snapshot_sha256=codec.sha256(data),
            snapshot_objects=len(objects) + len(pods),
            resource_versions=resource_versions,
            workload=workload if isinstance(workload, list | dict) else [],
            workload_pods=len(pods),
            seed=seed,
            explain=explain,
            created_by=user if user is not None and user.is_authenticated else None,
            result_page_size=conf.result_page_size(),
        )
        from ..tasks import run_dry_run_task

        transaction.on_commit(lambda: run_dry_run_task.delay(run.pk))
    return run


def _publish(run_id: int, **fields: Any) -> None:
    broadcast.publish([dry_run_group(run_id)], {"type": "dryrun.progress", "id": run_id, **fields})


def _claim(run_id: int) -> DryRun | None:
    """Move a queued (or abandoned running) run to running; None if someone else owns it."""
    stale = timezone.now() - timedelta(seconds=conf.stale_seconds())
    with transaction.atomic():
        run = DryRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None:
            return None
        if run.status == DryRun.Status.QUEUED and run.cancel_requested:
            _finish(run, DryRun.Status.CANCELLED)
            return None
        abandoned = run.status == DryRun.Status.RUNNING and (
            run.heartbeat_at is None or run.heartbeat_at < stale
        )
        if run.status != DryRun.Status.QUEUED and not abandoned:
            return None
        now = timezone.now()
        run.status = DryRun.Status.RUNNING
        run.started_at = now
        run.heartbeat_at = now
        run.attempts += 1
        run.save(update_fields=["status", "started_at", "heartbeat_at", "attempts"])
    _publish(run.pk, status=run.status, progress=0.0)
    return run


def _finish(run: DryRun, status: str, **fields: Any) -> None:
    fields.update(status=status, finished_at=timezone.now(), heartbeat_at=timezone.now())
    DryRun.objects.filter(pk=run.pk).update(**fields)
    _publish(run.pk, status=status, progress=fields.get("progress", run.progress))


def _config_for(run: DryRun) -> SchedulerConfig:
    if run.profile_version_id is not None:
        return parse_config(run.profile_version.document)
    if run.inline_config:
        return parse_config(run.inline_config, prefix="inline_config")
    return default_config()


class _Progress:
    """The engine's progress callback: saves progress, beats, and stops a cancelled run."""

    def __init__(self, run_id: int) -> None:
        self.run_id = run_id
        self.last = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < PROGRESS_INTERVAL and done < total:
            return
        self.last = now
        pct = round(100.0 * done / total, 1) if total else 100.0
        DryRun.objects.filter(pk=self.run_id).update(
            progress=pct, pods_done=done, pods_total=total, heartbeat_at=timezone.now()
        )
        if DryRun.objects.filter(pk=self.run_id, cancel_requested=True).exists():
            raise Cancelled
        _publish(self.run_id, status=DryRun.Status.RUNNING, progress=pct, podsDone=done)


def run_dry_run(run_id: int) -> str | None:
    """Run one dry-run to its end; safe to call twice (the second call does nothing)."""
    run = _claim(run_id)
    if run is None:
        return None
    try:
        t0 = time.perf_counter()
        objects = codec.unpack(run.snapshot)
        state = build_cluster(objects, source="snapshot")
        config = _config_for(run)
        t1 = time.perf_counter()
        explain = run.explain and explain_affordable(state)
        result = simulate(state, config, seed=run.seed, explain=explain, progress=_Progress(run.pk))
        t2 = time.perf_counter()
        results = [compact_result(r) for r in result.to_dict()["results"]]
        if run.explain and not explain:
            result.summary["explainSkipped"] = (
                f"{len(state.pending_pods)} pods on {len(state.nodes)} nodes is more than "
                f"SCHEDLAB_DRYRUN_EXPLAIN_MAX_PAIRS={conf.explain_max_pairs()} to explain per "
                "node and plugin; messages, placements and preemptions are complete"
            )
        metrics = fleet_metrics(state, results)
        placed = sum(1 for r in results if r["status"] == "Scheduled")
        size = run.result_page_size or conf.result_page_size()
        pages = [
            DryRunResultPage(dry_run_id=run.pk, index=i, data=codec.pack(results[s : s + size]))
            for i, s in enumerate(range(0, len(results), size))
        ]
        indexes = build_indexes(objects, results)
        with transaction.atomic():
            DryRunResultPage.objects.filter(dry_run_id=run.pk).delete()
            DryRunResultPage.objects.bulk_create(pages)
            _store_indexes(run.pk, indexes)
            t3 = time.perf_counter()
            _finish(
                run,
                DryRun.Status.SUCCEEDED,
                progress=100.0,
                pods_done=len(results),
                pods_total=len(results),
                pods_placed=placed,
                summary=result.summary,
                metrics=metrics,
                result_count=len(results),
                load_seconds=round(t1 - t0, 4),
                engine_seconds=round(t2 - t1, 4),
                store_seconds=round(t3 - t2, 4),
                pods_per_second=result.summary.get("podsPerSecond"),
                error="",
                **_index_fields(indexes),
            )
    except Cancelled:
        _finish(run, DryRun.Status.CANCELLED)
    except (BadInput, InputError) as exc:
        _finish(run, DryRun.Status.FAILED, error=str(exc))
    except Exception as exc:  # a bug: the run must not stay "running"
        log.exception("dry-run %s failed", run_id)
        _finish(run, DryRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    return DryRun.objects.values_list("status", flat=True).get(pk=run_id)


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


def reap_stale_runs() -> int:
    """Mark running dry-runs whose worker stopped beating as failed; returns how many."""
    seconds = conf.stale_seconds()
    stale = timezone.now() - timedelta(seconds=seconds)
    return DryRun.objects.filter(status=DryRun.Status.RUNNING, heartbeat_at__lt=stale).update(
        status=DryRun.Status.FAILED,
        finished_at=timezone.now(),
        error=f"the worker stopped reporting (no heartbeat for {seconds:g} s); run it again",
    )


def _index_fields(indexes: Indexes) -> dict[str, int]:
    return {
        "index_version": INDEX_VERSION,
        "pending_count": len(indexes.pending),
        "preemptor_count": indexes.preemptions["preemptorCount"],
        "victim_count": indexes.preemptions["victimCount"],
    }


def _store_indexes(run_id: int, indexes: Indexes) -> None:
    """One row per page of each index (see ``DryRunIndexPage``); replaces older ones."""
    rows = []
    for kind, entries in (("placements", indexes.placements), ("pending", indexes.pending)):
        size = DryRunIndexPage.SIZES[kind]
        rows += [
            DryRunIndexPage(
                dry_run_id=run_id, kind=kind, index=i, data=codec.pack(entries[s : s + size])
            )
            for i, s in enumerate(range(0, len(entries), size))
        ]
    for kind, value in (("preemptions", indexes.preemptions), ("rejections", indexes.rejections)):
        rows.append(DryRunIndexPage(dry_run_id=run_id, kind=kind, index=0, data=codec.pack(value)))
    DryRunIndexPage.objects.filter(dry_run_id=run_id).delete()
    DryRunIndexPage.objects.bulk_create(rows)


def ensure_indexes(run: DryRun) -> DryRun:
    """Build the indexes of a succeeded run that finished before they existed (once).

    Costs what the old results page cost on every view (every result page and
    the frozen state inflated); runs finished since store them as they finish.
    """
    if run.status != DryRun.Status.SUCCEEDED or run.index_version >= INDEX_VERSION:
        return run
    objects = codec.unpack(DryRun.objects.values_list("snapshot", flat=True).get(pk=run.pk))
    results = read_results(run, 0, run.result_count)
    indexes = build_indexes(objects, results)
    fields = _index_fields(indexes)
    with transaction.atomic():
        _store_indexes(run.pk, indexes)
        DryRun.objects.filter(pk=run.pk).update(**fields)
    for name, value in fields.items():
        setattr(run, name, value)
    return run


def read_index(run: DryRun, kind: str, offset: int = 0, limit: int | None = None) -> Any:
    """Entries ``offset``..``offset+limit`` of a paged index (the value of a one-page one).

    Inflates only the index pages they lie on; never a result page or the state.
    """
    size = DryRunIndexPage.SIZES[kind]
    if limit is None:
        data = (
            DryRunIndexPage.objects.filter(dry_run=run, kind=kind, index=0)
            .values_list("data", flat=True)
            .first()
        )
        return codec.unpack(data) if data is not None else None
    if limit <= 0:
        return []
    first, last = offset // size, (offset + limit - 1) // size
    out: list[dict[str, Any]] = []
    pages = (
        DryRunIndexPage.objects.filter(dry_run=run, kind=kind, index__range=(first, last))
        .order_by("index")
        .values_list("data", flat=True)
    )
    for data in pages:
        out.extend(codec.unpack(data))
    skip = offset - first * size
    return out[skip : skip + limit]


def read_results(run: DryRun, offset: int, limit: int) -> list[dict[str, Any]]:
    """Results ``offset`` .. ``offset+limit`` inflating only the pages they lie on."""
    size = run.result_page_size or 1
    end = min(offset + limit, run.result_count)
    if offset >= end:
        return []
    first, last = offset // size, (end - 1) // size
    out: list[dict[str, Any]] = []
    pages = DryRunResultPage.objects.filter(dry_run=run, index__range=(first, last)).order_by(
        "index"
    )
    for page in pages:
        out.extend(codec.unpack(page.data))
    skip = offset - first * size
    return out[skip : skip + (end - offset)]


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
