"""Property: every fix the engine reports, made to the cluster as the run left it, makes the
engine schedule the pod (random clusters; no preemption needed once the fix is made)."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.simulate import simulate
from tests.engine.randomgen import random_cluster

from .support import applied

SEEDS = range(40)
KINDS_SEEN: Counter[str] = Counter()


def _key(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def _as_left(objs: list[dict[str, Any]], doc: dict[str, Any], pod: str) -> list[dict[str, Any]]:
    """The run's end state with ``pod`` the only pending pod: placed pods bound, victims gone."""
    results = {r["pod"]: r for r in doc["results"]}
    gone = {v for r in doc["results"] for v in r["victims"]}
    out = []
    for o in objs:
        if o.get("kind") == "Pod":
            k = _key(o)
            if k in gone:
                continue
            r = results.get(k)
            if r is not None and k != pod:
                if r["status"] != "Scheduled":
                    continue
                o = copy.deepcopy(o)
                o["spec"]["nodeName"] = r["node"]
        out.append(o)
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_every_reported_fix_makes_the_engine_schedule_the_pod(seed):
    objs = random_cluster(random.Random(seed), max_nodes=12, max_running=30, max_pending=8)
    doc = simulate(build_cluster(copy.deepcopy(objs)), explain=True, whatif=True).to_dict()
    for r in doc["results"]:
        if r["status"] != "Unschedulable":
            assert "fixes" not in r
            continue
        assert len(r["fixes"]) <= 5 and len(r["nearest"]) <= 10
        costs = [f["cost"] for f in r["fixes"]]
        assert costs == sorted(costs)
        left = _as_left(objs, doc, r["pod"])
        for fix in r["fixes"]:
            assert fix["verified"] is True
            KINDS_SEEN[fix["kind"]] += 1
            again = simulate(build_cluster(applied(left, r["pod"], fix))).to_dict()
            got = next(x for x in again["results"] if x["pod"] == r["pod"])
            assert (got["status"], got["victims"]) == ("Scheduled", []), (fix, got["message"])


def test_the_random_clusters_exercise_several_kinds_of_fix():
    if not KINDS_SEEN:
        for seed in SEEDS:
            test_every_reported_fix_makes_the_engine_schedule_the_pod(seed)
    assert len(KINDS_SEEN) >= 4, KINDS_SEEN
