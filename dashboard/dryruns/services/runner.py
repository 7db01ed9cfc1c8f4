"""The worker's side of a dry-run: claim it, run the engine, store the results, report.

Safe to run twice (a second worker finds the run claimed), cancellable at each
progress report, and a run whose worker died is marked failed by
:func:`reap_stale_runs`.
"""

from __future__ import annotations

import gc
import logging
import time
import zlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone

from dashboard import conf
from dashboard.cluster.services import broadcast
from dashboard.heartbeat import Heartbeat
from scheduler_engine import SchedulerConfig, build_cluster, simulate
from scheduler_engine.collector import frozen_after
from scheduler_engine.collisions import simulate_colliding
from scheduler_engine.errors import InputError
from scheduler_engine.hardware_view import simulate_hardware_view

from .. import codec
from ..indexes import build_indexes
from ..models import DryRun, DryRunResultPage
from .compact import compact_result, explain_affordable
from .errors import BadInput, Cancelled
from .metrics import fleet_metrics
from .moves import apply_moves
from .profiles import default_engine_config, parse_config
from .results import index_fields, store_indexes

__all__ = ["dry_run_group", "reap_stale_runs", "run_dry_run"]

log = logging.getLogger(__name__)

# how often a running dry-run saves progress, checks for cancellation and beats
PROGRESS_INTERVAL = 0.5


# A cut database connection (a PostgreSQL restart, pg_terminate_backend, a
# failover) costs a store this many tries, waiting 0.2, 0.4, 0.8 ... s between.
DB_ATTEMPTS = 6


def _retrying_db(fn: Callable[[], Any]) -> Any:
    """``fn()`` (one whole transaction or statement), again on a fresh connection if the
    connection was lost; a run's work is not thrown away for a moment without a database."""
    for attempt in range(DB_ATTEMPTS):
        try:
            return fn()
        except (OperationalError, InterfaceError) as exc:
            if attempt == DB_ATTEMPTS - 1 or connection.in_atomic_block:
                raise
            log.warning("database connection lost (%s); trying again", str(exc).splitlines()[0])
            connection.close()
            time.sleep(0.2 * 2**attempt)
    return None


def dry_run_group(dry_run_id: int) -> str:
    return f"dryrun-{dry_run_id}"


def _publish(run_id: int, **fields: Any) -> None:
    broadcast.publish([dry_run_group(run_id)], {"type": "dryrun.progress", "id": run_id, **fields})


def _claim(run_id: int) -> DryRun | None:
    """Move a queued (or abandoned running) run to running; None if someone else owns it."""
    return _retrying_db(lambda: _claim_once(run_id))


def _claim_once(run_id: int) -> DryRun | None:
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


def _still_ours(run: DryRun) -> bool:
    """Is this attempt still the run's own? Locks the row until the transaction ends.

    A worker too busy to beat (a long pause of its whole process) can be taken
    for lost: the reaper queues the run again and another attempt starts. The
    late attempt then stores nothing, so no run is stored twice.
    """
    mine = (
        DryRun.objects.select_for_update()
        .filter(pk=run.pk, attempts=run.attempts, status=run.status)
        .exists()
    )
    if not mine:
        log.warning(
            "dry-run %s: attempt %s was superseded (taken for lost); its results are dropped",
            run.pk,
            run.attempts,
        )
    return mine


def _finish(run: DryRun, status: str, **fields: Any) -> None:
    """The run's end, written only while this attempt is still the run's own."""
    fields.update(status=status, finished_at=timezone.now(), heartbeat_at=timezone.now())
    ours = DryRun.objects.filter(pk=run.pk, attempts=run.attempts, status=run.status)
    if _retrying_db(lambda: ours.update(**fields)):
        _publish(run.pk, status=status, progress=fields.get("progress", run.progress))


def _config_for(run: DryRun) -> SchedulerConfig:
    gates = run.feature_gates
    if run.profile_version_id is not None:
        return parse_config(run.profile_version.document, feature_gates=gates)
    if run.inline_config:
        return parse_config(run.inline_config, prefix="inline_config", feature_gates=gates)
    return default_engine_config(gates)


def _frozen_objects(run: DryRun) -> list[Any]:
    """The frozen state's objects; a document that does not read fails the run, named."""
    try:
        objects = codec.unpack(run.snapshot)
    except (OSError, EOFError, zlib.error, ValueError, RecursionError) as exc:
        reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise BadInput.one("snapshot", f"the frozen state cannot be read: {reason}") from None
    if not isinstance(objects, list):
        raise BadInput.one("snapshot", "the frozen state is not a list of objects")
    return objects


class _Progress:
    """The engine's progress callback: saves progress, beats, and stops a cancelled run.

    ``done`` of ``total`` are pods: of the pods queued so far, those tried at
    least once (``simulate``'s contract), so ``done <= total`` and ``progress``
    is ``100 * done / total``, rounded to a tenth; the API, the page and the
    websocket messages carry the three together.
    """

    def __init__(self, run: DryRun) -> None:
        self.run_id = run.pk
        self.ours = DryRun.objects.filter(
            pk=run.pk, attempts=run.attempts, status=DryRun.Status.RUNNING
        )
        self.last = time.monotonic()
        self.saved: tuple[int, int] | None = None

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        # every interval, and once when the last pod has had its first try
        if now - self.last < PROGRESS_INTERVAL and (done < total or self.saved == (done, total)):
            return
        self.last = now
        self.saved = (done, total)
        pct = round(100.0 * done / total, 1) if total else 100.0
        try:
            self.ours.update(
                progress=pct, pods_done=done, pods_total=total, heartbeat_at=timezone.now()
            )
            cancelled = DryRun.objects.filter(pk=self.run_id, cancel_requested=True).exists()
        except (OperationalError, InterfaceError) as exc:
            # progress is a report, not the result: reconnect and report next time
            log.warning("dry-run %s: progress not saved: %s", self.run_id, exc)
            connection.close()
            return
        if cancelled:
            raise Cancelled
        _publish(
            self.run_id,
            status=DryRun.Status.RUNNING,
            progress=pct,
            podsDone=done,
            podsTotal=total,
        )


def run_dry_run(run_id: int) -> str | None:
    """Run one dry-run to its end; safe to call twice (the second call does nothing)."""
    run = _claim(run_id)
    if run is None:
        return None
    # a worker freezes nothing else; a process that keeps frozen state of its own
    # (a web process's warm explanations, running a task eagerly) keeps it frozen
    thaw = gc.get_freeze_count() == 0
    try:
        with Heartbeat(run, status=DryRun.Status.RUNNING, attempts=run.attempts):
            _run(run)
    finally:
        if thaw:
            gc.unfreeze()  # what the run left is the collector's again
    return DryRun.objects.values_list("status", flat=True).get(pk=run_id)


def _run(run: DryRun) -> None:
    run_id = run.pk
    try:
        t0 = time.perf_counter()
        with frozen_after():  # the collector kept off the loaded state: run_dry_run thaws it
            objects = _frozen_objects(run)
            state = apply_moves(build_cluster(objects, source="snapshot"), run.moves)
        config = _config_for(run)
        t1 = time.perf_counter()
        explain = run.explain and explain_affordable(state)
        # a dry-run stands in for the controllers too: claims from templates, Immediate PVCs bound
        options: dict[str, Any] = {
            "seed": run.seed,
            "explain": explain,
            "progress": _Progress(run),
            "registry": conf.engine_registry(),
            "controllers": True,
        }
        if run.cascade_depth:
            options["cascade_depth"] = run.cascade_depth
        if run.scheduler_lag is not None:
            # each profile a scheduler of its own, its cache lagging: what the kubelet refuses
            doc = simulate_colliding(
                state,
                config,
                lag_cycles=run.scheduler_lag,
                seed=run.seed,
                registry=options["registry"],
                controllers=True,
                progress=options["progress"],
            )
            summary = {**doc["summary"], "collisions": doc["collisions"]}
        elif run.hardware_view:
            # the scheduler's view, then the hardware's: placements the first makes on
            # GPUs that do not exist, and pods the two place differently
            doc = simulate_hardware_view(state, config, **options)
            summary = {**doc["summary"], "hardwareView": doc["hardwareView"]}
        else:
            doc = simulate(state, config, **options).to_dict()
            summary = doc["summary"]
        if run.moves:
            summary["moves"] = list(run.moves)
        t2 = time.perf_counter()
        results = [compact_result(r) for r in doc["results"]]
        if run.explain and not explain:
            summary["explainSkipped"] = (
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

        def store() -> None:
            with transaction.atomic():
                if not _still_ours(run):
                    return
                DryRunResultPage.objects.filter(dry_run_id=run.pk).delete()
                DryRunResultPage.objects.bulk_create(pages)
                store_indexes(run.pk, indexes)
                t3 = time.perf_counter()
                _finish(
                    run,
                    DryRun.Status.SUCCEEDED,
                    progress=100.0,
                    pods_done=len(results),
                    pods_total=len(results),
                    pods_placed=placed,
                    summary=summary,
                    metrics=metrics,
                    result_count=len(results),
                    load_seconds=round(t1 - t0, 4),
                    engine_seconds=round(t2 - t1, 4),
                    store_seconds=round(t3 - t2, 4),
                    pods_per_second=summary.get("podsPerSecond"),
                    error="",
                    **index_fields(indexes),
                )

        _retrying_db(store)
    except Cancelled:
        _finish(run, DryRun.Status.CANCELLED)
    except (BadInput, InputError) as exc:
        _finish(run, DryRun.Status.FAILED, error=str(exc))
    except Exception as exc:  # a bug: the run must not stay "running"
        log.exception("dry-run %s failed", run_id)
        _finish(run, DryRun.Status.FAILED, error=f"{type(exc).__name__}: {exc}")


def reap_stale_runs(requeue: Callable[[int], object]) -> int:
    """Runs whose worker stopped beating: queued again once, then failed; returns how many.

    ``requeue(pk)`` sends a run back to the queue (the task module passes its
    Celery task's ``delay``, so this service does not import the tasks).

    A run lost on its first attempt goes back to ``queued`` and to the queue,
    for whichever worker is alive; lost on its last attempt
    (``SCHEDLAB_DRYRUN_MAX_ATTEMPTS``) it is marked failed. Nothing of a lost
    attempt was stored: results are written in one transaction at the end.
    """
    seconds = conf.stale_seconds()
    cutoff = timezone.now() - timedelta(seconds=seconds)
    with transaction.atomic():
        stale = list(
            DryRun.objects.select_for_update(skip_locked=True)
            .filter(status=DryRun.Status.RUNNING, heartbeat_at__lt=cutoff)
            .values_list("pk", "attempts")
        )
        again = [pk for pk, attempts in stale if attempts < conf.max_attempts()]
        lost = [pk for pk, attempts in stale if attempts >= conf.max_attempts()]
        if again:
            DryRun.objects.filter(pk__in=again).update(
                status=DryRun.Status.QUEUED,
                heartbeat_at=None,
                progress=0.0,
                pods_done=0,
                error=f"its worker was lost (no heartbeat for {seconds:g} s): running it again",
            )
            for pk in again:
                log.warning("dry-run %s lost its worker: queued again", pk)
                transaction.on_commit(lambda pk=pk: requeue(pk))
        if lost:
            DryRun.objects.filter(pk__in=lost).update(
                status=DryRun.Status.FAILED,
                finished_at=timezone.now(),
                error=(
                    f"the worker stopped reporting (no heartbeat for {seconds:g} s) on the "
                    f"last of {conf.max_attempts()} attempts; run it again"
                ),
            )
    for pk in again:
        _publish(pk, status=DryRun.Status.QUEUED, progress=0.0)
    for pk in lost:
        _publish(pk, status=DryRun.Status.FAILED)
    return len(stale)
