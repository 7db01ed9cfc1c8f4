"""apimachinery's name and label checks, worded as upstream words them.

Two upstream packages (kubernetes v1.36) hold them, and their messages differ
in one word: ``api/validate/content`` (label keys and values, and the DNS
subdomain prefix of a key) says a value "must be no more than N bytes";
``util/validation`` (object names: ``IsDNS1123Subdomain``, ``IsDNS1123Label``)
says "N characters". Both measure the length in bytes (Go's ``len``). Each
function returns upstream's messages, empty when the value is valid.
"""

from __future__ import annotations

import re

__all__ = [
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_label_key",
    "is_label_value",
]

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_VALUE_FMT = "(" + _KEY_FMT + ")?"
_LABEL_RE = re.compile(f"^{_LABEL_FMT}$")
_SUBDOMAIN_RE = re.compile(f"^{_SUBDOMAIN_FMT}$")
_KEY_RE = re.compile(f"^{_KEY_FMT}$")
_VALUE_RE = re.compile(f"^{_VALUE_FMT}$")

_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
    "or '.', and must start and end with an alphanumeric character"
)

# MaxLenError of util/validation and of api/validate/content
_CHARACTERS = "characters"
_BYTES = "bytes"


def _max_len(n: int, unit: str) -> str:
    return f"must be no more than {n} {unit}"


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """Upstream ``RegexError``: each example followed by ", ", joined by " or "."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _subdomain(value: str, unit: str) -> list[str]:
    errs = []
    if len(value.encode()) > 253:
        errs.append(_max_len(253, unit))
    if not _SUBDOMAIN_RE.match(value):
        errs.append(_regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """Upstream ``IsDNS1123Subdomain`` (util/validation): object names."""
    return _subdomain(value, _CHARACTERS)


def is_dns1123_label(value: str) -> list[str]:
    """Upstream ``IsDNS1123Label`` (util/validation): namespaces."""
    errs = []
    if len(value.encode()) > 63:
        errs.append(_max_len(63, _CHARACTERS))
    if not _LABEL_RE.match(value):
        if _SUBDOMAIN_RE.match(value):
            errs.append("must not contain dots")
        else:
            errs.append(_regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_label_key(value: str) -> list[str]:
    """Upstream ``IsLabelKey`` (``IsQualifiedName``): an optional DNS subdomain and ``/``."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in _subdomain(prefix, _BYTES))
    else:
        return [
            "a valid label key "
            + _regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > 63:
        errs.append("name part " + _max_len(63, _BYTES))
    if not _KEY_RE.match(name):
        errs.append("name part " + _regex_error(_KEY_MSG, _KEY_FMT, "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(value: str) -> list[str]:
    """Upstream ``IsLabelValue``."""
    errs = []
    if len(value.encode()) > 63:
        errs.append(_max_len(63, _BYTES))
    if not _VALUE_RE.match(value):
        errs.append(_regex_error(_VALUE_MSG, _VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs
