"""DefaultPreemption's fast dry run decides exactly what the plain one decides.

``DefaultPreemption.fast_dry_run`` off is the dry run as upstream words it:
each reprieved pod is added back and every filter runs again.  On (the
default), only the filters that read the node's pods run again; the others
(``filter_reads_no_pods``) passed on that node with every would-be victim
removed and pass whatever pods it holds.  Random crowded clusters
(:mod:`tests.engine.randomgen`: priorities, PDBs, taints, node and pod
(anti-)affinity, topology spread, host ports, nominations), some with
ReadWriteOncePod claims held by running pods and wanted by pending ones and
zoned volumes: every dry run's candidates, victims and node statuses, and the
whole result document, must be the same both ways.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from scheduler_engine import build_cluster, simulate
from scheduler_engine.framework import CycleState, NodeInfo
from scheduler_engine.framework.status import Status
from scheduler_engine.objects import Pod
from scheduler_engine.plugins.defaultpreemption import DefaultPreemption
from scheduler_engine.plugins.helper import NodeLocalFilter
from scheduler_engine.preemption import Evaluator, PreemptionShortcuts

from .randomgen import ZONE, random_cluster


def _claims(rng: random.Random, objs: list[dict[str, Any]]) -> None:
    """ReadWriteOncePod claims on zoned volumes, held by running pods and asked for by pending ones."""
    nodes = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Node"}
    running = [o for o in objs if o["kind"] == "Pod" and o["spec"].get("nodeName")]
    pending = [o for o in objs if o["kind"] == "Pod" and not o["spec"].get("nodeName")]
    objs.append(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "local"},
            "provisioner": "kubernetes.io/no-provisioner",
            "volumeBindingMode": "WaitForFirstConsumer",
        }
    )
    for k, holder in enumerate(rng.sample(running, min(len(running), rng.randint(1, 4)))):
        ns = holder["metadata"]["namespace"]
        zone = nodes[holder["spec"]["nodeName"]]["metadata"]["labels"].get(ZONE, "zone-a")
        claim, volume = f"claim-{k}", f"pv-{k}"
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": volume, "labels": {ZONE: zone}},
                "spec": {
                    "capacity": {"storage": "10Gi"},
                    "accessModes": ["ReadWriteOncePod"],
                    "storageClassName": "local",
                    "csi": {"driver": "disk.csi.example.com", "volumeHandle": volume},
                    "claimRef": {"namespace": ns, "name": claim},
                },
                "status": {"phase": "Bound"},
            }
        )
        objs.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": claim, "namespace": ns},
                "spec": {
                    "accessModes": ["ReadWriteOncePod"],
                    "storageClassName": "local",
                    "volumeName": volume,
                    "resources": {"requests": {"storage": "10Gi"}},
                },
                "status": {"phase": "Bound"},
            }
        )
        volumes = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
        holder["spec"]["volumes"] = volumes
        for wanting in rng.sample(pending, min(len(pending), rng.randint(0, 2))):
            wanting["metadata"]["namespace"] = ns
            wanting["spec"]["volumes"] = [dict(v) for v in volumes]


def _cluster(seed: int, *, claims: bool, nodes: int = 8) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    objs = random_cluster(rng, max_nodes=nodes, max_running=6 * nodes, max_pending=30)
    for o in objs:
        # pods without a start time compare as upstream's time.Now() does
        if o["kind"] == "Pod" and o.get("status", {}).get("startTime") and rng.random() < 0.2:
            del o["status"]["startTime"]
    if claims:
        _claims(rng, objs)
    return objs


def _decided(
    objs: list[dict[str, Any]], seed: int, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[Any], str]:
    """(every dry run's candidates and node statuses, the result document) on one path."""
    monkeypatch.setattr(DefaultPreemption, "fast_dry_run", fast)
    runs: list[Any] = []
    plain = Evaluator.dry_run_preemption

    def dry_run(self: Evaluator, *args: Any) -> Any:
        out = plain(self, *args)
        candidates, statuses, errors = out
        runs.append(
            (
                [
                    (c.name, [p.key for p in c.victims.pods], c.victims.num_pdb_violations)
                    for c in candidates
                ],
                sorted((n, s.code, s.message()) for n, s in statuses.statuses.items()),
                errors,
            )
        )
        return out

    monkeypatch.setattr(Evaluator, "dry_run_preemption", dry_run)
    doc = simulate(build_cluster(objs), seed=seed, explain=True, whatif=False).to_dict()
    for timing in ("seconds", "podsPerSecond"):
        doc["summary"].pop(timing)
    monkeypatch.setattr(Evaluator, "dry_run_preemption", plain)
    return runs, json.dumps(doc, sort_keys=True)


def _check(objs: list[dict[str, Any]], seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    runs, doc = _decided(objs, seed, True, monkeypatch)
    assert any(candidates for candidates, _, _ in runs), "no candidate: the case checks nothing"
    assert (runs, doc) == _decided(objs, seed, False, monkeypatch)


@pytest.mark.parametrize(
    ("seed", "nodes"),
    [(2, 8), (3, 8), (9, 8), (12, 8), (29, 8), (35, 8), (41, 8), (5, 24), (24, 24), (26, 24)],
)
def test_random_crowded_clusters_preempt_alike(
    seed: int, nodes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(_cluster(seed, claims=False, nodes=nodes), seed, monkeypatch)


@pytest.mark.parametrize(
    ("seed", "nodes"),
    [(2, 8), (6, 8), (8, 8), (12, 8), (17, 8), (26, 8), (30, 8), (5, 24), (31, 24)],
)
def test_random_clusters_with_claims_preempt_alike(
    seed: int, nodes: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    _check(_cluster(seed, claims=True, nodes=nodes), seed, monkeypatch)


def test_the_fast_dry_run_leaves_out_filters_that_ignore_pods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NodeName, NodeUnschedulable and TaintToleration run again only on the plain path."""
    objs = _cluster(3, claims=False)
    calls = {True: 0, False: 0}
    path = [True]
    judge = NodeLocalFilter.filter

    def counted(self: NodeLocalFilter, state: CycleState, pod: Pod, ni: NodeInfo) -> Status | None:
        calls[path[0]] += 1
        return judge(self, state, pod, ni)

    monkeypatch.setattr(NodeLocalFilter, "filter", counted)
    for fast in (True, False):
        path[0] = fast
        _decided(objs, 3, fast, monkeypatch)
    assert 0 < calls[True] < calls[False]


@pytest.mark.parametrize(("promise", "node_by_node"), [(True, True), (1, False), ("yes", False)])
def test_the_evaluator_takes_only_true_as_the_fast_dry_runs_promise(
    promise: object, node_by_node: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The shortcuts are read through ``PreemptionShortcuts``; a truthy non-``True`` is no promise."""
    assert isinstance(DefaultPreemption({}, None), PreemptionShortcuts)  # type: ignore[arg-type]
    objs = _cluster(3, claims=False)
    asked: list[int] = []
    answer = DefaultPreemption.no_possible_victims

    def counted(self: DefaultPreemption, pod: Pod, nodes: Any) -> Status | None:
        asked.append(len(nodes))
        return answer(self, pod, nodes)

    monkeypatch.setattr(DefaultPreemption, "no_possible_victims", counted)
    runs, _ = _decided(objs, 3, promise, monkeypatch)  # type: ignore[arg-type]
    assert runs, "no dry run: the case checks nothing"
    # one call for the whole node list in each dry run, then one per node tried on the fast path
    assert (len(asked) > len(runs)) is node_by_node
