"""Explanations recorded at one hook: the runtime's per-plugin call.

One shape for everything: pod → extension point → node → plugin → value.
Extension points without a node (PreFilter, PostFilter, Reserve, Permit, ...)
use the node key ``""`` unless the call concerns a node (Reserve, Bind, ...:
the chosen node).  Values are plain JSON-able dicts:

* a status: ``{"code": "Unschedulable", "reasons": [...]}`` (``"Success"`` with
  no reasons for success; ``"plugin"`` is implied by the key);
* a score: ``{"raw": int, "normalized": int, "weighted": int}``;
* extras a point adds (PreFilter's node set, PostFilter's nominated node).

The runtime only records when a :class:`Recorder` is attached to the cycle
(``explain``), so the fast path pays nothing.
"""

from __future__ import annotations

from typing import Any

from .status import Code, Status

__all__ = ["PASSED", "Recorder", "status_value"]

_SUCCESS = {"code": "Success", "reasons": []}
# A filter that passed a node, as the filter record holds it: one value shared
# by every entry (thousands per explanation), to be read and never changed.
PASSED: dict[str, Any] = {"code": "Success", "reasons": []}


def status_value(status: Status | None) -> dict[str, Any]:
    """A status as a recorded value."""
    if status is None:
        return dict(_SUCCESS)
    out: dict[str, Any] = {"code": status.code_name, "reasons": list(status.reasons)}
    if status.code == Code.ERROR and status.error is not None:
        out["error"] = f"{type(status.error).__name__}: {status.error}"
    if status.detail:
        out["detail"] = status.detail
    return out


class Recorder:
    """Per-plugin results of one run, keyed pod → point → node → plugin → value."""

    __slots__ = ("data",)

    def __init__(self) -> None:
        self.data: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}

    def pod(self, pod_key: str) -> dict[str, dict[str, dict[str, Any]]]:
        return self.data.setdefault(pod_key, {})

    def record(self, pod_key: str, point: str, node: str, plugin: str, value: Any) -> None:
        self.data.setdefault(pod_key, {}).setdefault(point, {}).setdefault(node, {})[plugin] = value

    def get(self, pod_key: str, point: str) -> dict[str, dict[str, Any]]:
        return self.data.get(pod_key, {}).get(point, {})

    def reset_pod(self, pod_key: str) -> None:
        """Forget a pod's earlier attempt (a retried pod is explained by its last attempt)."""
        self.data.pop(pod_key, None)
