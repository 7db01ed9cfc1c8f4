"""A run that does not explain drops each final attempt's per-node statuses
(``Attempt.compact``): what it reports must not change by a byte.

Each cluster is scheduled twice, once as the engine runs (compacting) and
once with compaction turned off, and the whole documents are compared:
results (messages, nominations, victims, events), the event stream, and the
summary with its gangs (whose diagnosis reads the reason histograms).
Random plain clusters, crowded ones (preemption, retries), native pod groups
with and without placements, and the demo cluster (coscheduling gangs).
"""

from __future__ import annotations

import gc
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster, load_cluster
from scheduler_engine.framework.interfaces import NodeToStatus
from scheduler_engine.framework.status import Code, Status
from scheduler_engine.scheduler.messages import Diagnosis, DroppedStatuses, FitError
from scheduler_engine.scheduler.schedule_one import Attempt
from scheduler_engine.scheduler.schedule_one_podgroup import GroupOutcome
from scheduler_engine.simulate import simulate
from tests.engine.builders import cluster_objects
from tests.engine.gangs.helpers import GANG_GATES, TAS_GATES, native_pod_group
from tests.engine.gangs.test_coscheduling import CONFIG, LABEL, REGISTRY, pod_group
from tests.engine.gangs.test_native_gangs_random import gangify
from tests.engine.gangs.test_the_diagnosis_reads_like_the_issue import issue_example
from tests.engine.randomgen import random_cluster

DEMO = Path(__file__).resolve().parents[2] / "scheduler_engine" / "demo" / "gpu-cluster.yaml"
# wall-clock figures differ between any two runs
TIMINGS = ("seconds", "podsPerSecond")


@contextmanager
def compaction_counted() -> Iterator[list[int]]:
    """Counts the FitErrors compacted meanwhile (one element per call)."""
    calls: list[int] = []
    original = FitError.compact

    def counting(self: FitError) -> None:
        calls.append(1)
        original(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(FitError, "compact", counting)
        yield calls


def document(objs: Any, *, compact: bool, **kw: Any) -> dict[str, Any]:
    cluster = objs if not isinstance(objs, list) else build_cluster(objs)
    with pytest.MonkeyPatch.context() as mp:
        if not compact:
            mp.setattr(Attempt, "compact", lambda self: None)
            mp.setattr(GroupOutcome, "compact", lambda self: None)
        doc = simulate(cluster, seed=kw.pop("seed", 0), **kw).to_dict()
    for k in TIMINGS:
        doc["summary"].pop(k, None)
    return doc


def assert_alike(objs: Any, **kw: Any) -> int:
    """Both runs' documents, byte for byte as JSON; returns how many FitErrors were compacted."""
    with compaction_counted() as calls:
        compacted = document(objs, compact=True, **kw)
    kept = document(objs, compact=False, **kw)
    assert json.dumps(compacted, sort_keys=True) == json.dumps(kept, sort_keys=True)
    return len(calls)


@pytest.mark.parametrize("seed", range(12))
def test_random_clusters_report_alike(seed: int) -> None:
    assert_alike(random_cluster(random.Random(seed)), seed=seed)


@pytest.mark.parametrize("seed", range(12))
def test_crowded_clusters_report_alike(seed: int) -> None:
    objs = random_cluster(random.Random(1000 + seed), max_nodes=6, max_running=40, max_pending=30)
    assert assert_alike(objs, seed=seed) > 0  # pods were turned down: something was compacted


@pytest.mark.parametrize("seed", range(8))
def test_native_gangs_report_alike(seed: int) -> None:
    rng = random.Random(2000 + seed)
    objs = random_cluster(rng, max_nodes=8, max_running=20, max_pending=24)
    gangify(rng, objs, topology=seed % 2 == 1)
    gates = TAS_GATES if seed % 2 else GANG_GATES
    assert_alike(objs, seed=seed, feature_gates=gates)


def test_a_gang_blocked_by_shortfalls_and_taints_reports_alike() -> None:
    # the gang diagnosis prefers the Unschedulable nodes' reasons to the more numerous
    # unresolvable ones: both histograms must survive compaction
    nodes, workers, launchers = issue_example()
    objs = cluster_objects(*nodes, *workers, *launchers, native_pod_group("llm", 16))
    doc = document(objs, compact=True, feature_gates=GANG_GATES)
    assert doc["summary"]["gangs"][0]["reasons"]["Insufficient nvidia.com/gpu"] == 4
    assert assert_alike(objs, feature_gates=GANG_GATES) > 0


def test_a_coscheduling_gang_reports_alike() -> None:
    nodes, workers, launchers = issue_example()
    for p in [*workers, *launchers]:
        del p.labels({LABEL: "llm"}).obj()["spec"]["schedulingGroup"]
    objs = cluster_objects(*nodes, *workers, *launchers, pod_group("llm", 16))
    assert assert_alike(objs, config=CONFIG, registry=REGISTRY) > 0


def test_the_demo_cluster_reports_alike() -> None:
    assert assert_alike(load_cluster(DEMO), controllers=True) > 0


def test_a_compacted_fit_error_keeps_its_message_and_histograms() -> None:
    d = Diagnosis()
    d.node_to_status.set("a", Status(Code.UNSCHEDULABLE, "Insufficient cpu", plugin="Fit"))
    d.node_to_status.set("b", Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "taint", plugin="T"))
    d.node_to_status.absent = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "absent")
    d.unschedulable_plugins = {"Fit", "T"}
    d.post_filter_msg = "preemption: not eligible due to preemptionPolicy=Never."
    fe = FitError("ns/p", 4, d)
    message, counts = fe.error(), fe.reason_counts()
    fe.compact()
    assert fe.error() == message
    assert message == (
        "0/4 nodes are available: 1 Insufficient cpu, 1 taint, 2 absent. "
        "preemption: not eligible due to preemptionPolicy=Never."
    )
    assert (
        fe.reason_counts()
        == counts
        == ({"Insufficient cpu": 1, "taint": 1, "absent": 2}, {"Insufficient cpu": 1})
    )
    assert fe.diagnosis.unschedulable_plugins == {"Fit", "T"}
    assert isinstance(fe.diagnosis.node_to_status, DroppedStatuses)
    assert d not in fe.args  # nothing still holds the per-node map
    with pytest.raises(RuntimeError):
        fe.diagnosis.node_to_status.get("a")


def live_node_maps(objs: list[dict[str, Any]], **kw: Any) -> int:
    """The most per-node status maps alive after any attempt of a run."""
    most = [0]

    def progress(done: int, total: int) -> None:
        gc.collect()
        alive = sum(1 for o in gc.get_objects() if type(o) is NodeToStatus and o.statuses)
        most[0] = max(most[0], alive)

    simulate(build_cluster(objs), seed=1, progress=progress, **kw)
    return most[0]


def test_no_per_node_map_outlives_its_attempt() -> None:
    objs = random_cluster(random.Random(1001), max_nodes=6, max_running=40, max_pending=30)
    assert live_node_maps(objs) == 0
    # an explaining run keeps them (what the per-node breakdown reads), so the count sees them
    assert live_node_maps(objs, explain=True) > 0
