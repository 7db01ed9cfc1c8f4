"""The resolved scheduler configuration the framework is built from.

``load_config`` (in :mod:`scheduler_engine.config.load`) turns a
``KubeSchedulerConfiguration`` document into these values, applying upstream's
defaults and validation.  Plugin lists here are *resolved*: defaults merged,
``multiPoint`` expanded, ``disabled`` (including ``"*"``) applied, so the
framework only has to instantiate them in order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "EXTENSION_POINTS",
    "PluginRef",
    "ProfileConfig",
    "SchedulerConfig",
]

# Upstream's extension points, as spelled in KubeSchedulerConfiguration.plugins.
EXTENSION_POINTS: tuple[str, ...] = (
    "preEnqueue",
    "queueSort",
    "preFilter",
    "filter",
    "postFilter",
    "preScore",
    "score",
    "reserve",
    "permit",
    "preBind",
    "bind",
    "postBind",
)


@dataclass(frozen=True, slots=True)
class PluginRef:
    """One enabled plugin at one extension point (weight only matters for score)."""

    name: str
    weight: int = 0


@dataclass(frozen=True, slots=True)
class ProfileConfig:
    scheduler_name: str
    # extension point (see EXTENSION_POINTS) -> plugins in the order they run
    plugins: Mapping[str, tuple[PluginRef, ...]]
    # plugin name -> its defaulted and validated args, keys as in YAML (camelCase)
    plugin_args: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # None: inherit the global value
    percentage_of_nodes_to_score: int | None = None

    def enabled(self, point: str) -> tuple[PluginRef, ...]:
        return tuple(self.plugins.get(point, ()))


@dataclass(frozen=True, slots=True)
class SchedulerConfig:
    profiles: tuple[ProfileConfig, ...]
    # None (or 0): the adaptive default
    percentage_of_nodes_to_score: int | None = None
    parallelism: int = 16
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    # the document as given (after parsing), for display and round-trips
    source: Mapping[str, Any] | None = None
    # feature gates set for the run (gate → value); gates not named keep v1.36's defaults
    feature_gates: Mapping[str, bool] = field(default_factory=dict)

    def profile(self, scheduler_name: str) -> ProfileConfig | None:
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None
