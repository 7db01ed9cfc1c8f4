"""The error parsers raise internally; the object parsers add file and object."""

from __future__ import annotations

__all__ = ["FieldError"]


class FieldError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")
