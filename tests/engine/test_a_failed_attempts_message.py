"""``Attempt.failure_message``: the one wording of a failed attempt's
``FailedScheduling`` message that events, results, collisions and replay read."""

from __future__ import annotations

from scheduler_engine.framework.status import Code, Status
from scheduler_engine.scheduler.messages import Diagnosis, FitError
from scheduler_engine.scheduler.schedule_one import Attempt, AttemptStatus


def _fit_error() -> FitError:
    d = Diagnosis()
    d.node_to_status.set("n1", Status(Code.UNSCHEDULABLE, "node(s) didn't match", plugin="P"))
    return FitError("default/p", 1, d)


def test_the_fit_error_words_it_when_there_is_one() -> None:
    fe = _fit_error()
    att = Attempt(AttemptStatus.UNSCHEDULABLE, message="stale", fit_error=fe)
    assert att.failure_message == fe.error()
    assert att.failure_message.startswith("0/1 nodes are available")


def test_otherwise_the_message() -> None:
    att = Attempt(AttemptStatus.ERROR, message="no Bind plugin bound the pod")
    assert att.failure_message == "no Bind plugin bound the pod"


def test_a_compacted_attempt_keeps_the_wording() -> None:
    fe = _fit_error()
    att = Attempt(AttemptStatus.UNSCHEDULABLE, fit_error=fe)
    before = att.failure_message
    att.compact()
    assert att.failure_message == before
