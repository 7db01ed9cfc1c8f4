"""The scheduling loop: queue, one pod's attempt, FailedScheduling messages."""

from __future__ import annotations

from .messages import Diagnosis, FitError, truncate_message
from .queue import ActiveQueue
from .schedule_one import Attempt, Scheduler, num_feasible_nodes_to_find

__all__ = [
    "ActiveQueue",
    "Attempt",
    "Diagnosis",
    "FitError",
    "Scheduler",
    "num_feasible_nodes_to_find",
    "truncate_message",
]
