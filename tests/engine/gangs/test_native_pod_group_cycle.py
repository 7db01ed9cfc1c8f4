"""The native workload API's pod-group cycle (v1.36 schedule_one_podgroup.go), case by case."""

from __future__ import annotations

import pytest

from scheduler_engine.cli import main
from scheduler_engine.cluster import build_cluster
from scheduler_engine.config import FEATURE_GATES, load_config
from scheduler_engine.errors import InputError
from scheduler_engine.features import LOCKED, parse_feature_gates
from scheduler_engine.simulate import simulate
from tests.engine.builders import make_node, make_pod
from tests.engine.gangs.helpers import (
    GANG_GATES,
    MSG_GROUP_WAITING,
    TAS_GATES,
    by_pod,
    member,
    native_pod_group,
    run,
)


def nodes(n: int, cpu: str = "4", rack_of=lambda i: f"r{i // 2}") -> list:
    return [
        make_node(f"n{i}").cap(cpu=cpu, memory="8Gi").labels(rack=rack_of(i)).zone(f"z{i % 2}")
        for i in range(n)
    ]


def members(group: str, n: int, cpu: str = "3", prefix: str = "w") -> list:
    return [member(f"{prefix}{i}", group).req(cpu=cpu) for i in range(n)]


def test_it_holds_members_back_until_min_count_exist() -> None:
    res = by_pod(run(*nodes(4), *members("g", 3), native_pod_group("g", 4), gates=GANG_GATES))
    for r in res.values():
        assert r["status"] == "Skipped"
        assert r["preEnqueue"] == {
            "plugin": "GangScheduling",
            "reason": "waiting for minCount pods from a gang to appear in scheduling queue",
        }
        assert r["gang"]["status"] == "QuorumNotReached"
        assert r["gang"]["quorumMissing"] == 1


def test_it_holds_members_back_until_their_pod_group_exists() -> None:
    res = by_pod(run(*nodes(4), *members("g", 2), gates=GANG_GATES))
    for r in res.values():
        assert r["status"] == "Skipped"
        assert r["preEnqueue"]["reason"] == (
            'waiting for pods\'s pod group "g" to appear in scheduling queue'
        )


def test_a_gang_that_fits_is_placed_whole() -> None:
    res = run(*nodes(4), *members("g", 4), native_pod_group("g", 4), gates=GANG_GATES)
    rs = by_pod(res)
    assert {r["status"] for r in rs.values()} == {"Scheduled"}
    assert len({r["node"] for r in rs.values()}) == 4
    (g,) = res.summary["gangs"]
    assert (g["status"], g["placed"], g["scheduled"], g["minMember"]) == ("Scheduled", 4, 4, 4)


def test_a_gang_that_does_not_fit_places_nothing() -> None:
    res = run(*nodes(4), *members("g", 5), native_pod_group("g", 5), gates=GANG_GATES)
    rs = by_pod(res)
    assert not [r for r in rs.values() if r["status"] == "Scheduled"]
    waiting = [r for r in rs.values() if r["message"] == MSG_GROUP_WAITING]
    assert len(waiting) == 4
    (last,) = [r for r in rs.values() if r["message"] != MSG_GROUP_WAITING]
    assert last["message"].startswith("0/4 nodes are available: 4 Insufficient cpu.")
    (g,) = res.summary["gangs"]
    assert g["status"] == "Unschedulable"
    assert g["message"] == "pod group is unschedulable"
    assert (
        g["summary"]
        == "4 of 5 fit, 2 in zone z0, 2 in zone z1; 1 blocked: 1 Insufficient cpu; needs 5, lacks 1"
    )
    # the events say the same as the results
    for r in rs.values():
        assert r["events"][-1]["reason"] == "FailedScheduling"
        assert r["events"][-1]["message"] == r["message"]


def test_members_beyond_min_count_are_placed_when_the_quorum_fits() -> None:
    rs = by_pod(run(*nodes(4), *members("g", 5), native_pod_group("g", 4), gates=GANG_GATES))
    assert sum(r["status"] == "Scheduled" for r in rs.values()) == 4
    (other,) = [r for r in rs.values() if r["status"] != "Scheduled"]
    assert other["message"].startswith("0/4 nodes are available: 4 Insufficient cpu.")


def test_the_released_room_goes_to_ordinary_pods_after_a_failed_gang() -> None:
    objs = [*nodes(2), *members("g", 3), native_pod_group("g", 3)]
    plain = make_pod("plain").req(cpu="3").created("2026-01-01T00:00:10Z")
    rs = by_pod(run(*objs, plain, gates=GANG_GATES))
    assert rs["default/plain"]["status"] == "Scheduled"
    assert all(rs[f"default/w{i}"]["status"] == "Unschedulable" for i in range(3))


def test_two_gangs_competing_the_first_in_queue_wins() -> None:
    a = [member(f"a{i}", "ga").req(cpu="3").priority(10) for i in range(2)]
    b = [member(f"b{i}", "gb").req(cpu="3") for i in range(2)]
    res = run(
        *nodes(3), *a, *b, native_pod_group("ga", 2), native_pod_group("gb", 2), gates=GANG_GATES
    )
    rs = by_pod(res)
    assert [rs[f"default/a{i}"]["status"] for i in range(2)] == ["Scheduled", "Scheduled"]
    assert [rs[f"default/b{i}"]["status"] for i in range(2)] == ["Unschedulable"] * 2
    assert rs["default/b0"]["message"] == MSG_GROUP_WAITING
    assert {g["name"]: g["status"] for g in res.summary["gangs"]} == {
        "default/ga": "Scheduled",
        "default/gb": "Unschedulable",
    }


def test_the_basic_policy_places_members_that_fit_one_by_one() -> None:
    rs = by_pod(run(*nodes(2), *members("g", 3), native_pod_group("g"), gates=GANG_GATES))
    assert sorted(r["status"] for r in rs.values()) == ["Scheduled", "Scheduled", "Unschedulable"]


def test_without_the_gates_the_scheduling_group_is_ignored() -> None:
    rs = by_pod(run(*nodes(4), *members("g", 5), native_pod_group("g", 5)))
    assert sum(r["status"] == "Scheduled" for r in rs.values()) == 4
    assert all("gang" not in r for r in rs.values())


def test_generic_workload_alone_runs_the_cycle_without_a_gang() -> None:
    rs = by_pod(
        run(*nodes(4), *members("g", 5), native_pod_group("g", 5), gates={"GenericWorkload": True})
    )
    assert sum(r["status"] == "Scheduled" for r in rs.values()) == 4


def test_members_that_need_preemption_wait_for_it_then_bind() -> None:
    low = [make_pod(f"low{i}").req(cpu="3").priority(1).node(f"n{i}") for i in range(2)]
    gang = [member(f"w{i}", "g").req(cpu="3").priority(100) for i in range(2)]
    res = run(*nodes(2), *low, *gang, native_pod_group("g", 2), gates=GANG_GATES)
    rs = by_pod(res)
    assert [rs[f"default/w{i}"]["status"] for i in range(2)] == ["Scheduled", "Scheduled"]
    assert res.summary["evictions"] == 2
    # both needed preemption: each keeps its own (nominating) FitError for that cycle
    for i in range(2):
        first = rs[f"default/w{i}"]["events"][0]["message"]
        assert first == "0/2 nodes are available: 2 Insufficient cpu."


def test_a_member_that_fits_waits_while_another_needs_preemption() -> None:
    low = make_pod("low1").req(cpu="3").priority(1).node("n1")
    gang = [member(f"w{i}", "g").req(cpu="3").priority(100) for i in range(2)]
    rs = by_pod(run(*nodes(2), low, *gang, native_pod_group("g", 2), gates=GANG_GATES))
    assert [rs[f"default/w{i}"]["status"] for i in range(2)] == ["Scheduled", "Scheduled"]
    assert rs["default/w0"]["events"][0]["message"] == (
        "pod group is unschedulable, pod group is waiting for preemption to complete"
    )
    assert rs["default/w1"]["victims"] == ["default/low1"]


# -- topology-aware placement ------------------------------------------------------------


def test_a_gang_with_a_topology_constraint_stays_in_one_domain() -> None:
    # rack r0 has room for three 3-cpu pods, rack r1 for two
    ns = [
        make_node("a0").cap(cpu="4", memory="8Gi").labels(rack="r0"),
        make_node("a1").cap(cpu="4", memory="8Gi").labels(rack="r0"),
        make_node("a2").cap(cpu="4", memory="8Gi").labels(rack="r0"),
        make_node("b0").cap(cpu="4", memory="8Gi").labels(rack="r1"),
        make_node("b1").cap(cpu="4", memory="8Gi").labels(rack="r1"),
        make_node("c0").cap(cpu="64", memory="64Gi"),  # no rack: in no placement
    ]
    res = run(*ns, *members("g", 3), native_pod_group("g", 3, "rack"), gates=TAS_GATES)
    rs = by_pod(res)
    assert sorted(r["node"] for r in rs.values()) == ["a0", "a1", "a2"]
    (g,) = res.summary["gangs"]
    assert g["placement"] == "r0"
    assert g["summary"] == "3 of 3 fit, all in rack r0"


def test_no_domain_fits_the_group_status_counts_placements() -> None:
    res = run(*nodes(4), *members("g", 3), native_pod_group("g", 3, "rack"), gates=TAS_GATES)
    rs = by_pod(res)
    (blocked,) = [r for r in rs.values() if r["message"] != MSG_GROUP_WAITING]
    # each placement holds two nodes: the message counts those
    assert blocked["message"] == (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, "
        "preemption: not eligible due to placement-based pod group scheduling limitation"
    )
    (g,) = res.summary["gangs"]
    assert g["message"] == (
        "0/2 placements are available, first placement status: pod group is unschedulable"
    )
    assert [p["placed"] for p in g["placements"]] == [2, 2]


def test_no_node_has_the_topology_label() -> None:
    rs = by_pod(run(*nodes(2), *members("g", 2), native_pod_group("g", 2, "zone"), gates=TAS_GATES))
    assert {r["message"] for r in rs.values()} == {"no feasible placements found"}


def test_a_running_member_pins_the_domain() -> None:
    running = member("run0", "g").req(cpu="3").node("n2")  # rack r1
    rs = by_pod(
        run(*nodes(4), running, *members("g", 1), native_pod_group("g", 2, "rack"), gates=TAS_GATES)
    )
    assert rs["default/w0"]["node"] == "n3"


def test_placement_score_prefers_the_fuller_domain() -> None:
    # both racks fit the gang; NodeResourcesFit scores placements MostAllocated
    busy = make_pod("busy").req(cpu="2").node("n0")
    for seed in range(5):
        rs = by_pod(
            run(
                *nodes(4),
                busy,
                *members("g", 2, cpu="1"),
                native_pod_group("g", 2, "rack"),
                gates=TAS_GATES,
                seed=seed,
            )
        )
        assert {rs["default/w0"]["node"], rs["default/w1"]["node"]} <= {"n0", "n1"}


def test_without_constraints_placements_change_nothing() -> None:
    objs = [*nodes(4), *members("g", 5), native_pod_group("g", 4)]
    plain = by_pod(run(*objs, gates=GANG_GATES))
    tas = by_pod(run(*objs, gates=TAS_GATES))
    assert {k: (v["status"], v["node"], v["message"]) for k, v in plain.items()} == {
        k: (v["status"], v["node"], v["message"]) for k, v in tas.items()
    }


# -- the command line -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "error"),
    [
        ("Bogus=true", "--feature-gates: unrecognized feature gate: Bogus"),
        ("GangScheduling", "--feature-gates: missing bool value for GangScheduling"),
        (
            "GangScheduling=true",
            "--feature-gates: feature gate GangScheduling is enabled but depends on "
            "GenericWorkload, which is disabled",
        ),
        (
            "GenericWorkload=yes",
            "--feature-gates: invalid value of GenericWorkload=yes, err: invalid syntax",
        ),
        (
            "DynamicResourceAllocation=false",
            "--feature-gates: cannot set feature gate DynamicResourceAllocation to false, "
            "feature is locked to true",
        ),
    ],
)
def test_bad_feature_gates_exit_2(flag: str, error: str, tmp_path, capsys) -> None:
    snap = tmp_path / "s.yaml"
    snap.write_text("apiVersion: v1\nkind: List\nitems: []\n")
    assert main(["simulate", "--snapshot", str(snap), "--feature-gates", flag]) == 2
    assert capsys.readouterr().err.strip() == error


def test_a_locked_gate_may_be_set_to_its_locked_value() -> None:
    assert LOCKED.issubset(FEATURE_GATES)
    for name in LOCKED:
        value = str(FEATURE_GATES[name]).lower()
        assert parse_feature_gates(f"{name}={value}") == FEATURE_GATES


@pytest.mark.parametrize(
    ("gates", "error"),
    [
        ({"Bogus": True}, "unrecognized feature gate: Bogus"),
        ({"GenericWorkload": "yes"}, "invalid value of GenericWorkload: must be true or false"),
        (
            {"GangScheduling": True},
            "feature gate GangScheduling is enabled but depends on GenericWorkload, which is disabled",
        ),
        (
            {"DynamicResourceAllocation": False},
            "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true",
        ),
    ],
)
def test_the_python_entry_points_check_gates_as_the_flag_does(
    gates: dict[str, object], error: str
) -> None:
    for call in (
        lambda: load_config(None, feature_gates=gates),
        lambda: simulate(build_cluster([]), feature_gates=gates),
    ):
        with pytest.raises(InputError) as exc:
            call()
        assert (exc.value.field, exc.value.message) == ("feature_gates", error)


def test_gates_already_resolved_are_taken_as_they_are() -> None:
    resolved = parse_feature_gates("GenericWorkload=true,GangScheduling=true")
    twice = load_config(None, feature_gates=resolved)
    assert dict(twice.feature_gates) == resolved
    assert twice.profiles == load_config(None, feature_gates=GANG_GATES).profiles


def test_pod_level_preemption_shows_the_gangs_it_broke() -> None:
    # a running 2-member gang (minCount 2); a high-priority ordinary pod evicts one member
    running = [member(f"r{i}", "g").req(cpu="3").priority(1).node(f"n{i}") for i in range(2)]
    urgent = make_pod("urgent").req(cpu="3").priority(1000)
    res = run(*nodes(2), *running, native_pod_group("g", 2), urgent)
    (b,) = res.summary["brokenGangs"]
    assert b["name"] == "default/g"
    assert (b["minMember"], b["runningBefore"], b["remaining"], b["belowMinMember"]) == (
        2,
        2,
        1,
        True,
    )
    assert b["preemptors"] == ["default/urgent"]
    assert by_pod(res)["default/urgent"]["brokeGangs"] == ["default/g"]
