"""NodeTable: the vectorised view of a snapshot's node resources."""

from __future__ import annotations

import numpy as np

from scheduler_engine.framework import Snapshot
from scheduler_engine.framework.node_table import EXTENSION_KEY, NodeTable
from tests.engine.plugins.test_noderesources_fit import make_node, make_pod


def _snapshot() -> Snapshot:
    nodes = [
        make_node("a", {"cpu": "4", "memory": "32Gi", "pods": 110, "example.com/gpu": 8}),
        make_node("b", {"cpu": "2", "memory": "8Gi", "pods": 10, "ephemeral-storage": "100Gi"}),
    ]
    pods = [
        make_pod({"cpu": "1", "memory": "1Gi", "example.com/gpu": "2"}, node="a", name="p1"),
        make_pod({}, node="b", name="p2"),
    ]
    return Snapshot(nodes, pods)


def test_table_holds_allocatable_requested_non_zero_and_pod_counts() -> None:
    snap = _snapshot()
    t = NodeTable.of(snap)
    a, b = (ni.index for ni in (snap.get("a"), snap.get("b")))
    assert t.names[:3] == ["cpu", "memory", "ephemeral-storage"]
    assert t.allocatable_of("cpu")[[a, b]].tolist() == [4000, 2000]
    assert t.allocatable_of("example.com/gpu")[[a, b]].tolist() == [8, 0]
    assert t.allocatable_of("ephemeral-storage")[[a, b]].tolist() == [0, 100 * 2**30]
    assert t.requested_of("example.com/gpu")[[a, b]].tolist() == [2, 0]
    assert t.requested_of("cpu")[[a, b]].tolist() == [1000, 0]
    # a pod without requests counts as 100m / 200Mi for scoring, 0 for fitting
    assert t.non_zero_cpu[[a, b]].tolist() == [1000, 100]
    assert t.non_zero_memory[[a, b]].tolist() == [2**30, 200 * 2**20]
    assert t.pod_count[[a, b]].tolist() == [1, 1]
    assert t.allowed_pods[[a, b]].tolist() == [110, 10]
    assert t.allocatable.dtype == np.int64


def test_table_is_cached_in_snapshot_extensions_and_listens_for_changes() -> None:
    snap = _snapshot()
    t = NodeTable.of(snap)
    assert snap.extensions[EXTENSION_KEY] is t
    assert NodeTable.of(snap) is t
    assert t.refresh in snap.listeners
    a = snap.get("a").index
    pod = make_pod({"cpu": "500m", "memory": "1Gi", "example.com/gpu": "1"}, name="new")
    snap.add_pod(pod, "a")
    assert t.requested_of("cpu")[a] == 1500
    assert t.requested_of("example.com/gpu")[a] == 3
    assert t.pod_count[a] == 2
    assert t.non_zero_memory[a] == 2 * 2**30
    snap.remove_pod(pod, "a")
    assert t.requested_of("cpu")[a] == 1000
    assert t.requested_of("example.com/gpu")[a] == 2
    assert t.pod_count[a] == 1


def test_a_resource_first_seen_on_a_new_pod_gets_a_column() -> None:
    snap = _snapshot()
    t = NodeTable.of(snap)
    b = snap.get("b").index
    assert t.column("example.com/fpga") is None
    snap.add_pod(make_pod({"example.com/fpga": "1"}, name="f"), "b")
    assert t.requested_of("example.com/fpga")[b] == 1
    assert t.allocatable_of("example.com/fpga").tolist() == [0, 0]


def test_a_resource_no_node_has_reads_as_zeros() -> None:
    t = NodeTable.of(_snapshot())
    assert t.allocatable_of("example.com/nowhere").tolist() == [0, 0]
    assert t.requested_of("example.com/nowhere").tolist() == [0, 0]


def test_rows_follow_the_order_nodes_are_given_in() -> None:
    snap = _snapshot()
    infos = snap.node_info_list
    t, rows = NodeTable.for_nodes(snap, infos[::-1])
    assert t is NodeTable.of(snap)
    assert rows.tolist() == [ni.index for ni in infos[::-1]]


def test_copies_of_node_infos_get_their_own_table() -> None:
    snap = _snapshot()
    copy = snap.get("a").clone()
    copy.remove_pod(copy.pods[0])
    t, rows = NodeTable.for_nodes(snap, [copy])
    assert t is not NodeTable.of(snap)
    assert t.requested_of("cpu")[rows].tolist() == [0]


def test_empty_snapshot() -> None:
    t = NodeTable.of(Snapshot([]))
    assert len(t) == 0
    assert t.allocatable.shape == (0, 3)


def test_a_table_of_5000_nodes_matches_every_node_row_by_row() -> None:
    """The size a real cluster has: every row is its node's, in the snapshot's order.

    How long building it takes is a benchmark figure (benchmarks/node_table.py), not a test.
    """
    nodes = [
        make_node(f"n{i}", {"cpu": "4", "memory": "32Gi", "pods": 110, "example.com/gpu": i % 3})
        for i in range(5000)
    ]
    snap = Snapshot(nodes, [make_pod({"cpu": "100m"}, node=f"n{i}") for i in range(0, 5000, 5)])
    t = NodeTable.of(snap)
    assert t.allocatable.shape == (5000, 4)
    rows = [ni.index for ni in snap.node_info_list]
    assert rows == list(range(5000))
    numbers = [int(ni.node.name[1:]) for ni in snap.node_info_list]
    assert t.allocatable_of("example.com/gpu").tolist() == [i % 3 for i in numbers]
    assert t.requested_of("cpu").tolist() == [100 if i % 5 == 0 else 0 for i in numbers]
    assert t.pod_count.tolist() == [1 if i % 5 == 0 else 0 for i in numbers]
    assert set(t.allocatable_of("cpu").tolist()) == {4000}
