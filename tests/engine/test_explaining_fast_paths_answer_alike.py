"""Explaining on the fast paths answers byte for byte what the per-node paths answer.

``simulate(..., batch=False)`` is the straightforward path: every filter and
score called per node and recorded.  With ``batch`` (the default) an
explanation takes the vectorised filter verdicts for the nodes they let
through and the vectorised scores; the JSON document (record, filter
failures, scores, nearest nodes, fixes) must not change by a byte.  Random
clusters (:mod:`tests.engine.randomgen`), several seeds, some crowded (preemption,
nominations), some large enough for ``percentageOfNodesToScore`` to cut the
search.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from scheduler_engine import build_cluster, simulate

from .randomgen import random_cluster


def document(objs: list[dict[str, Any]], seed: int, batch: bool) -> str:
    doc = simulate(build_cluster(objs), seed=seed, explain=True, whatif=True, batch=batch).to_dict()
    for timing in ("seconds", "podsPerSecond"):
        doc["summary"].pop(timing)
    return json.dumps(doc)


@pytest.mark.parametrize("seed", [1, 7, 23, 101, 4242, 90210])
def test_random_clusters_explained_alike(seed: int) -> None:
    objs = random_cluster(random.Random(seed))
    assert document(objs, seed, batch=True) == document(objs, seed, batch=False)


@pytest.mark.parametrize("seed", [3, 58])
def test_crowded_clusters_explained_alike(seed: int) -> None:
    objs = random_cluster(random.Random(seed), max_nodes=6, max_running=40, max_pending=30)
    assert document(objs, seed, batch=True) == document(objs, seed, batch=False)


def test_a_large_cluster_cut_short_explained_alike() -> None:
    objs = random_cluster(random.Random(11), min_nodes=120, max_nodes=160, max_pending=12)
    assert document(objs, 11, batch=True) == document(objs, 11, batch=False)
