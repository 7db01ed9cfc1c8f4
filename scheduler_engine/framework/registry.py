"""The table of in-tree plugins: name → (plugin class, factory).

Each plugin module exports ``NAME`` and ``new(args, handle)``; registering the
same name twice is an error.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from ..config import DEFAULT_CAPABILITIES
from ..config.load import ArgsCheck
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
    # out of tree upstream (kubernetes-sigs/scheduler-plugins); never in the default profile
    "Coscheduling": "coscheduling",
    # out of tree upstream (kubernetes-sigs/scheduler-plugins); never in the default profile
    "NodeResourceTopologyMatch": "noderesourcetopology",
    # GPU sharing and the FGD paper's policies (docs/replay.md)
    "OpenGpuShare": "gpushare",
    "RandomScore": "gpupolicies.random_score",
    "BestFitScore": "gpupolicies.best_fit",
    "DotProductScore": "gpupolicies.dot_product",
    "GpuPackingScore": "gpupolicies.gpu_packing",
    "GpuClusteringScore": "gpupolicies.gpu_clustering",
    "FGDScore": "gpupolicies.fgd",
}


class Registry:
    def __init__(self) -> None:
        self._factories: dict[str, Any] = {}
        self._classes: dict[str, type] = {}
        self._args_checks: dict[str, ArgsCheck] = {}
        self._events: dict[str, frozenset[str]] = {}
        self._args_schemas: dict[str, dict[str, Any]] = {}
        # where each plugin came from ("in-tree", an entry point, a MODULE:CLASS spec)
        self.origins: dict[str, str] = {}

    def register(
        self,
        name: str,
        factory: Any,
        plugin_cls: type,
        *,
        args_check: ArgsCheck | None = None,
        events: frozenset[str] | None = None,
        origin: str = "in-tree",
        args_schema: dict[str, Any] | None = None,
    ) -> None:
        if name in self._factories:
            raise ValueError(f"a plugin named {name} already exists")
        self._factories[name] = factory
        self._classes[name] = plugin_cls
        self.origins[name] = origin
        if args_check is not None:
            self._args_checks[name] = args_check
        if events is not None:
            self._events[name] = events
        if args_schema is not None:
            self._args_schemas[name] = args_schema

    def register_module(self, module: ModuleType) -> None:
        """A plugin module: ``NAME``, ``new`` and the class ``PLUGIN`` (or ``new``'s return).

        A module may also offer ``check_args(raw) -> (defaulted, problems)``.
        """
        self.register(
            module.NAME, module.new, module.PLUGIN, args_check=getattr(module, "check_args", None)
        )

    def plugin_class(self, name: str) -> type:
        return self._classes[name]

    def args_checks(self) -> Mapping[str, ArgsCheck]:
        """Plugin name → its own args check (plugins whose args the config layer does not know)."""
        return dict(self._args_checks)

    def args_schemas(self) -> Mapping[str, dict[str, Any]]:
        """JSON Schemas of the args of plugins that declare typed args (plugin_api)."""
        return dict(self._args_schemas)

    def requeue_events(self) -> Mapping[str, frozenset[str]]:
        """Plugin name → the cluster events that make a pod it rejected worth retrying."""
        return dict(self._events)

    def config_kwargs(self) -> dict[str, Any]:
        """What ``load_config`` / ``validate_config`` need to know of these plugins."""
        return {
            "capabilities": {**DEFAULT_CAPABILITIES, **self.capabilities()},
            "args_checks": self.args_checks(),
        }

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
