"""The snapshot's nodes with required-anti-affinity pods stay right as pods come and go.

Whether there are any is kept up to date on every add and remove (one set
operation), and InterPodAffinity's PreFilter skips counting when there are none.
"""

from __future__ import annotations

from scheduler_engine.framework.snapshot import Snapshot
from tests.engine.builders import make_node, make_pod


def _fresh(snap: Snapshot) -> list[str]:
    return [ni.name for ni in snap.node_info_list if ni.pods_with_required_anti_affinity]


def test_the_list_follows_adds_and_removes_in_node_order():
    snap = Snapshot([make_node(f"n{i}").node() for i in range(4)])
    assert snap.have_pods_with_required_anti_affinity() == []
    loner = [make_pod(f"a{i}").pod_anti_affinity({"app": "x"}).pod() for i in range(3)]
    plain = make_pod("p").pod()
    steps = [
        ("add", plain, "n0"),
        ("add", loner[0], "n2"),
        ("add", loner[1], "n0"),
        ("add", loner[2], "n2"),
        ("remove", loner[0], "n2"),
        ("remove", plain, "n0"),
        ("remove", loner[2], "n2"),
        ("remove", loner[1], "n0"),
    ]
    for op, pod, node in steps:
        getattr(snap, f"{op}_pod")(pod, node)
        got = [ni.name for ni in snap.have_pods_with_required_anti_affinity()]
        assert got == _fresh(snap), (op, pod.name, node)
        assert snap.has_pods_with_required_anti_affinity() == bool(_fresh(snap))
    assert snap.have_pods_with_required_anti_affinity() == []
