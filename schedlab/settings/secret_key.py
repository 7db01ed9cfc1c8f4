"""Why a ``SECRET_KEY`` is unfit for production, or ``None`` when it is fit.

Django's own deployment check (``security.W009``) only warns; production
settings refuse to start instead, so a forgotten placeholder never signs a
session. The thresholds are Django's.
"""

from __future__ import annotations

from django.core.checks.security.base import (
    SECRET_KEY_INSECURE_PREFIX,
    SECRET_KEY_MIN_LENGTH,
    SECRET_KEY_MIN_UNIQUE_CHARACTERS,
)

__all__ = ["GENERATE_HINT", "weak_secret_key_reason"]

GENERATE_HINT = "generate one with: python -c 'import secrets; print(secrets.token_urlsafe(50))'"


def weak_secret_key_reason(key: str, known_defaults: frozenset[str] = frozenset()) -> str | None:
    if not key:
        return "is not set"
    if key in known_defaults:
        return "is a published default"
    if key.startswith(SECRET_KEY_INSECURE_PREFIX):
        return f"starts with {SECRET_KEY_INSECURE_PREFIX!r} (made by startproject for development)"
    if len(key) < SECRET_KEY_MIN_LENGTH:
        return f"has {len(key)} characters (at least {SECRET_KEY_MIN_LENGTH} needed)"
    if len(set(key)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS:
        return (
            f"has {len(set(key))} distinct characters "
            f"(at least {SECRET_KEY_MIN_UNIQUE_CHARACTERS} needed)"
        )
    return None
