"""FitError.Error() byte for byte."""

from __future__ import annotations

import pytest

from scheduler_engine.framework.interfaces import NodeToStatus
from scheduler_engine.framework.status import Status
from scheduler_engine.scheduler.messages import Diagnosis, FitError, truncate_message


def _fit(statuses, n, absent=None, pre="", post=""):
    m = NodeToStatus({k: Status.unschedulable(*v) for k, v in statuses.items()}, absent)
    return FitError("ns/p", n, Diagnosis(m, pre_filter_msg=pre, post_filter_msg=post)).error()


PREEMPT = (
    "no new claims to deallocate, preemption: 0/3 nodes are available: "
    "3 Preemption is not helpful for scheduling."
)


@pytest.mark.parametrize(
    ("statuses", "n", "absent", "pre", "post", "expected"),
    [
        (
            {
                "a": ["node(s) were unschedulable"],
                "b": ["node(s) had untolerated taint(s)"],
                "c": ["Insufficient cpu", "Insufficient memory"],
            },
            3,
            None,
            "",
            PREEMPT,
            "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
            "1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. " + PREEMPT,
        ),
        (
            {f"n{i}": ["Insufficient cpu"] for i in range(10)}
            | {"x": ["Too many pods"], "y": ["Too many pods"]},
            12,
            None,
            "",
            "",
            "0/12 nodes are available: 10 Insufficient cpu, 2 Too many pods.",
        ),
        (
            {"a": ["node(s) didn't match Pod's node affinity/selector"]},
            3,
            Status.unresolvable("node(s) didn't satisfy plugin(s) [NodeAffinity]"),
            "",
            "",
            "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
            "2 node(s) didn't satisfy plugin(s) [NodeAffinity].",
        ),
        (
            {},
            6,
            Status.unresolvable('persistentvolumeclaim "data-0" not found'),
            'persistentvolumeclaim "data-0" not found',
            "not found",
            '0/6 nodes are available: persistentvolumeclaim "data-0" not found. not found',
        ),
        ({}, 0, None, "", "", "0/0 nodes are available:"),
    ],
    ids=[
        "issue-fact-default-profile",
        "counts-sort-as-strings",
        "prefilter-absent-nodes-counted",
        "prefilter-message-replaces-histogram",
        "no-nodes",
    ],
)
def test_fit_error_message(statuses, n, absent, pre, post, expected):
    assert _fit(statuses, n, absent, pre, post) == expected


def test_upper_case_sorts_before_lower_case():
    msg = _fit({"a": ["node(s) x"], "b": ["Insufficient cpu"]}, 2)
    assert msg == "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) x."


def test_truncate_long_messages_like_events():
    assert truncate_message("x" * 1024) == "x" * 1024
    out = truncate_message("x" * 2000)
    assert len(out) == 1024 and out.endswith(" ...")
