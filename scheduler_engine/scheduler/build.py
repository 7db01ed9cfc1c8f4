"""A run's scheduler: its shared context, every profile's framework, the algorithm over them.

Upstream's ``scheduler.New`` makes the profiles' frameworks and the scheduler
from one configuration; every run here (``simulate``, the colliding
schedulers, trace replay, the what-if probes) builds its scheduler through
:func:`new_scheduler`, so what a configuration wires into a run (its
parallelism, its feature gates, its profiles) is wired in one place.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..config import FEATURE_GATES
from ..framework.build import new_framework
from ..framework.handle import SimulationContext
from .schedule_one import Scheduler

if TYPE_CHECKING:  # pragma: no cover
    from ..cluster import ClusterState
    from ..config.types import ProfileConfig, SchedulerConfig
    from ..framework.recorder import Recorder
    from ..framework.registry import Registry
    from ..framework.snapshot import Snapshot

__all__ = ["new_scheduler", "run_feature_gates"]


def run_feature_gates(config: SchedulerConfig) -> dict[str, bool]:
    """Every gate's value in a run of ``config``: the defaults, overridden by the configuration's."""
    return {**FEATURE_GATES, **config.feature_gates}


def new_scheduler(
    cluster: ClusterState,
    snapshot: Snapshot,
    config: SchedulerConfig,
    registry: Registry,
    *,
    rng: random.Random,
    clock: float = 0.0,
    profiles: Iterable[ProfileConfig] | None = None,
    recorder: Recorder | None = None,
    batch: bool = True,
    load_pod_groups: bool = False,
    explain: bool = False,
) -> Scheduler:
    """The scheduler of ``profiles`` (default: all of ``config``'s) over a new shared context.

    The context (``sched.ctx``) holds ``cluster``, ``snapshot``, ``rng`` and
    ``clock`` with the configuration's parallelism and :func:`run_feature_gates`;
    each profile's framework (``sched.frameworks``, by scheduler name) is
    built over it with ``recorder``, ``batch`` and ``load_pod_groups`` as
    :func:`~scheduler_engine.framework.build.new_framework` takes them.
    """
    ctx = SimulationContext(
        cluster=cluster,
        snapshot=snapshot,
        rng=rng,
        clock=clock,
        parallelism=config.parallelism,
        feature_gates=run_feature_gates(config),
    )
    frameworks = {
        prof.scheduler_name: new_framework(
            prof, registry, ctx, recorder=recorder, batch=batch, load_pod_groups=load_pod_groups
        )
        for prof in (config.profiles if profiles is None else profiles)
    }
    return Scheduler(
        ctx,
        frameworks,
        percentage_of_nodes_to_score=config.percentage_of_nodes_to_score,
        explain=explain,
    )
