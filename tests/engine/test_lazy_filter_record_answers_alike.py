"""The filter record kept lazily answers byte for byte what the record built node by node answers.

``Recorder.LAZY`` on (the default): an explained filter pass over every node
keeps its verdicts, statuses and per-node calls, and builds each node's entry
when the pod's record is read, or when a later call (preemption's dry run, a
nominated node's second look) records on that node again; a retried pod's
earlier attempt is dropped unbuilt.  Off: every entry is built during the
pass.  Random crowded clusters (priorities, preemption, nominations, PDBs,
taints, affinity, spread, host ports) must give the same JSON document both
ways, with and without the what-if search.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from scheduler_engine import build_cluster, simulate
from scheduler_engine.framework.cycle_state import CycleState
from scheduler_engine.framework.recorder import Recorder
from scheduler_engine.framework.status import Code, Status
from tests.engine.builders import make_node, make_pod
from tests.engine.fakes import Fake, build_framework

from .randomgen import random_cluster

NODES = [make_node(f"n{i}").cap(cpu=4, memory="8Gi").obj() for i in range(3)]
POD = make_pod("p").pod()


@pytest.fixture
def dropped(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The pods whose lazily kept filter pass a retry dropped (or set aside) before it was built."""
    out: list[str] = []
    reset = Recorder.reset_pod

    def reset_pod(self: Recorder, pod_key: str, keep: bool = False) -> None:
        if pod_key in self._lazy:
            out.append(pod_key)
        reset(self, pod_key, keep)

    monkeypatch.setattr(Recorder, "reset_pod", reset_pod)
    yield out


def document(
    objs: list[dict[str, Any]], seed: int, lazy: bool, monkeypatch: pytest.MonkeyPatch
) -> str:
    monkeypatch.setattr(Recorder, "LAZY", lazy)
    doc = simulate(build_cluster(objs), seed=seed, explain=True, whatif=seed % 2 == 0).to_dict()
    for timing in ("seconds", "podsPerSecond"):
        doc["summary"].pop(timing)
    return json.dumps(doc)


@pytest.mark.parametrize("seed", range(12))
def test_crowded_clusters_recorded_alike(
    seed: int, monkeypatch: pytest.MonkeyPatch, dropped: list[str]
) -> None:
    rng = random.Random(5000 + seed)
    objs = random_cluster(rng, max_nodes=8, max_running=45, max_pending=30)
    assert document(objs, seed, True, monkeypatch) == document(objs, seed, False, monkeypatch)


def test_random_clusters_recorded_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in range(8):
        objs = random_cluster(random.Random(7000 + seed))
        lazy = document(objs, seed, True, monkeypatch)
        assert lazy == document(objs, seed, False, monkeypatch), seed


def test_a_preempting_pod_drops_its_first_pass_unbuilt(
    monkeypatch: pytest.MonkeyPatch, dropped: list[str]
) -> None:
    """The crowded clusters above do exercise the case this is for."""
    for seed in range(12):
        objs = random_cluster(
            random.Random(5000 + seed), max_nodes=8, max_running=45, max_pending=30
        )
        document(objs, seed, True, monkeypatch)
    assert len(dropped) >= 5


def _kept_record(lazy: bool) -> tuple[Any, list[tuple[str, str]]]:
    """A filter pass on three nodes between two per-node records (each with a filter the
    pass skips): vectorised verdicts, statuses over every node, per-node calls that
    reject, raise and wait."""

    def verdicts(state: Any, pod: Any, nodes: Any) -> Any:
        return np.array([ni.name == "n0" for ni in nodes])

    def statuses(state: Any, pod: Any, nodes: Any) -> list[Status | None]:
        return [
            None if ni.name == "n0" else Status(Code.UNSCHEDULABLE, "b", ni.name) for ni in nodes
        ]

    def c(state: Any, pod: Any, ni: Any) -> Status | None:
        if ni.name == "n2":
            raise RuntimeError("boom")
        return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "c") if ni.name == "n1" else None

    plugins = [
        Fake("A", filter=Status(Code.UNSCHEDULABLE, "a"), filter_batch=verdicts),
        Fake("B", filter=None, filter_batch=verdicts, filter_statuses_batch=statuses),
        Fake("C", filter=c),
        Fake("D", filter=lambda s, p, ni: Status(Code.WAIT, "w") if ni.name == "n0" else None),
        Fake("E", filter=None),
    ]
    names = ["A", "B", "C", "D", "E"]
    fwk, ctx = build_framework({"filter": names}, plugins, NODES, explain=True)
    fwk.recorder.lazy = lazy
    nodes = ctx.snapshot.node_info_list
    fwk.run_filter_plugins(CycleState(), POD, nodes[1])  # recorded before the pass
    state = CycleState()
    state.skip_filter_plugins = {"E"}
    found = fwk.find_nodes_that_pass_filters(state, POD, nodes, 1, 3)
    later = CycleState()
    later.skip_filter_plugins = {"B"}
    fwk.run_filter_plugins(later, POD, nodes[2])  # recorded again after it
    rejected = [(node, s.message()) for node, s in found.rejected]
    assert found.error is not None and found.error.plugin == "D"
    return fwk.recorder.pod_record(POD.key), rejected


def test_a_kept_pass_builds_what_the_pass_would_have_built() -> None:
    lazy = _kept_record(True)
    assert json.dumps(lazy) == json.dumps(_kept_record(False))
    record = lazy[0]["filter"]
    assert list(record) == ["n1", "n2", "n0"] and list(record["n1"]) == ["A", "B", "C", "D", "E"]
    assert record["n2"]["C"]["code"] == "Error" and record["n0"]["D"]["code"] == "Error"


def _shared_record(lazy: bool) -> Any:
    """Every filter vectorised: nodes rejected alike share a status, one node also needs a call."""
    nodes = [make_node(f"n{i}").cap(cpu=4, memory="8Gi").obj() for i in range(5)]
    one, two = Status(Code.UNSCHEDULABLE, "one"), Status(Code.UNSCHEDULABLE, "two")
    by_node = {"n0": None, "n1": one, "n2": one, "n3": two, "n4": one}

    def statuses(state: Any, pod: Any, nis: Any) -> list[Status | None]:
        return [by_node[ni.name] for ni in nis]

    def verdicts(state: Any, pod: Any, nis: Any) -> Any:
        return np.array([ni.name != "n4" for ni in nis])

    plugins = [
        Fake("A", filter=None, filter_batch=verdicts, filter_statuses_batch=statuses),
        Fake("B", filter=None, filter_batch=lambda s, p, nis: np.ones(len(nis), dtype=bool)),
        Fake("C", filter=Status(Code.UNSCHEDULABLE, "c"), filter_batch=verdicts),
    ]
    fwk, ctx = build_framework({"filter": ["A", "B", "C"]}, plugins, nodes, explain=True)
    fwk.recorder.lazy = lazy
    found = fwk.find_nodes_that_pass_filters(CycleState(), POD, ctx.snapshot.node_info_list, 0, 5)
    assert [ni.name for ni in found.feasible] == ["n0"]
    return fwk.recorder.pod_record(POD.key)


def test_nodes_rejected_alike_are_built_alike_and_apart() -> None:
    lazy = _shared_record(True)
    assert json.dumps(lazy) == json.dumps(_shared_record(False))
    record = lazy["filter"]
    assert record["n1"]["A"]["reasons"] == ["one"] and record["n3"]["A"]["reasons"] == ["two"]
    assert record["n4"]["C"]["reasons"] == ["c"] and record["n1"] is not record["n2"]
