"""The Django side's tunables (``SCHEDLAB_*``), each read from Django settings or the environment."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

from schedlab.settings.env import env_float, env_int
from scheduler_engine.features import parse_feature_gates
from scheduler_engine.framework.registry import Registry
from scheduler_engine.plugin_loader import build_registry, parse_specs


def _get(name: str, default: int | float) -> int | float:
    if hasattr(settings, name):
        return getattr(settings, name)
    reader = env_float if isinstance(default, float) else env_int
    return reader(name, default)  # type: ignore[arg-type]


def _setting(name: str) -> Any:
    """The setting ``name``, else the environment variable of that name (None: neither)."""
    value = getattr(settings, name, None)
    return os.environ.get(name) if value is None else value


def max_snapshot_bytes() -> int:
    """Largest uploaded snapshot or config text the API accepts."""
    return int(_get("SCHEDLAB_MAX_SNAPSHOT_BYTES", 64 * 1024 * 1024))


def max_request_bytes() -> int:
    """Largest request body of API endpoints that take no snapshot or config (1 MiB)."""
    return int(_get("SCHEDLAB_MAX_REQUEST_BYTES", 1 << 20))


def max_config_bytes() -> int:
    """Largest scheduler configuration document (and its request) accepted (1 MiB)."""
    return int(_get("SCHEDLAB_MAX_CONFIG_BYTES", 1 << 20))


def max_workload_pods() -> int:
    """Most pods one dry-run request may add (workload items and their replicas together)."""
    return int(_get("SCHEDLAB_MAX_WORKLOAD_PODS", 100_000))


def cascade_max_depth() -> int:
    """Deepest preemption cascade a dry-run may follow (``cascade_depth``; the engine's cap is 20)."""
    return int(_get("SCHEDLAB_CASCADE_MAX_DEPTH", 10))


def max_reported_errors() -> int:
    """How many problems a validation answer lists; the rest are counted."""
    return int(_get("SCHEDLAB_MAX_REPORTED_ERRORS", 50))


def stale_seconds() -> float:
    """A running dry-run whose heartbeat is older than this lost its worker (20 s).

    A running dry-run beats every :func:`heartbeat_seconds` from a small process
    of its own, whatever the worker's GIL is doing, until the worker process
    ends; with the reaper's interval a lost worker is noticed within
    ``stale + reap`` = 25 s.
    """
    return float(_get("SCHEDLAB_DRYRUN_STALE_SECONDS", 20.0))


def heartbeat_seconds() -> float:
    """How often a running dry-run or study run says it is alive (5 s)."""
    return float(_get("SCHEDLAB_DRYRUN_HEARTBEAT_SECONDS", 5.0))


def max_attempts() -> int:
    """How many times a dry-run is started before a lost worker fails it (2: one rerun)."""
    return int(_get("SCHEDLAB_DRYRUN_MAX_ATTEMPTS", 2))


def result_page_size() -> int:
    return int(_get("SCHEDLAB_DRYRUN_RESULT_PAGE", 1000))


def explain_prewarm() -> bool:
    """Whether web and worker processes build the warm explanation state at start-up."""
    return bool(getattr(settings, "SCHEDLAB_EXPLAIN_PREWARM", False))


def explain_recheck_seconds() -> float:
    """How long a process trusts its warm cluster state before asking the database again.

    0 (the default) checks on every explanation: one aggregate query per request.
    """
    return float(_get("SCHEDLAB_EXPLAIN_RECHECK_SECONDS", 0.0))


def reap_seconds() -> float:
    """How often each Celery worker marks dry-runs whose worker died as failed (0: never)."""
    return float(_get("SCHEDLAB_DRYRUN_REAP_SECONDS", 5.0))


def explain_max_pairs() -> int:
    """Largest (pods to schedule times nodes) a dry-run explains per node and plugin.

    Explaining records every plugin's verdict on every node for every pod; past
    this the run goes on without the per-node record (messages stay).
    """
    return int(_get("SCHEDLAB_DRYRUN_EXPLAIN_MAX_PAIRS", 2_000_000))


def explain_top_nodes() -> int:
    """How many best-scored nodes keep their per-plugin scores in stored results."""
    return int(_get("SCHEDLAB_DRYRUN_EXPLAIN_TOP_NODES", 10))


def plugin_specs() -> tuple[str, ...]:
    """``SCHEDLAB_PLUGINS``: ``MODULE:CLASS`` scheduler plugins to load, comma separated.

    Read by web processes and workers alike; plugins installed under the
    ``schedlab.plugins`` entry-point group are loaded whatever this says.
    """
    return parse_specs(_setting("SCHEDLAB_PLUGINS"))


def engine_registry() -> Registry:
    """The engine's plugins for this process: in-tree, entry points, ``SCHEDLAB_PLUGINS``.

    Raises ``scheduler_engine.plugin_loader.PluginError`` for a plugin that does
    not load (``manage.py check`` reports it first, see ``dashboard.checks``).
    """
    return build_registry(plugin_specs())


def engine_config_kwargs() -> dict[str, Any]:
    """What the engine's ``load_config`` / ``validate_config`` need to know of the plugins."""
    return engine_registry().config_kwargs()


def feature_gates() -> dict[str, bool] | None:
    """kube-scheduler's ``--feature-gates`` for explanations and dry-runs (``SCHEDLAB_FEATURE_GATES``).

    The text kube-scheduler takes (``GenericWorkload=true,GangScheduling=true``);
    None when unset, so the engine uses upstream's defaults. With the native
    workload gates on, native gangs are scheduled as groups (the pod-group cycle).
    """
    text = _setting("SCHEDLAB_FEATURE_GATES")
    if not text:
        return None
    return parse_feature_gates(text, field="SCHEDLAB_FEATURE_GATES")


def trace_retention_days() -> float:
    """How long the mirror keeps deleted pods' history for ``export_trace`` (days)."""
    return float(_get("SCHEDLAB_TRACE_RETENTION_DAYS", 7.0))


def study_max_runs() -> int:
    """Most runs (traces x configurations x seeds x percentages) one study may hold."""
    return int(_get("SCHEDLAB_STUDY_MAX_RUNS", 200))


def study_stale_seconds() -> float:
    """A running study run whose heartbeat is older than this lost its worker (120 s);
    its task, delivered again, runs it anew."""
    return float(_get("SCHEDLAB_STUDY_STALE_SECONDS", 120.0))
