"""NodeResourceTopologyMatchArgs: defaults and validation as scheduler-plugins has them."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .score import LEAST_ALLOCATED, STRATEGIES

__all__ = ["PREEMPTION_MODES", "check_args", "default_args", "validate_args"]

PREEMPTION_MODES = ("Disabled", "Enabled")
_DEFAULT_RESOURCES = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]


def default_args(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """``SetDefaults_NodeResourceTopologyMatchArgs`` on a copy."""
    a: dict[str, Any] = copy.deepcopy(dict(raw or {}))
    a.pop("apiVersion", None)
    a.pop("kind", None)
    strategy = a.get("scoringStrategy")
    if strategy is None:
        strategy = {"type": LEAST_ALLOCATED, "resources": copy.deepcopy(_DEFAULT_RESOURCES)}
    strategy = dict(strategy)
    if not strategy.get("resources"):
        strategy["resources"] = copy.deepcopy(_DEFAULT_RESOURCES)
    strategy["resources"] = [
        {**r, "weight": r.get("weight") or 1} if isinstance(r, Mapping) else r
        for r in strategy["resources"]
    ]
    a["scoringStrategy"] = strategy
    cache = dict(a.get("cache") or {})
    cache.setdefault("foreignPodsDetect", "All")
    cache.setdefault("resyncMethod", "Autodetect")
    cache.setdefault("informerMode", "Dedicated")
    a["cache"] = cache
    a.setdefault("preemptionMode", "Disabled")
    return a


def validate_args(args: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    """(field, value, message) for each problem, as ``ValidateNodeResourceTopologyMatchArgs``."""
    errs: list[tuple[str, Any, str]] = []
    strategy = args.get("scoringStrategy") or {}
    stype = strategy.get("type", "") if isinstance(strategy, Mapping) else ""
    if stype not in STRATEGIES:
        errs.append(("scoringStrategy.type", stype, "invalid ScoringStrategyType"))
    mode = args.get("preemptionMode")
    if mode is not None and mode not in PREEMPTION_MODES:
        errs.append(("preemptionMode", mode, "invalid PreemptionMode"))
    return errs


def check_args(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Any, str]]]:
    """Defaulted args and their problems (the registry's args check)."""
    args = default_args(raw)
    return args, validate_args(args)
