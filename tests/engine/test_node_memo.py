"""Filter verdicts and raw scores kept across cycles for pods with one spec decide as if afresh.

The gang benchmark's workload (``benchmarks/gangs.py``) at a small size, where
nodes fill up and gangs are rejected and released whole: the vectorised run,
which keeps node-local answers in :mod:`scheduler_engine.framework.node_memo`,
places every pod where the per-node reference path (``batch=False``) does,
with the same messages.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.gangs import config, workload
from scheduler_engine import build_cluster, simulate
from scheduler_engine.framework import node_memo
from scheduler_engine.framework.snapshot import Snapshot


def _outcome(res):
    return [(r["pod"], r["status"], r["node"], r["message"]) for r in res.to_dict()["results"]]


@pytest.mark.parametrize("mode", [False, True, None], ids=["coscheduling", "native", "plain"])
def test_memoised_answers_place_gang_pods_like_the_per_node_path(mode, monkeypatch):
    objs, n_pods = workload(24, 6, seed=3, native=mode)
    cfg, reg = config(mode)
    reference = simulate(build_cluster(objs), cfg, registry=reg, seed=3, batch=False)

    served = {"filter": 0, "score": 0}
    values = node_memo.NodeMemo.values

    def counting(self, key, *args):
        out = values(self, key, *args)
        served[key[0]] += out is not None
        return out

    monkeypatch.setattr(node_memo.NodeMemo, "values", counting)
    fast = simulate(build_cluster(objs), cfg, registry=reg, seed=3)

    assert _outcome(fast) == _outcome(reference)
    placed = sum(1 for r in fast.to_dict()["results"] if r["status"] == "Scheduled")
    assert 0 < placed < n_pods  # some gangs fit, some are released whole
    # the memo answered: several filters and four score plugins per scored pod
    assert served["filter"] > n_pods and served["score"] > n_pods


def test_a_node_changed_since_the_last_pod_is_asked_again():
    objs, _ = workload(4, 1, seed=1, native=None)
    snap = Snapshot(build_cluster(objs).nodes)
    memo = node_memo.NodeMemo.of(snap, owner=object())
    pod = build_cluster(objs).pods[0]
    calls = []

    def one(state, p, ni):
        calls.append(ni.name)
        return len(ni.pods)

    def many(state, p, nodes):
        return [len(ni.pods) for ni in nodes]

    rows = memo.rows(snap.node_info_list)
    key = ("score", "P", node_memo.pod_spec_signature(pod))
    assert memo.values(key, rows, None, pod, one, many, np.int64).tolist() == [0, 0, 0, 0]
    target = snap.node_info_list[2]
    snap.add_pod(pod, target.name)
    assert memo.values(key, rows, None, pod, one, many, np.int64).tolist() == [0, 0, 1, 0]
    assert calls == [target.name]
    # a node list that is not the snapshot's own is not answered from the memo
    assert memo.rows([target.clone()]) is None


def test_one_snapshot_keeps_the_memos_of_a_few_frameworks_only():
    objs, _ = workload(2, 1, seed=1, native=None)
    snap = Snapshot(build_cluster(objs).nodes)
    owners = [object() for _ in range(10)]
    memos = [node_memo.NodeMemo.of(snap, owner) for owner in owners]
    assert node_memo.NodeMemo.of(snap, owners[-1]) is memos[-1]
    kept = snap.extensions["framework/nodeMemo"]
    assert 0 < len(kept) <= 4
