"""The nominated node a pending pod ends with (its ``status.nominatedNodeName``).

Upstream ``schedule_one.go`` (``handleSchedulingFailure``) passes PostFilter's
NominatingInfo to the nominator and to the status update: a nil result (the
pod is not eligible to preempt, e.g. ``preemptionPolicy: Never``) leaves the
nomination as it was (``ModeNoop``), while "no candidate" clears it
(``preemption.go`` ``Preempt`` returns ``NewPostFilterResultWithNominatedNode("")``).
A preemptor clears lower-priority pods nominated to the node it picks
(``preemption/executor.go``, ``prepareCandidate``).
"""

from __future__ import annotations

from typing import Any

import pytest

from scheduler_engine.cluster import build_cluster
from scheduler_engine.simulate import simulate

from .builders import make_node, make_pod


def _run(*items: Any) -> dict[str, dict[str, Any]]:
    doc = simulate(build_cluster([i.obj() for i in items]), seed=1).to_dict()
    return {r["pod"]: r for r in doc["results"]}


CASES = [
    (
        "non-preempting-pod-keeps-its-input-nomination",
        [
            make_node("n1").cap(cpu="2", memory="4Gi"),
            make_pod("run").priority(10).req(cpu="2").node("n1"),
            make_pod("p").priority(100).preemption_policy("Never").req(cpu="2").nominated("n1"),
        ],
        "default/p",
        (None, "n1"),
    ),
    (
        "input-nomination-cleared-when-preemption-finds-no-candidate",
        [
            make_node("n1").cap(cpu="2", memory="4Gi"),
            make_pod("run").priority(1000).req(cpu="2").node("n1"),
            make_pod("p").priority(100).req(cpu="2").nominated("n1"),
        ],
        "default/p",
        (None, None),
    ),
    (
        "input-nominated-pod-that-fits-elsewhere-binds-there",
        [
            make_node("n1").cap(cpu="2", memory="4Gi"),
            make_node("n2").cap(cpu="2", memory="4Gi"),
            make_pod("run").priority(1000).req(cpu="2").node("n1"),
            make_pod("p").priority(100).req(cpu="2").nominated("n1"),
        ],
        "default/p",
        ("n2", None),
    ),
    (
        "higher-priority-preemptor-clears-a-lower-priority-nomination",
        [
            make_node("n1").cap(cpu="2", memory="4Gi"),
            make_pod("run").priority(10).req(cpu="2").node("n1"),
            make_pod("p").priority(50).preemption_policy("Never").req(cpu="2").nominated("n1"),
            make_pod("hi").priority(1000).req(cpu="2"),
        ],
        "default/p",
        (None, None),
    ),
]


@pytest.mark.parametrize(("objs", "pod", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pending_pods_report_the_nomination_they_end_with(
    objs: list[Any], pod: str, want: tuple[str | None, str | None]
) -> None:
    r = _run(*objs)[pod]
    assert (r["node"], r["nominatedNode"]) == want
