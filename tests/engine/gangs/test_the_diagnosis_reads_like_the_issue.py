"""The diagnosis of a pending gang reads like the issue's example, counted as FailedScheduling counts."""

from __future__ import annotations

from tests.engine.builders import make_node
from tests.engine.gangs.helpers import GANG_GATES, member, native_pod_group, run

ZONE = "topology.kubernetes.io/zone"


def test_ten_of_sixteen_fit_in_zone_b_six_blocked_by_gpus_and_a_taint() -> None:
    # zone b: ten 8-GPU nodes; zone a: twelve tainted launcher nodes. 14 workers need a
    # whole GPU node, 2 launchers need a launcher node and tolerate nothing
    nodes = [
        make_node(f"b{i}").cap(cpu="16", memory="64Gi", gpu=8).labels({ZONE: "b"})
        for i in range(10)
    ] + [
        make_node(f"a{i}")
        .cap(cpu="16", memory="64Gi")
        .labels({ZONE: "a", "role": "launcher"})
        .taint("dedicated", "infra", "NoSchedule")
        for i in range(12)
    ]
    workers = [member(f"w-{i}", "llm").req(cpu="1").gpu(8) for i in range(14)]
    launchers = [
        member(f"l-{i}", "llm").req(cpu="1").node_selector(role="launcher") for i in range(2)
    ]
    res = run(*nodes, *workers, *launchers, native_pod_group("llm", 16), gates=GANG_GATES)
    (g,) = res.to_dict()["summary"]["gangs"]
    assert g["summary"] == (
        "10 of 16 fit, all in zone b; 6 blocked: 4 Insufficient nvidia.com/gpu, "
        "2 node(s) had untolerated taint(s); needs 16, lacks 6"
    )
    assert (g["placed"], g["scheduled"], g["status"]) == (10, 0, "Unschedulable")
    assert g["reasons"] == {
        "Insufficient nvidia.com/gpu": 4,
        "node(s) had untolerated taint(s)": 2,
    }
    assert g["domains"] == {"b": 10}
