"""Field errors worded like apimachinery's ``field.Error``.

:class:`~scheduler_engine.errors.FieldError` is the one field error of the engine;
this module has the constructors configuration validation uses.

Upstream validation reports ``<path>: <Type>: <value>: <detail>``; the bodies
here carry the same wording so that a message read in Schedlab matches what
kube-scheduler would have printed for the same configuration.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import FieldError, render_value

__all__ = [
    "FieldError",
    "duplicate",
    "forbidden",
    "invalid",
    "not_supported",
    "render_value",
    "required",
]


def invalid(path: str, value: Any, detail: str) -> FieldError:
    return FieldError(path, "Invalid value", detail, value)


def required(path: str, detail: str = "") -> FieldError:
    return FieldError(path, "Required value", detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(path, "Forbidden", detail)


def duplicate(path: str, value: Any) -> FieldError:
    return FieldError(path, "Duplicate value", "", value)


def not_supported(path: str, value: Any, supported: list[str]) -> FieldError:
    listed = ", ".join(json.dumps(s) for s in supported)
    return FieldError(path, "Unsupported value", f"supported values: {listed}", value)
