"""The table of in-tree plugins: name → (plugin class, factory).

Each plugin module exports ``NAME`` and ``new(args, handle)``; registering the
same name twice is an error.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from .interfaces import implemented_points

__all__ = ["IN_TREE_MODULES", "Registry", "default_registry"]

# plugin name → module (under scheduler_engine.plugins) that implements it
IN_TREE_MODULES: dict[str, str] = {
    "PrioritySort": "queuesort",
    "SchedulingGates": "schedulinggates",
    "NodeUnschedulable": "nodeunschedulable",
    "NodeName": "nodename",
    "TaintToleration": "tainttoleration",
    "NodeAffinity": "nodeaffinity",
    "NodePorts": "nodeports",
    "NodeResourcesFit": "noderesources.fit",
    "NodeResourcesBalancedAllocation": "noderesources.balanced_allocation",
    "ImageLocality": "imagelocality",
    "PodTopologySpread": "podtopologyspread",
    "InterPodAffinity": "interpodaffinity",
    "DefaultPreemption": "defaultpreemption",
    "DefaultBinder": "defaultbinder",
    "NodeDeclaredFeatures": "nodedeclaredfeatures",
    "DynamicResources": "dynamicresources",
    "VolumeRestrictions": "volumerestrictions",
    "NodeVolumeLimits": "nodevolumelimits",
    "VolumeBinding": "volumebinding",
    "VolumeZone": "volumezone",
    "GangScheduling": "gangscheduling",
    "TopologyPlacementGenerator": "topologyplacement",
    "PodGroupPodsCount": "podgrouppodscount",
}


class Registry:
    def __init__(self) -> None:
        self._factories: dict[str, Any] = {}
        self._classes: dict[str, type] = {}

    def register(self, name: str, factory: Any, plugin_cls: type) -> None:
        if name in self._factories:
            raise ValueError(f"a plugin named {name} already exists")
        self._factories[name] = factory
        self._classes[name] = plugin_cls

    def register_module(self, module: ModuleType) -> None:
        """A plugin module: ``NAME``, ``new`` and the class ``PLUGIN`` (or ``new``'s return)."""
        self.register(module.NAME, module.new, module.PLUGIN)

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def names(self) -> list[str]:
        return sorted(self._factories)

    def factory(self, name: str) -> Any:
        return self._factories[name]

    def capabilities(self) -> Mapping[str, frozenset[str]]:
        """Plugin name → the extension points its class implements."""
        return {n: implemented_points(c) for n, c in self._classes.items()}


def default_registry() -> Registry:
    """All in-tree plugins whose module exists."""
    reg = Registry()
    for name, mod in IN_TREE_MODULES.items():
        try:
            module = importlib.import_module(f"scheduler_engine.plugins.{mod}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("scheduler_engine.plugins"):
                continue
            raise
        if name != module.NAME:
            raise ValueError(f"module {mod} registers {module.NAME}, expected {name}")
        reg.register_module(module)
    return reg
