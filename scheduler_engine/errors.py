"""Errors the engine reports to its callers.

Expected outcomes of scheduling are statuses, never exceptions; these are for
input that cannot be used at all (a snapshot or a configuration that does not
parse).  Each names the file, the object and the field so that a user can fix
it without reading a traceback.
"""

from __future__ import annotations

__all__ = ["ConfigError", "InputError"]


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
