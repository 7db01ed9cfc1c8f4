"""NodePorts (upstream nodeports/node_ports_test.go)."""

from __future__ import annotations

import pytest

from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.node_info import NodeInfo
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.plugins import nodeports
from tests.engine.builders import make_node, make_pod

CONFLICT = Status(Code.UNSCHEDULABLE, "node(s) didn't have free ports for the requested pod ports")
SKIP = Status(Code.SKIP)


def _pod(name: str, *ports: str):
    """Ports as "PROTO/IP/PORT", as upstream's test helper spells them."""
    b = make_pod(name)
    for spec in ports:
        proto, ip, port = spec.split("/")
        b.host_port(int(port), protocol=proto, host_ip=ip)
    return b


def _sidecar_port(sidecar: bool):
    c = {
        "name": "init",
        "image": "busybox",
        "ports": [{"containerPort": 8001, "hostPort": 8001, "protocol": "TCP"}],
    }
    if sidecar:
        c["restartPolicy"] = "Always"
    return make_pod("p").set("spec.initContainers", [c])


CASES = [
    ("skip_filter_without_host_ports", make_pod("p"), [], SKIP, None),
    ("other_port", _pod("m1", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/9090"], None, None),
    ("same_udp_port", _pod("m1", "UDP/127.0.0.1/8080"), ["UDP/127.0.0.1/8080"], None, CONFLICT),
    ("same_tcp_port", _pod("m1", "TCP/127.0.0.1/8080"), ["TCP/127.0.0.1/8080"], None, CONFLICT),
    ("different_host_ip", _pod("m1", "TCP/127.0.0.1/8080"), ["TCP/127.0.0.2/8080"], None, None),
    ("different_protocol", _pod("m1", "UDP/127.0.0.1/8080"), ["TCP/127.0.0.1/8080"], None, None),
    (
        "second_udp_port_conflict",
        _pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
        ["UDP/127.0.0.1/8080"],
        None,
        CONFLICT,
    ),
    (
        "first_tcp_port_conflict",
        _pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
        ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"],
        None,
        CONFLICT,
    ),
    (
        "wildcard_pod_ip_conflicts_with_specific_used_ip",
        _pod("m1", "TCP/0.0.0.0/8001"),
        ["TCP/127.0.0.1/8001"],
        None,
        CONFLICT,
    ),
    (
        "second_port_wildcard_conflict",
        _pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
        ["TCP/127.0.0.1/8001"],
        None,
        CONFLICT,
    ),
    (
        "specific_pod_ip_conflicts_with_used_wildcard",
        _pod("m1", "TCP/127.0.0.1/8001"),
        ["TCP/0.0.0.0/8001"],
        None,
        CONFLICT,
    ),
    (
        "wildcard_other_protocol_does_not_conflict",
        _pod("m1", "UDP/127.0.0.1/8001"),
        ["TCP/0.0.0.0/8001"],
        None,
        None,
    ),
    (
        "udp_wildcard_conflict",
        _pod("m1", "UDP/127.0.0.1/8001"),
        ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"],
        None,
        CONFLICT,
    ),
    (
        "non_sidecar_init_container_port_is_ignored",
        _sidecar_port(False),
        ["TCP/0.0.0.0/8001"],
        SKIP,
        None,
    ),
    (
        "sidecar_init_container_port_conflicts",
        _sidecar_port(True),
        ["TCP/0.0.0.0/8001"],
        None,
        CONFLICT,
    ),
]


@pytest.mark.parametrize(
    ("pod", "used", "want_pre", "want_filter"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_node_ports(pod, used: list[str], want_pre, want_filter) -> None:
    plugin = nodeports.new({}, None)  # type: ignore[arg-type]
    ni = NodeInfo(make_node("n").node())
    ni.add_pod(_pod("existing", *used).node("n").pod())
    state = CycleState()
    result, status = plugin.pre_filter(state, pod.pod(), [ni])
    assert result is None
    assert status == want_pre
    if status is not None and status.code == Code.SKIP:
        return
    assert plugin.filter(state, pod.pod(), ni) == want_filter


def test_filter_without_prefilter_state_is_an_error() -> None:
    status = nodeports.NodePorts().filter(
        CycleState(), _pod("p", "TCP/0.0.0.0/80").pod(), NodeInfo(make_node("n").node())
    )
    assert status is not None and status.code == Code.ERROR


def test_port_freed_when_pod_removed() -> None:
    plugin = nodeports.NodePorts()
    ni = NodeInfo(make_node("n").node())
    existing = _pod("existing", "TCP/0.0.0.0/80").node("n").pod()
    ni.add_pod(existing)
    pod = _pod("p", "TCP/0.0.0.0/80").pod()
    state = CycleState()
    plugin.pre_filter(state, pod, [ni])
    assert plugin.filter(state, pod, ni) == CONFLICT
    ni.remove_pod(existing)
    assert plugin.filter(state, pod, ni) is None
