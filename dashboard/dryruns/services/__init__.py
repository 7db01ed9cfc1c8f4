"""Writes for profiles and dry-runs; every change to their state goes through here."""

from __future__ import annotations

from .errors import ApplyGuardError, BadInput, Cancelled, ConfigMapWriteError, NotCancellable

__all__ = [
    "ApplyGuardError",
    "BadInput",
    "Cancelled",
    "ConfigMapWriteError",
    "NotCancellable",
]
