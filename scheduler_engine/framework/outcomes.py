"""How a plugin's answer at each extension point becomes the runtime's status.

The framework runtime (:mod:`.runtime`) calls every plugin through one hook;
this module is what that hook and the ``run_*`` methods need to know of each
point: the shape of a plugin method's answer, what is recorded beside its
status for explanations, and upstream's wording when a plugin fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..gocompat import go_duration, go_list
from .interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE
from .status import Code, Status

__all__ = [
    "MAX_PERMIT_TIMEOUT",
    "POINTS",
    "filter_status",
    "invalid_score",
    "no_node_satisfies",
    "plugin_error",
    "rejected_or_wrapped",
    "score_failed",
    "wrap",
]

# Permit plugins may not ask to wait longer than this (upstream maxTimeout).
MAX_PERMIT_TIMEOUT = 15 * 60.0

_REJECTED = (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)


def plugin_error(exc: BaseException, plugin: str) -> Status:
    """An exception raised by a plugin: a bug, reported as an ERROR status."""
    return Status(Code.ERROR, f"{type(exc).__name__}: {exc}", plugin=plugin, error=exc)


def wrap(status: Status, fmt: str, plugin: str) -> Status:
    """Upstream's ``fmt.Errorf("running X plugin %q: %w", ...)`` around a non-rejection."""
    msg = fmt.format(plugin=plugin, msg=status.message())
    return Status(Code.ERROR, msg, plugin=plugin, error=status.error)


def rejected_or_wrapped(status: Status, fmt: str, plugin: str) -> Status:
    """A failure at Reserve, PreBind or Bind: a rejection names its plugin, the rest is wrapped."""
    if status.code in _REJECTED:
        status.plugin = plugin
        return status
    return wrap(status, fmt, plugin)


# -- what each extension point's method answers: (status, anything else) ------------
def _result_then_status(out: Any) -> tuple[Status | None, Any]:
    result, status = out
    return status, result


def _status_then_value(out: Any) -> tuple[Status | None, Any]:
    status, value = out
    return status, value


def _nothing(out: Any) -> tuple[Status | None, Any]:
    return None, None


# -- what a point records beside the status ------------------------------------------
def _pre_filter_detail(v: dict[str, Any], s: Status | None, r: Any) -> None:
    if r is not None and r.node_names is not None and not (s and s.is_skip()):
        v["nodeNames"] = sorted(r.node_names)


def _post_filter_detail(v: dict[str, Any], s: Status | None, r: Any) -> None:
    if r is not None and r.nominating_info is not None:
        v["nominatedNode"] = r.nominating_info.nominated_node_name
    if r is not None and r.victims:
        v["victims"] = [p.key for p in r.victims]


def _permit_detail(v: dict[str, Any], s: Status | None, timeout: Any) -> None:
    if s is not None and s.code == Code.WAIT:
        v["timeout"] = go_duration(min(float(timeout), MAX_PERMIT_TIMEOUT))


def filter_status(s: Status, name: str) -> Status:
    """A filter's non-success status as the runtime reports it: rejections name the plugin."""
    if s.code in _REJECTED:
        s.plugin = name
        return s
    return wrap(s, 'running "{plugin}" filter plugin: {msg}', name)


_Answer = Callable[[Any], tuple[Status | None, Any]]
_Detail = Callable[[dict[str, Any], Status | None, Any], None]
_Finish = Callable[[Status, str], Status]

# point → (how its method answers (None: a status alone), what it records beside the status,
#          how a non-success becomes the point's status before it is recorded)
POINTS: dict[str, tuple[_Answer | None, _Detail | None, _Finish | None]] = {
    "preEnqueue": (None, None, None),
    "preFilter": (_result_then_status, _pre_filter_detail, None),
    "filter": (None, None, filter_status),
    "postFilter": (_result_then_status, _post_filter_detail, None),
    "preScore": (None, None, None),
    "reserve": (None, None, None),
    "unreserve": (_nothing, None, None),
    "permit": (_status_then_value, _permit_detail, None),
    "preBind": (None, None, None),
    "bind": (None, None, None),
    "postBind": (_nothing, None, None),
}


def score_failed(what: str, name: str, s: Status) -> Status:
    return Status(
        Code.ERROR,
        f'{what}: plugin "{name}" failed with: {s.message()}',
        plugin=name,
        error=s.error,
    )


def invalid_score(name: str, bad: int) -> Status:
    return Status(
        Code.ERROR,
        "applying score defaultWeights on Score plugins: "
        f'plugin "{name}" returns an invalid score {bad}, it should in the range of '
        f"[{MIN_NODE_SCORE}, {MAX_NODE_SCORE}] after normalizing",
        plugin=name,
    )


def no_node_satisfies(plugins: set[str]) -> Status:
    names = sorted(plugins)
    if len(names) == 1:
        msg = f"node(s) didn't satisfy plugin {names[0]}"
    else:
        msg = f"node(s) didn't satisfy plugin(s) {go_list(names)} simultaneously"
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, msg)
