"""The per-cycle scratchpad plugins share between extension points."""

from __future__ import annotations

from typing import Any

from .status import Code, Status

__all__ = ["CycleState", "StateData", "missing_state"]


def missing_state(key: str, verb: str = "error reading", plugin: str = "") -> Status:
    """The Error a plugin returns when what its PreFilter or PreScore stored is missing.

    ``verb`` words it as the plugin's upstream counterpart does ("error
    reading", "failed to read", "reading").
    """
    return Status(Code.ERROR, f'{verb} "{key}" from cycleState: not found', plugin=plugin)


class StateData:
    """Base for values stored in a :class:`CycleState` that preemption must copy.

    Preemption simulates removing pods on a copy of the state, so values that
    plugins mutate in ``add_pod``/``remove_pod`` must implement ``clone``.
    Values without ``clone`` are shared, which is right for read-only data.
    """

    def clone(self) -> Any:  # pragma: no cover - subclasses override
        return self


class CycleState:
    """Keyed by plugin-chosen strings, upstream style: ``"PreFilter" + name``."""

    __slots__ = ("_data", "skip_filter_plugins", "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()

    def read(self, key: str) -> Any:
        """The value, or KeyError (upstream's ErrNotFound)."""
        return self._data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def clone(self) -> CycleState:
        c = CycleState()
        c._data = {k: (v.clone() if isinstance(v, StateData) else v) for k, v in self._data.items()}
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        return c
