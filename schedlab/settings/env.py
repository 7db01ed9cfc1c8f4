"""Small typed readers for settings that come from the environment.

Each helper names the variable in its error, so a bad deployment says which
variable to fix instead of failing later with a confusing type error.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection
from typing import TypeVar

__all__ = ["ImproperEnv", "env_bool", "env_float", "env_int", "env_list", "env_str", "parse_bool"]

N = TypeVar("N", int, float)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ImproperEnv(ValueError):
    """An environment variable is set to a value of the wrong shape."""


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def parse_bool(raw: str, true: Collection[str], false: Collection[str]) -> bool | None:
    """``raw``, blanks and case ignored, as True (a word of ``true``) or False (of
    ``false``); None when it is neither."""
    value = raw.strip().lower()
    return True if value in true else False if value in false else None


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = parse_bool(raw, _TRUE, _FALSE)
    if value is None:
        raise ImproperEnv(f"{name}={raw!r}: expected one of 1/0, true/false, yes/no, on/off")
    return value


def env_int(name: str, default: int) -> int:
    return _env_number(name, default, int, "an integer")


def env_float(name: str, default: float) -> float:
    return _env_number(name, default, float, "a number")


def _env_number(name: str, default: N, parse: Callable[[str], N], expected: str) -> N:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return parse(raw)
    except ValueError:
        raise ImproperEnv(f"{name}={raw!r}: expected {expected}") from None


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    """Comma-separated values; blanks dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [part.strip() for part in raw.split(",") if part.strip()]
