"""Field errors worded like apimachinery's ``field.Error``, and the label checks.

:class:`~scheduler_engine.errors.FieldError` is the one field error of the engine;
this module has the constructors configuration validation uses.

Upstream validation reports ``<path>: <Type>: <value>: <detail>``; the bodies
here carry the same wording so that a message read in Schedlab matches what
kube-scheduler would have printed for the same configuration.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import FieldError, render_value

__all__ = [
    "FieldError",
    "duplicate",
    "forbidden",
    "invalid",
    "is_dns1123_subdomain",
    "is_label_value",
    "is_qualified_name",
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


# --- label names and values (apimachinery api/validate/content) ---------------

_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_RE = re.compile(f"^{_LABEL_KEY_FMT}$")
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_LABEL_VALUE_FMT = f"({_LABEL_KEY_FMT})?"
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    shown = " or ".join(f"'{e}'" for e in examples)
    return f"{msg} (e.g. {shown}, regex used for validation is '{fmt}')"


def is_dns1123_subdomain(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 253:
        errs.append("must be no more than 253 bytes")
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        errs.append(_regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_qualified_name(value: str) -> list[str]:
    """Label key rules: an optional DNS-subdomain prefix, ``/``, a name of at most 63."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a valid label key "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part must be no more than 63 bytes")
    if not _LABEL_KEY_RE.match(name):
        errs.append(
            "name part "
            + _regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
        )
    return errs


def is_label_value(value: str) -> list[str]:
    errs = []
    if len(value.encode()) > 63:
        errs.append("must be no more than 63 bytes")
    if not _LABEL_VALUE_RE.match(value):
        errs.append(
            _regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")
        )
    return errs
