"""Errors the services raise; the API turns them into 400/409 naming the field."""

from __future__ import annotations

__all__ = ["ApplyGuardError", "BadInput", "Cancelled", "NotCancellable"]


class BadInput(ValueError):
    """Input that cannot be used; ``errors`` maps a field path to its messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()))

    @classmethod
    def one(cls, field: str, message: str) -> BadInput:
        return cls({field: [message]})


class ApplyGuardError(BadInput):
    """Applying a version that has no successful dry-run, without an admin's force."""


class NotCancellable(ValueError):
    """The dry-run already finished."""


class Cancelled(Exception):
    """Raised from the engine's progress callback to stop a cancelled run."""
