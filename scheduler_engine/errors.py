"""Errors the engine reports to its callers.

Expected outcomes of scheduling are statuses, never exceptions; these are for
input that cannot be used at all (a snapshot or a configuration that does not
parse).  Each names the file, the object and the field so that a user can fix
it without reading a traceback.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["ConfigError", "FieldError", "InputError", "render_value"]

_OMIT: Any = object()


def render_value(value: Any) -> str:
    """How ``field.Error`` prints a bad value: plain numbers, quoted strings, JSON otherwise."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class FieldError(ValueError):
    """One bad field: where (an upstream-style path) and why.

    Worded like apimachinery's ``field.Error``: ``<path>: <kind>[: <value>][:
    <detail>]``, where ``kind`` is "Invalid value", "Required value", ... or
    a whole message.  Object parsers raise it (the caller adds file and
    object); configuration validation collects them.
    """

    def __init__(self, field: str, kind: str, detail: str = "", value: Any = _OMIT) -> None:
        self.field = field
        self.kind = kind
        self.detail = detail
        self.value = value
        super().__init__(str(self))

    @property
    def message(self) -> str:
        """What is wrong with the field, without the field."""
        return self.body()

    def body(self) -> str:
        s = self.kind
        if self.value is not _OMIT:
            s += ": " + render_value(self.value)
        if self.detail:
            s += ": " + self.detail
        return s

    def __str__(self) -> str:
        return f"{self.field}: {self.body()}" if self.field else self.body()

    def _key(self) -> tuple[Any, ...]:
        value = None if self.value is _OMIT else render_value(self.value)
        return (self.field, self.kind, self.detail, self.value is _OMIT, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldError):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


class InputError(ValueError):
    """A snapshot object (or file) that the engine cannot use."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        obj: str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.obj = obj
        self.field = field
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """``FILE: KIND ns/name: field: message`` with the parts that are known."""
        parts = [p for p in (self.file, self.obj, self.field) if p]
        return ": ".join([*parts, self.message])

    def with_file(self, file: str) -> InputError:
        if self.file:
            return self
        return type(self)(self.message, file=file, obj=self.obj, field=self.field)


class ConfigError(InputError):
    """A KubeSchedulerConfiguration that upstream validation would reject."""
