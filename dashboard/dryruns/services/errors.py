"""Errors the services raise; the API turns them into 400/409 naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dashboard.cluster.kube import KubeApiError, KubeConfigError, KubeError, KubeUnreachable

__all__ = [
    "ApplyGuardError",
    "BadInput",
    "Cancelled",
    "ConfigMapWriteError",
    "NotCancellable",
    "mappings",
]


class BadInput(ValueError):
    """Input that cannot be used; ``errors`` maps a field path to its messages."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{k}: {', '.join(v)}" for k, v in errors.items()))

    @classmethod
    def one(cls, field: str, message: str) -> BadInput:
        return cls({field: [message]})

    @classmethod
    def many(cls, problems: list[tuple[str, str]], total: int) -> BadInput:
        """Up to the first N (field, message) problems of ``total``; beyond them, a count."""
        errors: dict[str, list[str]] = {}
        for field, message in problems:
            errors.setdefault(field, []).append(message)
        if total > len(problems):
            errors["non_field_errors"] = [
                f"{total} problems in all; the first {len(problems)} are listed"
            ]
        return cls(errors)


def mappings(
    items: list[Any], field: str, message: str
) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Each item of the list ``field``, its index and its path ``field[i]``; the first
    that is not a mapping raises :class:`BadInput` with ``message``."""
    for i, item in enumerate(items):
        where = f"{field}[{i}]"
        if not isinstance(item, dict):
            raise BadInput.one(where, message)
        yield i, where, item


class ApplyGuardError(BadInput):
    """Applying a version that has no successful dry-run, without an admin's force."""


class NotCancellable(ValueError):
    """The dry-run already finished."""


class Cancelled(Exception):
    """Raised from the engine's progress callback to stop a cancelled run."""


class ConfigMapWriteError(Exception):
    """Applying needed a ConfigMap write and the cluster refused it or could not be reached.

    ``application`` is the recorded (failed, inactive) row; ``upstream`` is True
    when the cluster could not be reached or answered with a server error
    (the API says 502), False when it refused the write (403, conflict: 409).
    """

    def __init__(self, application: Any, error: KubeError) -> None:
        super().__init__(application.error or str(error))
        self.application = application
        self.error = error
        self.upstream = isinstance(error, KubeUnreachable | KubeConfigError) or (
            isinstance(error, KubeApiError) and error.code >= 500
        )
