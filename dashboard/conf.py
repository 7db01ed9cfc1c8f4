"""The Django side's tunables (``SCHEDLAB_*``), each read from Django settings or the environment."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from schedlab.settings.env import env_bool, env_float, env_int
from scheduler_engine.features import parse_feature_gates
from scheduler_engine.framework.registry import Registry
from scheduler_engine.plugin_loader import build_registry, parse_specs

T = TypeVar("T", bool, int, float)


@dataclass(frozen=True, slots=True)
class Tunable(Generic[T]):
    """A ``SCHEDLAB_*`` tunable: the Django setting ``name``, else the environment
    variable of that name, else ``default``. Called, it answers a value of the
    default's type, or raises an error naming the setting."""

    name: str
    default: T

    def __call__(self) -> T:
        kind = type(self.default)
        if not hasattr(settings, self.name):
            return _ENV_READERS[kind](self.name, self.default)
        value = getattr(settings, self.name)
        try:
            return kind(value)
        except (TypeError, ValueError):
            raise ImproperlyConfigured(f"{self.name}={value!r}: expected {kind.__name__}") from None


_ENV_READERS: dict[type, Callable[[str, Any], Any]] = {
    bool: env_bool,
    int: env_int,
    float: env_float,
}

max_snapshot_bytes = Tunable("SCHEDLAB_MAX_SNAPSHOT_BYTES", 64 * 1024 * 1024)
"""Largest uploaded snapshot or config text the API accepts."""

max_request_bytes = Tunable("SCHEDLAB_MAX_REQUEST_BYTES", 1 << 20)
"""Largest request body of API endpoints that take no snapshot or config (1 MiB)."""

max_config_bytes = Tunable("SCHEDLAB_MAX_CONFIG_BYTES", 1 << 20)
"""Largest scheduler configuration document (and its request) accepted (1 MiB)."""

max_workload_pods = Tunable("SCHEDLAB_MAX_WORKLOAD_PODS", 100_000)
"""Most pods one dry-run request may add (workload items and their replicas together)."""

cascade_max_depth = Tunable("SCHEDLAB_CASCADE_MAX_DEPTH", 10)
"""Deepest preemption cascade a dry-run may follow (``cascade_depth``; the engine's cap is 20)."""

max_reported_errors = Tunable("SCHEDLAB_MAX_REPORTED_ERRORS", 50)
"""How many problems a validation answer lists; the rest are counted."""

stale_seconds = Tunable("SCHEDLAB_DRYRUN_STALE_SECONDS", 20.0)
"""A running dry-run whose heartbeat is older than this lost its worker (20 s).

A running dry-run beats every :data:`heartbeat_seconds` from a small process
of its own, whatever the worker's GIL is doing, until the worker process
ends; with the reaper's interval a lost worker is noticed within
``stale + reap`` = 25 s.
"""

heartbeat_seconds = Tunable("SCHEDLAB_DRYRUN_HEARTBEAT_SECONDS", 5.0)
"""How often a running dry-run or study run says it is alive (5 s)."""

max_attempts = Tunable("SCHEDLAB_DRYRUN_MAX_ATTEMPTS", 2)
"""How many times a dry-run is started before a lost worker fails it (2: one rerun)."""

result_page_size = Tunable("SCHEDLAB_DRYRUN_RESULT_PAGE", 1000)
"""How many placements one stored page of a dry-run's results holds."""

explain_prewarm = Tunable("SCHEDLAB_EXPLAIN_PREWARM", False)
"""Whether web and worker processes build the warm explanation state at start-up."""

explain_recheck_seconds = Tunable("SCHEDLAB_EXPLAIN_RECHECK_SECONDS", 0.0)
"""How long a process trusts its warm cluster state before asking the database again.

0 (the default) checks on every explanation: one aggregate query per request.
"""

reap_seconds = Tunable("SCHEDLAB_DRYRUN_REAP_SECONDS", 5.0)
"""How often each Celery worker marks dry-runs whose worker died as failed (0: never)."""

explain_max_pairs = Tunable("SCHEDLAB_DRYRUN_EXPLAIN_MAX_PAIRS", 2_000_000)
"""Largest (pods to schedule times nodes) a dry-run explains per node and plugin.

Explaining records every plugin's verdict on every node for every pod; past
this the run goes on without the per-node record (messages stay).
"""

explain_top_nodes = Tunable("SCHEDLAB_DRYRUN_EXPLAIN_TOP_NODES", 10)
"""How many best-scored nodes keep their per-plugin scores in stored results."""

trace_retention_days = Tunable("SCHEDLAB_TRACE_RETENTION_DAYS", 7.0)
"""How long the mirror keeps deleted pods' history for ``export_trace`` (days)."""

study_max_runs = Tunable("SCHEDLAB_STUDY_MAX_RUNS", 200)
"""Most runs (traces x configurations x seeds x percentages) one study may hold."""

study_stale_seconds = Tunable("SCHEDLAB_STUDY_STALE_SECONDS", 120.0)
"""A running study run whose heartbeat is older than this lost its worker (120 s);
its task, delivered again, runs it anew."""


def _setting(name: str) -> Any:
    """The setting ``name``, else the environment variable of that name (None: neither)."""
    value = getattr(settings, name, None)
    return os.environ.get(name) if value is None else value


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
