"""Fake plugins and a hand-built framework for runtime and loop tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from scheduler_engine.cluster import build_cluster
from scheduler_engine.config.types import PluginRef, ProfileConfig
from scheduler_engine.framework.build import new_framework
from scheduler_engine.framework.handle import SimulationContext
from scheduler_engine.framework.recorder import Recorder
from scheduler_engine.framework.registry import Registry
from scheduler_engine.framework.runtime import Framework
from scheduler_engine.framework.snapshot import Snapshot


class Fake:
    """A plugin whose behaviour per point is given as callables (or constant values)."""

    def __init__(self, name: str, **behaviour: Any) -> None:
        self.NAME = name
        self.calls: list[tuple[str, Any]] = []
        for point, value in behaviour.items():
            setattr(self, point, self._make(point, value))

    def _make(self, point: str, value: Any) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            self.calls.append((point, args[-1] if args else None))
            return value(*args) if callable(value) else value

        return call


def registry_of(*plugins: Fake) -> Registry:
    reg = Registry()
    for p in plugins:
        reg.register(p.NAME, lambda args, handle, p=p: p, type(p))
    return reg


def profile_of(points: Mapping[str, list[str | tuple[str, int]]], **kw: Any) -> ProfileConfig:
    plugins = {
        point: tuple(PluginRef(*x) if isinstance(x, tuple) else PluginRef(x) for x in names)
        for point, names in points.items()
    }
    return ProfileConfig("default-scheduler", plugins, **kw)


def build_framework(
    points: Mapping[str, list[str | tuple[str, int]]],
    plugins: list[Fake],
    objects: list[dict[str, Any]] | None = None,
    *,
    explain: bool = False,
) -> tuple[Framework, SimulationContext]:
    cluster = build_cluster(objects or [])
    snap = Snapshot(cluster.nodes, cluster.running_pods, cluster.namespaces)
    ctx = SimulationContext(cluster, snap, random.Random(0))
    fwk = new_framework(
        profile_of(points), registry_of(*plugins), ctx, recorder=Recorder() if explain else None
    )
    return fwk, ctx
