"""Schedlab's scheduling engine: a faithful pure-Python kube-scheduler (v1.36).

    cluster = load_cluster("snapshot.yaml")
    result = simulate(cluster, load_config("scheduler.yaml"), seed=1, explain=True)
    print(result.to_dict())

Nothing here imports Django, Celery or the Kubernetes client.
"""

from __future__ import annotations

from .cluster import ClusterState, PodDisruptionBudget, build_cluster, load_cluster
from .config import (
    PluginRef,
    ProfileConfig,
    SchedulerConfig,
    default_config,
    load_config,
    load_config_text,
    validate_config,
)
from .errors import ConfigError, InputError
from .framework.registry import Registry, default_registry
from .results import PodResult, SimulationResult
from .scheduler.messages import FitError
from .simulate import simulate

__all__ = [
    "ClusterState",
    "ConfigError",
    "FitError",
    "InputError",
    "PluginRef",
    "PodDisruptionBudget",
    "PodResult",
    "ProfileConfig",
    "Registry",
    "SchedulerConfig",
    "SimulationResult",
    "build_cluster",
    "default_config",
    "default_registry",
    "load_cluster",
    "load_config",
    "load_config_text",
    "simulate",
    "validate_config",
]
