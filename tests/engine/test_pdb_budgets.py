"""PDB budgets as the two upstream preemptions spend them, through one helper.

DefaultPreemption (``filterPodsWithPDBViolation``) charges every PDB a pod
matches; pod-group preemption (``filterVictimsWithPDBViolation``, v1.36) stops
at the first PDB a pod breaks and at the first pod of a unit that breaks one.
The cases below tell the two apart: a change that made one behave like the
other fails here.
"""

from __future__ import annotations

from scheduler_engine.cluster import build_cluster
from scheduler_engine.objects import Pod
from scheduler_engine.plugins.defaultpreemption import filter_pods_with_pdb_violation
from scheduler_engine.podgroup_preemption import Victim, _split_by_pdb

from .builders import make_pdb, make_pod


def _pod(name: str, **labels: str) -> Pod:
    return make_pod(name).labels(labels).pod()


# "a" breaks PDB "zero" first; "b" is matched only by "one", which allows one.
PDBS = [make_pdb("zero", {"app": "a"}, 0), make_pdb("one", {"tier": "t"}, 1)]


def _units(*pods: Pod) -> list[Victim]:
    return [Victim([(p, "n1")], 0) for p in pods]


def test_default_preemption_charges_every_matching_pdb_after_a_breach() -> None:
    pdbs = build_cluster(PDBS).pdbs
    violating, rest = filter_pods_with_pdb_violation(
        [_pod("a", app="a", tier="t"), _pod("b", tier="t")], pdbs
    )
    # "a" spent "one" too, so "b" breaks it
    assert [p.name for p in violating] == ["a", "b"]
    assert rest == []


def test_pod_group_preemption_stops_at_the_first_pdb_broken() -> None:
    pdbs = build_cluster(PDBS).pdbs
    violating, rest = _split_by_pdb(_units(_pod("a", app="a", tier="t"), _pod("b", tier="t")), pdbs)
    # "a" stopped at "zero": "one" still allows "b"
    assert [v.pods[0][0].name for v in violating] == ["a"]
    assert [v.pods[0][0].name for v in rest] == ["b"]


def test_pod_group_preemption_stops_at_the_first_pod_of_a_unit_that_breaks_one() -> None:
    pdbs = build_cluster(PDBS).pdbs
    unit = Victim([(_pod("a", app="a"), "n1"), (_pod("b", tier="t"), "n1")], 0)
    (other,) = _units(_pod("c", tier="t"))
    violating, rest = _split_by_pdb([unit, other], pdbs)
    # "a" breaks "zero", so "b" is never counted and "one" still allows "c"
    assert violating == [unit]
    assert rest == [other]
