"""A pod that preempts keeps, beside its victims, why no node fit before they left.

The attempt that preempts fails (upstream's ``FitError``: "0/N nodes are
available: ...") and PostFilter nominates a node; once the victims are gone
the pod is tried again and explained by that last attempt, which looks at the
nominated node only. ``beforePreemption`` keeps the failed attempt's message
and each node's filter failures, its filter pass kept aside unbuilt until the
result is read.
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine import build_cluster, simulate
from scheduler_engine.framework.recorder import LazyFilters, Recorder
from tests.engine.builders import make_node, make_pod


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
    values = LazyFilters.values

    def counted(self: LazyFilters, j: int) -> dict[str, Any]:
        built.append(j)
        return values(self, j)

    monkeypatch.setattr(LazyFilters, "values", counted)
    monkeypatch.setattr(Recorder, "LAZY", lazy)
    read = Recorder.kept_record
    seen: list[int] = []

    def kept_record(self: Recorder, pod_key: str) -> Any:
        seen.append(len(built))
        return read(self, pod_key)

    monkeypatch.setattr(Recorder, "kept_record", kept_record)
    high = _high()
    assert set(high["beforePreemption"]["filterFailures"]) == {"n1", "n2"}
    assert seen == [0]  # nothing of the kept pass was built before the result read it
    assert len(built) == (2 if lazy else 0)
