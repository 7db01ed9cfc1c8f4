"""The diagnosis of a pending gang reads like the issue's example, counted as FailedScheduling counts."""

from __future__ import annotations

from tests.engine.builders import make_node
from tests.engine.gangs.helpers import GANG_GATES, member, native_pod_group, run
from tests.engine.gangs.test_coscheduling import LABEL, pod_group
from tests.engine.gangs.test_coscheduling import run as run_cos

ZONE = "topology.kubernetes.io/zone"


def issue_example() -> tuple[list, list, list]:
    """Zone b: ten 8-GPU nodes; zone a: twelve tainted launcher nodes. 14 workers need a
    whole GPU node, 2 launchers need a launcher node and tolerate nothing."""
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
    return nodes, workers, launchers


def test_ten_of_sixteen_fit_in_zone_b_six_blocked_by_gpus_and_a_taint() -> None:
    nodes, workers, launchers = issue_example()
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


def test_coscheduling_counts_the_members_that_fit_at_once() -> None:
    # Coscheduling has no group cycle: members pass Permit one by one and are let go
    # when one fails. "placed" is the most that held nodes together (ten: one per
    # GPU node), not every worker that ever fitted alone, and domains say where
    nodes, workers, launchers = issue_example()
    for p in [*workers, *launchers]:
        del p.labels({LABEL: "llm"}).obj()["spec"]["schedulingGroup"]
    doc = run_cos(*nodes, *workers, *launchers, pod_group("llm", 16))
    (g,) = doc["summary"]["gangs"]
    assert (g["placed"], g["scheduled"], g["domains"]) == (10, 0, {"b": 10})
    assert g["summary"].startswith(
        "10 of 16 fit, all in zone b; 2 blocked: 2 node(s) had untolerated taint(s); released at Permit: "
    )
    assert g["summary"].endswith("; needs 16, lacks 6")
