"""Reading Kubernetes objects out of snapshot files.

A snapshot is a YAML or JSON file (a ``kind: List``, several YAML documents,
or a single object), or a directory of such files, exactly as
``kubectl get -o yaml`` prints them.  This module only turns files into plain
dicts; interpreting them is the job of :mod:`scheduler_engine.snapshot`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError

__all__ = [
    "MAX_DEPTH",
    "MAX_YAML_ALIASES",
    "check_depth",
    "load_json",
    "object_ref",
    "parse_documents",
    "read_objects",
]

_SUFFIXES = (".yaml", ".yml", ".json")

# Aliases make "billion laughs" documents possible; real kubectl output has none.
MAX_YAML_ALIASES = 100

# Deepest nesting of mappings and lists accepted in a document: a Pod as
# ``kubectl get -o yaml`` prints it inside a ``kind: List`` is about 12 deep.
MAX_DEPTH = 100


def check_depth(value: Any, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`InputError` when ``value`` nests mappings/lists deeper than ``limit``.

    Iterative, so that it cannot itself run out of stack.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            raise InputError(f"nested deeper than {limit} levels")
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


def _too_deep(limit: int = MAX_DEPTH) -> InputError:
    return InputError(f"nested deeper than {limit} levels")


def load_json(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` that refuses nesting deeper than ``limit`` with :class:`InputError`.

    Malformed JSON still raises :class:`json.JSONDecodeError`.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        raise _too_deep(limit) from None
    check_depth(value, limit)
    return value


class _SafeLoader(yaml.SafeLoader):
    """SafeLoader that refuses alias bombs."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._alias_count = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._alias_count += 1
            if self._alias_count > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} YAML aliases")
        return super().compose_node(parent, index)


# CLoader is much faster on large snapshots; alias counting needs the Python one.
try:
    from yaml import CSafeLoader as _FastLoader
except ImportError:  # pragma: no cover - libyaml missing
    _FastLoader = _SafeLoader  # type: ignore[misc,assignment]


def object_ref(obj: dict[str, Any]) -> str:
    """``Kind ns/name`` (or ``Kind name``) for error messages."""
    kind = obj.get("kind") or "object"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = meta.get("name") or "<unnamed>"
    ns = meta.get("namespace")
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"


def _flatten(doc: Any, where: str) -> Iterator[dict[str, Any]]:
    if doc is None:
        return
    if not isinstance(doc, dict):
        raise InputError("expected a Kubernetes object (a mapping)", obj=where)
    kind = doc.get("kind")
    if isinstance(kind, str) and kind.endswith("List") and "items" in doc:
        items = doc.get("items") or []
        if not isinstance(items, list):
            raise InputError("must be a list", obj=f"{kind}", field="items")
        for i, item in enumerate(items):
            yield from _flatten(item, f"{kind} items[{i}]")
        return
    yield doc


def parse_documents(text: str, *, source: str = "<input>") -> list[dict[str, Any]]:
    """Parse JSON or (multi-document) YAML text into a flat list of objects."""
    stripped = text.lstrip()
    try:
        if stripped.startswith(("{", "[")):
            try:
                raw: list[Any] = [json.loads(text)]
            except json.JSONDecodeError:
                raw = _load_yaml(text)
        else:
            raw = _load_yaml(text)
    except RecursionError:
        raise InputError(_too_deep().message, file=source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"not valid YAML{at}: {problem}", file=source) from None
    try:
        check_depth(raw, MAX_DEPTH + 1)  # raw is the list of documents
    except InputError:
        raise InputError(_too_deep().message, file=source) from None
    out: list[dict[str, Any]] = []
    for doc in raw:
        if isinstance(doc, list):
            for i, item in enumerate(doc):
                out.extend(_flatten(item, f"[{i}]"))
        else:
            out.extend(_flatten(doc, "document"))
    return out


def _load_yaml(text: str) -> list[Any]:
    loader = _SafeLoader if "*" in text else _FastLoader
    return list(yaml.load_all(text, Loader=loader))


def read_objects(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every object in a snapshot file or directory, in file order.

    Directories are read recursively in sorted order; only ``.yaml``, ``.yml``
    and ``.json`` files are considered.
    """
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in _SUFFIXES)
        if not files:
            raise InputError("directory has no .yaml, .yml or .json files", file=str(p))
    elif p.exists():
        files = [p]
    else:
        raise InputError("no such file or directory", file=str(p))
    objects: list[dict[str, Any]] = []
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read: {exc}", file=str(f)) from None
        try:
            objects.extend(parse_documents(text, source=str(f)))
        except InputError as exc:
            raise exc.with_file(str(f)) from None
    return objects
