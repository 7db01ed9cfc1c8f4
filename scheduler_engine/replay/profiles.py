"""The scheduler configurations a replay runs: a policy as the FGD simulator configures it.

The simulator's experiments keep the default filters, add ``Open-Gpu-Share``
(Filter and Reserve), disable every default score plugin, enable the policy's
score plugin alone (weight 1000), score every node
(``percentageOfNodesToScore: 100``), and pick each policy's GPU choice and
arguments (``experiments/run_scripts/generate_run_scripts.py``).  Without a
policy the default profile runs, with ``OpenGpuShare`` added so that GPUs are
modelled.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ..config import SchedulerConfig
from ..config.defaults import API_VERSION
from ..plugins.gpupolicies import GPU_SEL_METHOD, POLICIES, POLICY_ARGS
from ..plugins.gpupolicies.fragmentation import TypicalPod
from ..plugins.gpushare import NAME as GPU_SHARE

__all__ = [
    "POLICY_WEIGHT",
    "default_config_doc",
    "policy_config_doc",
    "with_percentage_of_nodes_to_score",
    "with_typical_pods",
]

POLICY_WEIGHT = 1000


def default_config_doc() -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "kind": "KubeSchedulerConfiguration",
        "profiles": [
            {
                "schedulerName": "default-scheduler",
                "plugins": {"multiPoint": {"enabled": [{"name": GPU_SHARE}]}},
            }
        ],
    }


def policy_config_doc(policy: str) -> dict[str, Any]:
    plugin = POLICIES[policy]
    plugins: dict[str, Any] = {
        "multiPoint": {"enabled": [{"name": GPU_SHARE}]},
        "preScore": {"disabled": [{"name": "*"}]},
        "score": {
            "disabled": [{"name": "*"}],
            "enabled": [{"name": plugin, "weight": POLICY_WEIGHT}],
        },
    }
    if plugin == "RandomScore":
        plugins["preScore"]["enabled"] = [{"name": plugin}]
    config = [{"name": GPU_SHARE, "args": {"gpuSelMethod": GPU_SEL_METHOD[plugin]}}]
    if plugin in POLICY_ARGS:
        config.append({"name": plugin, "args": dict(POLICY_ARGS[plugin])})
    return {
        "apiVersion": API_VERSION,
        "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": 100,
        "profiles": [
            {"schedulerName": "default-scheduler", "plugins": plugins, "pluginConfig": config}
        ],
    }


def with_typical_pods(config: SchedulerConfig, typical: Sequence[TypicalPod]) -> SchedulerConfig:
    """The configuration with the trace's typical pods given to every FGDScore that has none."""
    rows = [
        {
            "cpu": t.shape.cpu,
            "milli": t.shape.milli,
            "count": t.shape.count,
            "models": t.shape.models,
            "freq": t.freq,
        }
        for t in typical
    ]
    profiles = []
    for prof in config.profiles:
        uses = any(ref.name == "FGDScore" for refs in prof.plugins.values() for ref in refs)
        args = prof.plugin_args.get("FGDScore") or {}
        if uses and "typicalPods" not in args:
            plugin_args = {**prof.plugin_args, "FGDScore": {**args, "typicalPods": rows}}
            prof = dataclasses.replace(prof, plugin_args=plugin_args)
        profiles.append(prof)
    return dataclasses.replace(config, profiles=tuple(profiles))


def with_percentage_of_nodes_to_score(config: SchedulerConfig, pct: int) -> SchedulerConfig:
    """The configuration scoring ``pct`` % of the nodes (0: adaptive) in every profile.

    The shown document says so too (``--print-config``).
    """
    profiles = tuple(
        dataclasses.replace(p, percentage_of_nodes_to_score=None) for p in config.profiles
    )
    source = dict(config.source or {})
    source["percentageOfNodesToScore"] = pct
    for prof in source.get("profiles") or []:
        prof.pop("percentageOfNodesToScore", None)
    return dataclasses.replace(
        config, profiles=profiles, percentage_of_nodes_to_score=pct, source=source
    )
