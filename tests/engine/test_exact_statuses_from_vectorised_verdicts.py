"""When no node fits, each node's exact status is found by calling only the filters
its vectorised verdicts do not pass (``FilterLoop.find_nodes_that_pass_filters``).

The per-node paths (``batch=False``) call every filter in order; both must
write the same documents (messages, nominations, victims, events) on crowded
random clusters, where pods are turned down everywhere while other pods are
nominated (so the quick vectorised diagnosis does not apply).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.framework.runtime import Framework
from scheduler_engine.simulate import simulate
from tests.engine.randomgen import random_cluster


def document(objs: list[dict[str, Any]], seed: int, *, batch: bool) -> str:
    doc = simulate(build_cluster(objs), seed=seed, batch=batch).to_dict()
    for k in ("seconds", "podsPerSecond"):
        doc["summary"].pop(k)
    return json.dumps(doc, sort_keys=True)


@pytest.mark.parametrize("seed", range(16))
def test_verdicts_and_per_node_filters_report_alike(seed: int) -> None:
    objs = random_cluster(random.Random(3000 + seed), max_nodes=8, max_running=40, max_pending=30)
    assert document(objs, seed, batch=True) == document(objs, seed, batch=False)


def test_the_verdicts_are_used_when_nominated_pods_exist() -> None:
    # some seed of the crowded kind reaches the path: count the calls that carry verdicts
    used: list[int] = []
    original = Framework._filter_node

    def spy(self: Framework, *args: Any, **kw: Any) -> Any:
        if len(args) > 4 and args[4] is not None:
            used.append(1)
        return original(self, *args, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Framework, "_filter_node", spy)
        for seed in range(16):
            objs = random_cluster(
                random.Random(3000 + seed), max_nodes=8, max_running=40, max_pending=30
            )
            document(objs, seed, batch=True)
    assert used
