"""One profile's framework and the handle its plugins hold, built and linked.

Upstream's ``frameworkruntime.NewFramework`` makes the handle and the
framework one object; here they are two (the handle reads the simulation's
shared context), so building one means making the handle, the framework
over it, and pointing the handle back at the framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .handle import FrameworkHandle, SimulationContext
from .runtime import Framework

if TYPE_CHECKING:  # pragma: no cover
    from ..config.types import ProfileConfig
    from .recorder import Recorder
    from .registry import Registry

__all__ = ["new_framework"]


def new_framework(
    profile: ProfileConfig,
    registry: Registry,
    ctx: SimulationContext,
    *,
    recorder: Recorder | None = None,
    batch: bool = True,
    load_pod_groups: bool = False,
) -> Framework:
    """``profile``'s framework over ``ctx``, its handle linked to it.

    With ``load_pod_groups``, Coscheduling (when the profile enables it)
    parses the cluster's PodGroups now, so a bad one is an input error before
    any pod is tried rather than at the first pod of its group.
    """
    handle = FrameworkHandle(ctx)
    fwk = Framework(profile, registry, handle, recorder=recorder, batch=batch)
    handle.attach(fwk)
    cosched = fwk.plugins.get("Coscheduling")
    if load_pod_groups and cosched is not None:
        cosched.load_pod_groups(ctx.cluster.source)
    return fwk
