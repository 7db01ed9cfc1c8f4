"""WorkloadAwarePreemption: an unschedulable pod group preempts as a whole (v1.36, alpha).

Upstream ``runWorkloadAwarePreemption`` and ``podgrouppreemption.go``: the
victims are running pods of lower priority than the group (a PodGroup with
``disruptionMode: PodGroup`` is one victim), all are removed, the group is
tried without PostFilter, then as many as possible are reprieved (most
important first, PDB-protected ones before the rest); when nothing can be
done the reason is appended to the group's status.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.builders import make_node, make_pod

from .helpers import GANG_GATES, by_pod, member, native_pod_group, run

WAP_GATES = {**GANG_GATES, "WorkloadAwarePreemption": True}
MEMBER_REFUSAL = "preemption: not eligible due to workload aware preemption enabled"


def nodes(n: int) -> list[Any]:
    return [make_node(f"n{i}").cap(cpu="8", memory="32Gi", gpu=8) for i in range(1, n + 1)]


def running(name: str, node: str, priority: int, start: str = "2026-01-01T00:00:00Z") -> Any:
    return make_pod(name).gpu(8).priority(priority).node(node).set("status.startTime", start)


def group(name: str, min_count: int, priority: int | None = 50, **spec: Any) -> dict[str, Any]:
    pg = native_pod_group(name, min_count)
    if priority is not None:
        pg["spec"]["priority"] = priority
    pg["metadata"]["uid"] = f"uid-{name}"
    pg["spec"].update(spec)
    return pg


def members(g: str, n: int, gpus: int = 8) -> list[Any]:
    return [member(f"{g}-{i}", g).gpu(gpus) for i in range(n)]


def victims_of(results: dict[str, dict[str, Any]]) -> set[str]:
    return {v for r in results.values() for v in (r.get("victims") or [])}


def group_message(res: Any, name: str = "default/g") -> str:
    (g,) = [g for g in res.to_dict()["summary"]["gangs"] if g["name"] == name]
    return g["message"]


CASES = {
    # name: (objects, victims expected, the group's message tail when it cannot preempt)
    "lower priority pods make room and the group is placed whole": (
        [*nodes(2), running("low-a", "n1", 1), running("low-b", "n2", 1), group("g", 2)],
        {"default/low-a", "default/low-b"},
        None,
    ),
    "no more victims than needed, the oldest reprieved": (
        [
            *nodes(3),
            running("old", "n1", 1, "2026-01-01T00:00:00Z"),
            running("mid", "n2", 1, "2026-01-02T00:00:00Z"),
            running("new", "n3", 1, "2026-01-03T00:00:00Z"),
            group("g", 2),
        ],
        {"default/mid", "default/new"},
        None,
    ),
    "lower priority goes before higher": (
        [*nodes(2), running("p1", "n1", 1), running("p10", "n2", 10), group("g", 1)],
        {"default/p1"},
        None,
    ),
    "a pod group disrupted as a group is one victim": (
        [
            *nodes(2),
            group("old", 2, priority=1, disruptionMode="PodGroup"),
            running("old-0", "n1", 1).set("spec.schedulingGroup", {"podGroupName": "old"}),
            running("old-1", "n2", 1).set("spec.schedulingGroup", {"podGroupName": "old"}),
            group("g", 1),
        ],
        {"default/old-0", "default/old-1"},
        None,
    ),
    "nothing of lower priority": (
        [*nodes(2), running("a", "n1", 100), running("b", "n2", 100), group("g", 2)],
        set(),
        "No preemption victims found for incoming preemptor",
    ),
    "a group without priority preempts nothing": (
        [*nodes(2), running("a", "n1", 0), running("b", "n2", 0), group("g", 2, priority=None)],
        set(),
        "No preemption victims found for incoming preemptor",
    ),
    "even without every victim the group does not fit": (
        [*nodes(2), running("a", "n1", 1), running("b", "n2", 100), group("g", 2)],
        set(),
        "pod group is unschedulable",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_workload_aware_preemption(case: str) -> None:
    objs, want_victims, tail = CASES[case]
    size = next(o for o in objs if isinstance(o, dict) and o["metadata"]["name"] == "g")
    n = size["spec"]["schedulingPolicy"]["gang"]["minCount"]
    res = run(*objs, *members("g", n), gates=WAP_GATES)
    results = by_pod(res)
    assert victims_of(results) == want_victims
    mine = [results[f"default/g-{i}"] for i in range(n)]
    if tail is None:
        # victims gone, the group is placed whole in its next cycle
        assert all(r["status"] == "Scheduled" for r in mine)
        # its first attempt was refused pod by pod, as DefaultPreemption does for group pods
        first = [e["message"] for e in mine[0]["events"] if e["reason"] == "FailedScheduling"]
        assert first and first[0].endswith(MEMBER_REFUSAL)
    else:
        assert all(r["node"] is None for r in mine)
        msg = group_message(res)
        assert msg == f"pod group is unschedulable, {tail}"


def test_victims_are_told_a_pod_group_preempted_them() -> None:
    res = run(*nodes(1), running("low", "n1", 1), group("g", 1), *members("g", 1), gates=WAP_GATES)
    events = [e for e in res.to_dict()["events"] if e["pod"] == "default/low"]
    assert [e["message"] for e in events] == ["Preempted by podgroup uid-g on node cluster"]


def test_a_pdb_protected_victim_is_reprieved_first() -> None:
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "keep", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "keep"}}},
        "status": {"disruptionsAllowed": 0},
    }
    # the protected pod is the newest, so importance alone would evict it
    objs = [
        *nodes(2),
        running("plain", "n1", 1, "2026-01-01T00:00:00Z"),
        running("kept", "n2", 1, "2026-01-05T00:00:00Z").labels(app="keep"),
        pdb,
        group("g", 1),
    ]
    results = by_pod(run(*objs, *members("g", 1), gates=WAP_GATES))
    assert victims_of(results) == {"default/plain"}


def test_a_group_with_topology_constraints_is_not_preempted_for() -> None:
    objs = [
        *[n.labels(zone="a") for n in nodes(1)],
        running("low", "n1", 1),
        group("g", 1, schedulingConstraints={"topology": [{"key": "zone"}]}),
    ]
    res = run(*objs, *members("g", 1), gates={**WAP_GATES, "TopologyAwareWorkloadScheduling": True})
    assert victims_of(by_pod(res)) == set()
    assert group_message(res).endswith(
        "workload aware preemption is not supported for pod groups with scheduling constraints"
    )


def test_a_member_that_may_not_preempt_keeps_the_group_from_preempting() -> None:
    objs = [*nodes(1), running("low", "n1", 1), group("g", 1)]
    never = member("g-0", "g").gpu(8).set("spec.preemptionPolicy", "Never")
    res = run(*objs, never, gates=WAP_GATES)
    assert victims_of(by_pod(res)) == set()
    assert group_message(res).endswith("not eligible due to preemptionPolicy=Never.")


def test_without_the_gate_members_preempt_by_their_own_priority() -> None:
    objs = [*nodes(2), running("a", "n1", 1), running("b", "n2", 1), group("g", 2)]
    res = run(*objs, *members("g", 2), gates=GANG_GATES)
    # pod-level PostFilter: the members' priority (0) counts, not the PodGroup's (50)
    assert victims_of(by_pod(res)) == set()
    for r in by_pod(res).values():
        assert r["message"].endswith("2 No preemption victims found for incoming pod.")
