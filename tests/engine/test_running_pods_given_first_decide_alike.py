"""A cluster that says its running pods come first (``running_first``) is scheduled alike.

``WarmCluster.state`` lists the running pods, then the pending ones, and says
so; ``simulate`` then takes the two lists as slices instead of a pass over
every pod.  On random clusters the result document must be the one the same
pods give without the hint, and a hint one pod off must not be.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from scheduler_engine import build_cluster, simulate
from scheduler_engine.cluster import ClusterState

from .randomgen import random_cluster


def _document(cluster: ClusterState, seed: int) -> str:
    doc = simulate(cluster, seed=seed, explain=True).to_dict()
    for timing in ("seconds", "podsPerSecond"):
        doc["summary"].pop(timing)
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize("seed", [1, 4, 7, 11])
def test_running_pods_given_first_are_scheduled_alike(seed: int) -> None:
    rng = random.Random(seed)
    cluster = build_cluster(random_cluster(rng, max_nodes=8, max_running=40, max_pending=12))
    running = [p for p in cluster.pods if p.node_name]
    pending = [p for p in cluster.pods if not p.node_name]
    assert running and pending, "the case checks nothing"
    plain = dataclasses.replace(cluster, pods=[*running, *pending])
    hinted = dataclasses.replace(plain, running_first=len(running))
    assert _document(hinted, seed) == _document(plain, seed)
    # the hint is read: one pod off, a running pod is taken for a pending one
    wrong = dataclasses.replace(plain, running_first=len(running) - 1)
    assert _document(wrong, seed) != _document(plain, seed)
