"""Create a study (validate, store its traces and runs, fan the runs out), cancel it, export it.

A study's runs are the cross product traces x configurations x seeds x
percentageOfNodesToScore values, capped at ``SCHEDLAB_STUDY_MAX_RUNS``; they
leave as one Celery group, one task a run, so every worker takes a share.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Sequence
from typing import Any

from celery import group
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from dashboard import conf
from dashboard.cluster.models import Cluster
from dashboard.cluster.services.history_trace import write_history_trace
from dashboard.dryruns.models import ProfileVersion
from dashboard.dryruns.services.errors import BadInput, NotCancellable
from dashboard.dryruns.services.profiles import parse_config
from scheduler_engine.errors import InputError
from scheduler_engine.replay import default_config_doc, policy_config_doc

from ..models import FINISHED, Status, Study, StudyRun, StudyTrace
from ..tasks import run_study_run_task
from .runner import publish
from .traces import load_trace

__all__ = [
    "DEFAULT_POLICY",
    "NODES_TO_SCORE",
    "PRESETS",
    "cancel_study",
    "create_study",
    "export_csv",
    "export_json",
]

DEFAULT_POLICY = "default"  # the default profile (with GPU sharing modelled)
NODES_TO_SCORE = "nodes-to-score"
# the built-in study: throughput against placement quality as fewer nodes are scored
PRESETS: dict[str, dict[str, Any]] = {
    NODES_TO_SCORE: {"percentages": [5, 10, 20, 30, 50, 75, 100], "policies": [DEFAULT_POLICY]},
}


def _configs(policies: Sequence[str], versions: Sequence[int]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in policies:
        doc = default_config_doc() if p == DEFAULT_POLICY else policy_config_doc(p)
        out.append({"label": p, "policy": None if p == DEFAULT_POLICY else p, "document": doc})
    found = {
        v.pk: v for v in ProfileVersion.objects.filter(pk__in=versions).select_related("profile")
    }
    for i, pk in enumerate(versions):
        v = found.get(pk)
        if v is None:
            raise BadInput.one(f"profile_versions[{i}]", f"no profile version with id {pk}")
        try:
            parse_config(v.document, prefix=f"profile_versions[{i}]")
        except BadInput as exc:
            raise BadInput({f"profile_versions[{i}]": [str(exc)]}) from None
        out.append({"label": f"{v.profile.name} v{v.number}", "policy": None, "text": v.document})
    return out


def _history(i: int, name: str, days: float | None) -> str:
    cluster = Cluster.objects.filter(name=name).first()
    if cluster is None:
        raise BadInput.one(f"traces[{i}]", f"cluster: no cluster named {name!r}")
    out = io.StringIO()
    write_history_trace(cluster, out, days)
    return out.getvalue()


def _traces(traces: Sequence[dict[str, Any]]) -> list[tuple[dict[str, Any], int, int]]:
    out = []
    for i, t in enumerate(traces):
        fmt = "openb" if "pods_csv" in t else "jsonl"
        nodes_text = t.get("nodes_csv", "")
        if "cluster" in t:
            pods_text = _history(i, t["cluster"], t.get("days"))
        else:
            pods_text = t["pods_csv"] if fmt == "openb" else t.get("jsonl", "")
        try:
            trace = load_trace(fmt, nodes_text, pods_text)
        except InputError as exc:
            raise BadInput.one(f"traces[{i}]", exc.one_line()) from None
        default_name = t.get("cluster") or f"trace-{i + 1}"
        row = {"name": t.get("name") or default_name, "format": fmt}
        out.append(
            (
                {**row, "nodes_text": nodes_text, "pods_text": pods_text},
                len(trace.nodes),
                len(trace.pods),
            )
        )
    return out


def create_study(
    *,
    user: AbstractBaseUser | None,
    traces: Sequence[dict[str, str]],
    name: str = "",
    preset: str = "",
    policies: Sequence[str] | None = None,
    profile_versions: Sequence[int] = (),
    seeds: Sequence[int] = (42,),
    percentages: Sequence[int] | None = None,
    mode: str = "inflate",
    inflate: float = 1.3,
) -> Study:
    """Validate, store and dispatch a study; :class:`BadInput` names the bad field."""
    base = PRESETS.get(preset, {})
    if policies is None:
        policies = base.get("policies", [DEFAULT_POLICY] if not profile_versions else [])
    if percentages is None:
        percentages = base.get("percentages", [100])
    if not traces:
        raise BadInput.one("traces", "give at least one trace")
    if not policies and not profile_versions:
        raise BadInput.one("policies", "give at least one policy or profile version")
    n_configs = len(policies) + len(profile_versions)
    runs = len(traces) * n_configs * len(seeds) * len(percentages)
    cap = conf.study_max_runs()
    if runs > cap:
        raise BadInput.one(
            "runs",
            f"{runs} runs (traces x policies and profile versions x seeds x percentages) "
            f"is more than {cap} (SCHEDLAB_STUDY_MAX_RUNS)",
        )
    configs = _configs(policies, profile_versions)
    loaded = _traces(traces)
    spec = {
        "configs": configs,
        "seeds": list(seeds),
        "percentages": list(percentages),
        "mode": mode,
        "inflate": inflate,
    }
    with transaction.atomic():
        study = Study.objects.create(
            name=name or (preset or "study"),
            preset=preset,
            spec=spec,
            runs_total=runs,
            created_by=user if user is not None and user.is_authenticated else None,
        )
        rows = [
            StudyTrace(study=study, index=i, nodes=n, pods=p, **t)
            for i, (t, n, p) in enumerate(loaded)
        ]
        rows = StudyTrace.objects.bulk_create(rows)
        product = itertools.product(rows, range(len(configs)), seeds, percentages)
        created = StudyRun.objects.bulk_create(
            StudyRun(
                study=study,
                index=k,
                trace=tr,
                config_index=c,
                config_label=configs[c]["label"],
                seed=seed,
                percentage=pct,
            )
            for k, (tr, c, seed, pct) in enumerate(product)
        )
        ids = [r.pk for r in created]
        transaction.on_commit(lambda: group(run_study_run_task.s(pk) for pk in ids).apply_async())
    return study


def cancel_study(study: Study) -> Study:
    """Queued runs are dropped, running ones stop at their next progress check."""
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        if locked.status in FINISHED:
            raise NotCancellable(f"the study already {locked.status}")
        now = timezone.now()
        StudyRun.objects.filter(study=locked, status=Status.QUEUED).update(
            status=Status.CANCELLED, finished_at=now
        )
        locked.status = Status.CANCELLED
        locked.finished_at = now
        locked.runs_done = StudyRun.objects.filter(study=locked, status__in=FINISHED).count()
        locked.save(update_fields=["status", "finished_at", "runs_done"])
    publish(locked, None)
    return locked


EXPORT_COLUMNS = (
    "run",
    "trace",
    "config",
    "seed",
    "percentageOfNodesToScore",
    "status",
    "pods",
    "placed",
    "failed",
    "unallocatedGpuPercentAt100",
    "wallSeconds",
    "podsPerSecond",
    "worker",
    "error",
)


def _row(run: StudyRun) -> dict[str, Any]:
    s = run.summary or {}
    return {
        "run": run.index,
        "trace": run.trace.name,
        "config": run.config_label,
        "seed": run.seed,
        "percentageOfNodesToScore": run.percentage,
        "status": run.status,
        "pods": s.get("pods"),
        "placed": s.get("placed"),
        "failed": s.get("failed"),
        "unallocatedGpuPercentAt100": s.get("unallocatedGpuPercentAt100"),
        "wallSeconds": s.get("wallSeconds"),
        "podsPerSecond": s.get("podsPerSecond"),
        "worker": run.worker,
        "error": run.error,
    }


def _runs(study: Study) -> list[StudyRun]:
    return list(study.runs.select_related("trace").order_by("index"))


def export_csv(study: Study) -> str:
    """One row a run: its coordinates and its summary's figures."""
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
    w.writeheader()
    for run in _runs(study):
        w.writerow(_row(run))
    return out.getvalue()


def export_json(study: Study) -> dict[str, Any]:
    """The study and every run with its full summary and unallocated-GPU curve."""
    return {
        "id": study.pk,
        "name": study.name,
        "preset": study.preset,
        "status": study.status,
        "spec": {k: v for k, v in study.spec.items() if k != "configs"}
        | {"configs": [c["label"] for c in study.spec.get("configs", [])]},
        "runs": [{**_row(r), "summary": r.summary, "curve": r.curve} for r in _runs(study)],
    }
