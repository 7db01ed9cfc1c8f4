"""Coscheduling's queue sort, as scheduler-plugins' ``Less``: priority, the group's time, the pod's name.

The group's time is its PodGroup's creationTimestamp, or the time of its last
failure (PostFilter, Unreserve) until a Permit lets it through; a pod of no
group (or of a group with no PodGroup) uses its own queue timestamp. Ties go
by the pod's ``namespace/name``, not the group's.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.framework.interfaces import QueuedPodInfo
from scheduler_engine.objects.pod import parse_pod, parse_time
from scheduler_engine.plugins.coscheduling import Coscheduling, index_pod_groups
from tests.engine.builders import make_pod
from tests.engine.gangs.test_coscheduling import LABEL, members, nodes, pod_group, run

T0 = "2026-01-01T00:00:00Z"


def at(seconds: int) -> str:
    return f"2026-01-01T00:00:{seconds:02d}Z"


def queued(name: str, group: str | None = None, prio: int = 0, created: int = 0) -> QueuedPodInfo:
    b = make_pod(name).priority(prio).created(at(created))
    if group is not None:
        b = b.labels({LABEL: group})
    pod = parse_pod(b.obj())
    return QueuedPodInfo(pod, pod.creation_ts or 0.0)


def plugin(groups: dict[str, int], failed: dict[str, int] | None = None) -> Coscheduling:
    """The plugin with PodGroups made at the given seconds and groups that failed at others."""
    cs = Coscheduling({}, None)
    cs._groups = index_pod_groups([pod_group(g, 2, created=at(s)) for g, s in groups.items()])
    cs.last_failed = {f"default/{g}": parse_time(at(s)) for g, s in (failed or {}).items()}
    return cs


CASES: list[tuple[str, dict[str, int], dict[str, int], dict[str, Any], dict[str, Any]]] = [
    # (case, groups made at, groups failed at, first pod, second pod): the first sorts first
    ("higher priority first", {"a": 1, "b": 0}, {}, {"group": "a", "prio": 10}, {"group": "b"}),
    ("older group first", {"a": 0, "b": 5}, {}, {"name": "z", "group": "a"}, {"group": "b"}),
    (
        "a member that came late sorts with its group, before a younger group's",
        {"a": 0, "b": 5},
        {},
        {"group": "a", "created": 50},
        {"group": "b", "created": 6},
    ),
    (
        "groups made in the same second interleave by pod name, not group name",
        {"b": 0, "a": 0},
        {},
        {"name": "b-0", "group": "b"},
        {"name": "b-1", "group": "a"},
    ),
    (
        "a group that failed sorts by its failure, behind a group made before it",
        {"a": 0, "b": 5},
        {"a": 9},
        {"group": "b"},
        {"group": "a"},
    ),
    (
        "a group that failed still goes before a group made after the failure",
        {"a": 0, "b": 30},
        {"a": 9},
        {"name": "z", "group": "a"},
        {"group": "b"},
    ),
    (
        "a pod of no group uses its own timestamp against a group's creation",
        {"a": 5},
        {},
        {"created": 3},
        {"group": "a", "created": 1},
    ),
    (
        "a group with no PodGroup uses the pod's timestamp",
        {"a": 5},
        {},
        {"group": "missing", "created": 2},
        {"group": "a", "created": 0},
    ),
]


@pytest.mark.parametrize(
    ("groups", "failed", "first", "second"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_less(
    groups: dict[str, int], failed: dict[str, int], first: dict[str, Any], second: dict[str, Any]
) -> None:
    cs = plugin(groups, failed)
    a = queued(first.pop("name", "x"), **first)
    b = queued(second.pop("name", "y"), **second)
    assert cs.less(a, b)
    assert not cs.less(b, a)


def test_a_permit_that_reaches_the_quorum_clears_the_failure() -> None:
    cs = plugin({"a": 0, "b": 5}, {"a": 9})
    a, b = queued("a-0", "a"), queued("b-0", "b")
    assert cs.less(b, a)
    cs.permit(None, a.pod, "n0")  # minMember 2: the first one waits
    assert cs.less(b, a)
    cs.permit(None, queued("a-1", "a").pod, "n0")
    assert cs.less(a, b)


def test_a_group_that_fails_mid_round_stops_blocking_a_younger_one() -> None:
    # a-1 fits nowhere: a's PostFilter rejects a-0 and marks a failed; the member at the
    # head of the heap (a-2) is still popped, then b's pods sort before a's others, so b
    # binds at its first attempt (upstream's fix for head-of-line blocking), which it
    # could not if a-3 and a-4 had taken the room first
    a = [p.created(at(1)) for p in members("a", 5, cpu="2")]
    a[1] = make_pod("a-1").req(cpu="9").labels({LABEL: "a"}).created(at(1))
    b = [p.created(at(1)) for p in members("b", 2, cpu="4")]
    doc = run(*nodes(3), *a, *b, pod_group("a", 5, created=T0), pod_group("b", 2, created=at(5)))
    rs = {r["pod"]: r for r in doc["results"]}
    assert [e["reason"] for e in rs["default/b-0"]["events"]] == ["Scheduled"]
    assert [e["reason"] for e in rs["default/b-1"]["events"]] == ["Scheduled"]
    assert not [k for k, r in rs.items() if k.startswith("default/a") and r["node"]]
    # results come in the queue's final order: b before a, whose failure is later; this
    # needs the run's clock ("now", a failure's time) to start after the newest PodGroup
    assert [r["pod"] for r in doc["results"]][:2] == ["default/b-0", "default/b-1"]


@pytest.mark.parametrize(("a_made", "b_made", "winner"), [(0, 5, "a"), (5, 0, "b")])
def test_two_gangs_competing_for_the_same_nodes_the_older_wins_whole(
    a_made: int, b_made: int, winner: str
) -> None:
    # three 4-CPU nodes, two gangs of three 3-CPU members: room for one gang only
    doc = run(
        *nodes(3),
        *members("a", 3),
        *members("b", 3),
        pod_group("a", 3, created=at(a_made)),
        pod_group("b", 3, created=at(b_made)),
    )
    status = {g["name"]: (g["status"], g["scheduled"]) for g in doc["summary"]["gangs"]}
    loser = "b" if winner == "a" else "a"
    assert status == {
        f"default/{winner}": ("Scheduled", 3),
        f"default/{loser}": ("Unschedulable", 0),
    }
