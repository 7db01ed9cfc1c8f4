"""A pod that preempts keeps, beside its victims, why no node fit before they left.

The attempt that preempts fails (upstream's ``FitError``: "0/N nodes are
available: ...") and PostFilter nominates a node; once the victims are gone
the pod is tried again and explained by that last attempt, which looks at the
nominated node only. ``beforePreemption`` keeps the failed attempt's message
and each node's filter failures, its filter pass kept aside unbuilt until the
result is read.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from scheduler_engine import build_cluster, simulate
from scheduler_engine.framework.recorder import LazyFilters, Recorder
from tests.engine.builders import cluster_objects, make_node, make_pod
from tests.engine.gangs import test_coscheduling as cosched
from tests.engine.gangs.helpers import GANG_GATES, member, native_pod_group
from tests.engine.randomgen import random_cluster


def _cluster() -> Any:
    return build_cluster(
        [
            make_node("n1").cap(cpu="2", memory="4Gi").obj(),
            make_node("n2").cap(cpu="1", memory="4Gi").obj(),
            make_pod("low").priority(10).req(cpu="2").node("n1").obj(),
            make_pod("high").priority(1000).req(cpu="2").obj(),
        ]
    )


def _high(**kw: Any) -> dict[str, Any]:
    doc = simulate(_cluster(), seed=1, explain=True, **kw).to_dict()
    return next(r for r in doc["results"] if r["pod"] == "default/high")


def test_the_preempting_attempt_is_kept_beside_the_victims() -> None:
    high = _high()
    assert high["status"] == "Scheduled" and high["node"] == "n1"
    assert high["victims"] == ["default/low"]
    # the last attempt saw the nominated node only, and it fit
    assert high["filterFailures"] == {} and high["allFilterFailures"] == {}
    before = high["beforePreemption"]
    assert before["message"] == high["events"][0]["message"]
    assert before["message"].startswith("0/2 nodes are available: 2 Insufficient cpu.")
    assert before["nominatedNode"] == "n1"
    insufficient = {"plugin": "NodeResourcesFit", "reason": "Insufficient cpu"}
    assert before["filterFailures"] == {"n1": insufficient, "n2": insufficient}
    assert before["allFilterFailures"] == {"n1": [insufficient], "n2": [insufficient]}


def test_a_pod_still_at_its_preempting_attempt_says_it_in_its_own_keys() -> None:
    high = _high(max_rounds=1)
    assert high["status"] == "Unschedulable" and high["nominatedNode"] == "n1"
    assert set(high["allFilterFailures"]) == {"n1", "n2"}
    assert "beforePreemption" not in high


def test_without_explaining_nothing_is_kept() -> None:
    doc = simulate(_cluster(), seed=1).to_dict()
    high = next(r for r in doc["results"] if r["pod"] == "default/high")
    assert high["node"] == "n1" and "beforePreemption" not in high


@pytest.mark.parametrize("lazy", [True, False])
def test_the_kept_attempt_is_built_only_when_read(
    lazy: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    shared = LazyFilters.shared

    def counted(self: LazyFilters, j: int) -> dict[str, Any]:
        built.append(j)
        return shared(self, j)

    monkeypatch.setattr(LazyFilters, "shared", counted)
    monkeypatch.setattr(Recorder, "LAZY", lazy)
    read = Recorder.kept_filters
    seen: list[int] = []

    def kept_filters(self: Recorder, pod_key: str) -> Any:
        seen.append(len(built))
        return read(self, pod_key)

    monkeypatch.setattr(Recorder, "kept_filters", kept_filters)
    high = _high()
    assert set(high["beforePreemption"]["filterFailures"]) == {"n1", "n2"}
    assert seen == [0]  # nothing of the kept pass was built before the result read it
    assert len(built) == (2 if lazy else 0)


def _failures_of(recorded: dict[str, Any]) -> dict[str, list[dict[str, str]]]:
    """Each node's failing filters, read off the filter record one node and plugin at a time."""
    every: dict[str, list[dict[str, str]]] = {}
    for node, per_plugin in recorded.items():
        for pl, v in per_plugin.items():
            if v["code"] != "Success":
                fail = {"plugin": pl, "reason": ", ".join(v["reasons"])}
                if v.get("detail"):
                    fail["detail"] = v["detail"]
                every.setdefault(node, []).append(fail)
    return every


@pytest.mark.parametrize("seed", range(6))
def test_failures_shared_by_nodes_rejected_alike_are_each_nodes_own(seed: int) -> None:
    """Nodes rejected by one shared status share one failure; each still reads its own."""
    objs = random_cluster(random.Random(5000 + seed), max_nodes=8, max_running=45, max_pending=30)
    seen = 0
    for r in simulate(build_cluster(objs), seed=seed, explain=True).results:
        # nodes PreFilter ruled out have no record: the failure of every such node
        recorded = (r.record or {}).get("filter", {})
        every = {n: f for n, f in (r.all_filter_failures or {}).items() if n in recorded}
        assert every == _failures_of(recorded), r.pod
        assert r.filter_failures is not None
        assert all(r.filter_failures[n] == f[0] for n, f in every.items())
        seen += len(every)
    assert seen


# -- members of a group ------------------------------------------------------------------

INSUFFICIENT = {"plugin": "NodeResourcesFit", "reason": "Insufficient cpu"}
NO_ROOM = "0/2 nodes are available: 2 Insufficient cpu."


def _gang(low_on: list[int], coscheduling: bool) -> dict[str, dict[str, Any]]:
    """Two 3-cpu members of one gang over two 4-cpu nodes; a 3-cpu low-priority pod
    runs on each node of ``low_on``."""
    objs = [make_node(f"n{i}").cap(cpu="4", memory="8Gi").zone("z1") for i in range(2)]
    objs += [make_pod(f"low{i}").req(cpu="3").priority(1).node(f"n{i}") for i in low_on]
    if coscheduling:
        gang = [m.priority(100) for m in cosched.members("g", 2)]
        cluster = build_cluster(cluster_objects(*objs, *gang, cosched.pod_group("g", 2)))
        doc = simulate(cluster, cosched.CONFIG, registry=cosched.REGISTRY, explain=True)
    else:
        gang = [member(f"g-{i}", "g").req(cpu="3").priority(100) for i in range(2)]
        cluster = build_cluster(cluster_objects(*objs, *gang, native_pod_group("g", 2)))
        doc = simulate(cluster, feature_gates=GANG_GATES, explain=True)
    return {r["pod"]: r for r in doc.to_dict()["results"]}


@pytest.mark.parametrize("coscheduling", [False, True])
def test_each_member_that_preempted_keeps_its_own_attempt(coscheduling: bool) -> None:
    rs = _gang([0, 1], coscheduling)
    for i in range(2):
        r = rs[f"default/g-{i}"]
        assert (r["status"], r["node"], r["victims"]) == ("Scheduled", f"n{i}", [f"default/low{i}"])
        before = r["beforePreemption"]
        assert before["message"] == r["events"][0]["message"] == NO_ROOM
        assert before["nominatedNode"] == f"n{i}"
        assert before["filterFailures"] == {"n0": INSUFFICIENT, "n1": INSUFFICIENT}


@pytest.mark.parametrize("coscheduling", [False, True])
def test_a_member_that_fit_and_waited_on_the_others_preemption_preempted_nothing(
    coscheduling: bool,
) -> None:
    rs = _gang([1], coscheduling)
    waited, preempted = rs["default/g-0"], rs["default/g-1"]
    assert (waited["status"], waited["node"], waited["victims"]) == ("Scheduled", "n0", [])
    # a native group nominates it to the node it fit while the other's victims leave
    assert "beforePreemption" not in waited
    assert preempted["victims"] == ["default/low1"]
    assert preempted["beforePreemption"]["message"] == NO_ROOM
    assert preempted["beforePreemption"]["nominatedNode"] == "n1"
