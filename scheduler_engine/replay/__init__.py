"""Trace replay: the engine's scheduler over a workload trace, measuring GPU allocation and fragmentation.

``read_trace`` reads the openb CSV files or Schedlab's JSON-lines format,
``replay`` runs it (``inflate`` or ``time`` mode) under a configuration, and
``policy_config_doc`` builds the configuration of one of the FGD paper's six
policies.  See ``docs/replay.md``.
"""

from __future__ import annotations

from .metrics import GpuMetrics, curve, unallocated_at
from .profiles import (
    default_config_doc,
    policy_config_doc,
    with_percentage_of_nodes_to_score,
    with_typical_pods,
)
from .run import MODES, TIE_BREAKS, ReplayOptions, replay, trace_typical_pods
from .trace import Trace, TracePod, read_trace, write_jsonl
from .workload import inflate_workload

__all__ = [
    "MODES",
    "TIE_BREAKS",
    "GpuMetrics",
    "ReplayOptions",
    "Trace",
    "TracePod",
    "curve",
    "default_config_doc",
    "inflate_workload",
    "policy_config_doc",
    "read_trace",
    "replay",
    "trace_typical_pods",
    "unallocated_at",
    "with_percentage_of_nodes_to_score",
    "with_typical_pods",
    "write_jsonl",
]
