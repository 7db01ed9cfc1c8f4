"""NodePorts: PreFilter and Filter (upstream ``plugins/nodeports``).

A pod asking for host ports fits a node only if none of them conflicts with a
port already used there (``0.0.0.0`` conflicts with every address).  Pods
without host ports skip the plugin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..framework.cycle_state import CycleState, StateData, missing_state
from ..framework.interfaces import BasePlugin, Handle, PreFilterResult
from ..framework.node_info import HostPortInfo, NodeInfo
from ..framework.signers import HOST_PORTS, Fragments, host_ports_signer
from ..framework.status import Code, Status
from ..objects import HostPort, Pod

__all__ = ["ERR_REASON", "NAME", "PLUGIN", "NodePorts", "fits_ports", "new"]

NAME = "NodePorts"
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


def fits_ports(want: Sequence[HostPort], used: HostPortInfo) -> bool:
    for hp in want:
        if used.check_conflict(hp.host_ip, hp.protocol, hp.port):
            return False
    return True


class _PreFilterState(StateData):
    # shared by clones: existing pods added or removed do not change what the pod wants
    __slots__ = ("ports",)

    def __init__(self, ports: tuple[HostPort, ...]) -> None:
        self.ports = ports


class NodePorts(BasePlugin):
    NAME = NAME

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        if not pod.host_ports:
            return None, Status(Code.SKIP)
        state.write(PRE_FILTER_STATE_KEY, _PreFilterState(pod.host_ports))
        return None, None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if not isinstance(s, _PreFilterState):
            return missing_state(PRE_FILTER_STATE_KEY, "reading", NAME)
        if not fits_ports(s.ports, node_info.used_ports):
            return Status(Code.UNSCHEDULABLE, ERR_REASON)
        return None

    def sign_pod(self, pod: Pod) -> tuple[Fragments, Status | None]:
        """Its answers depend on the pod's host ports."""
        return [(HOST_PORTS, host_ports_signer(pod))], None


PLUGIN = NodePorts


def new(args: Mapping[str, Any], handle: Handle) -> NodePorts:
    return NodePorts()
