"""KubeSchedulerConfiguration (``kubescheduler.config.k8s.io/v1``) as kube-scheduler v1.36 reads it.

``load_config`` decodes strictly, applies upstream's defaults, validates like
upstream and resolves each profile's plugins per extension point (multiPoint
expanded, in the framework's order) into :class:`SchedulerConfig`.
"""

from __future__ import annotations

from .defaults import (
    DEFAULT_CAPABILITIES,
    DEFAULT_MULTIPOINT,
    DEFAULT_SCHEDULER_NAME,
    FEATURE_GATES,
    PLACEMENT_EXTENSION_POINTS,
    SYSTEM_DEFAULT_CONSTRAINTS,
    effective_default_constraints,
)
from .extenders import extender_warnings
from .load import (
    config_to_dict,
    default_config,
    dump_config,
    load_config,
    load_config_text,
    validate_config,
)
from .schema import format_duration, parse_duration
from .types import EXTENSION_POINTS, PluginRef, ProfileConfig, SchedulerConfig

__all__ = [
    "DEFAULT_CAPABILITIES",
    "DEFAULT_MULTIPOINT",
    "DEFAULT_SCHEDULER_NAME",
    "EXTENSION_POINTS",
    "FEATURE_GATES",
    "PLACEMENT_EXTENSION_POINTS",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "PluginRef",
    "ProfileConfig",
    "SchedulerConfig",
    "config_to_dict",
    "default_config",
    "dump_config",
    "effective_default_constraints",
    "extender_warnings",
    "format_duration",
    "load_config",
    "load_config_text",
    "parse_duration",
    "validate_config",
]
