"""DefaultBinder: the Bind plugin (upstream ``plugins/defaultbinder``).

Upstream posts a ``Binding`` to the API server; a simulation has no API
server, so the binding is recorded and the runtime's assume stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..framework.cycle_state import CycleState
from ..framework.interfaces import Handle
from ..framework.status import Status
from ..objects import Pod

__all__ = ["NAME", "PLUGIN", "DefaultBinder", "new"]

NAME = "DefaultBinder"


class DefaultBinder:
    NAME = NAME

    __slots__ = ("bindings", "handle")

    def __init__(self, handle: Handle | None = None) -> None:
        self.handle = handle
        # (pod key, pod uid, node name) in binding order
        self.bindings: list[tuple[str, str, str]] = []

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.bindings.append((pod.key, pod.uid, node_name))
        return None


PLUGIN = DefaultBinder


def new(args: Mapping[str, Any], handle: Handle) -> DefaultBinder:
    return DefaultBinder(handle)
