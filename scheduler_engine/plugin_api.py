"""The stable interface for scheduler plugins of one's own, written in Python.

A plugin is a class with a ``NAME`` and the methods of the extension points it
joins, exactly as the in-tree plugins are written (the protocols re-exported
here: :class:`FilterPlugin`, :class:`ScorePlugin`, ...).  Optionally:

* ``Args``: a :class:`PluginArgs` dataclass; a profile's ``pluginConfig`` args
  are checked against it (unknown fields, types, :meth:`PluginArgs.validate`)
  and the plugin is built with an instance of it;
* ``EVENTS``: the cluster events (:data:`POD_ADD`, :data:`POD_DELETE`) after
  which a pod the plugin rejected is worth retrying (default: any pod event).

Subclassing :class:`BasePlugin` gives ``pre_filter_extensions`` and
``score_extensions``, answered from the methods the plugin defines.

The class is built as ``cls(args, handle)``.  Plugins are found through the
entry-point group ``schedlab.plugins`` or named ``MODULE:CLASS`` (the CLI's
``--plugin``, the web side's ``SCHEDLAB_PLUGINS``); see ``docs/plugins.md``.
Only installed code runs: nothing a browser or API client sends is executed.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, ClassVar, get_type_hints

from .cluster import ClusterState
from .framework import interfaces
from .framework.cycle_state import CycleState
from .framework.interfaces import *  # noqa: F403  (the interfaces are the plugin API)
from .framework.interfaces import implemented_points
from .framework.node_info import NodeInfo
from .framework.status import Code, Status
from .objects import Node, Pod
from .scheduler.requeue import POD_ADD, POD_DELETE

# the interfaces' own names, and what a plugin needs beside them
__all__ = [
    *interfaces.__all__,
    "POD_ADD",
    "POD_DELETE",
    "ArgsProblem",
    "ClusterState",
    "Code",
    "CycleState",
    "Node",
    "NodeInfo",
    "PluginArgs",
    "Pod",
    "Status",
    "check_plugin_class",
    "implemented_points",
]

# (field, value, message), the shape every args check reports
ArgsProblem = tuple[str, Any, str]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _type_ok(value: Any, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin in (list, tuple) or hint in (list, tuple):
        if not isinstance(value, list | tuple):
            return False
        inner = typing.get_args(hint)
        return not inner or all(_type_ok(v, inner[0]) for v in value)
    if origin is dict or hint is dict or origin is Mapping:
        return isinstance(value, Mapping)
    return isinstance(value, hint) if isinstance(hint, type) else True


def _type_name(hint: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}
    if hint in names:
        return names[hint]
    origin = typing.get_origin(hint)
    if origin in (list, tuple):
        return "a list"
    if origin is dict:
        return "an object"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(h) for h in typing.get_args(hint) if h is not type(None))
    return getattr(hint, "__name__", str(hint))


@dataclasses.dataclass(frozen=True)
class PluginArgs:
    """Base for a plugin's typed args: subclass it as a (frozen) dataclass.

    Field names are written in snake_case and read from the profile in
    camelCase (``min_free_mib`` ↔ ``minFreeMiB`` is spelled by ``ALIASES``
    when camelCase is not enough).  Every field needs a default.  Override
    :meth:`validate` for checks beyond types; report problems, do not raise.
    """

    ALIASES: ClassVar[Mapping[str, str]] = {}

    def validate(self) -> list[ArgsProblem]:
        """(field, value, message) for each problem; field in the profile's spelling."""
        return []

    @classmethod
    def wire_name(cls, field: str) -> str:
        return cls.ALIASES.get(field, _camel(field))

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None) -> tuple[PluginArgs | None, list[ArgsProblem]]:
        """An instance from a profile's args, or the problems found (unknown fields, types)."""
        raw = dict(raw or {})
        raw.pop("apiVersion", None)
        raw.pop("kind", None)
        hints = get_type_hints(cls)
        fields = {cls.wire_name(f.name): f for f in dataclasses.fields(cls)}
        problems: list[ArgsProblem] = []
        values: dict[str, Any] = {}
        for key, value in raw.items():
            f = fields.get(key)
            if f is None:
                problems.append((key, value, f"unknown field (known: {', '.join(sorted(fields))})"))
                continue
            hint = hints.get(f.name, Any)
            if not _type_ok(value, hint):
                problems.append((key, value, f"must be {_type_name(hint)}"))
                continue
            values[f.name] = float(value) if hint is float else value
        if problems:
            return None, problems
        args = cls(**values)
        return args, args.validate()

    def to_dict(self) -> dict[str, Any]:
        return {self.wire_name(f.name): getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The args as JSON Schema (for editors), each property with its default."""
        hints = get_type_hints(cls)
        defaults = cls()
        props = {}
        for f in dataclasses.fields(cls):
            prop = _json_type(hints.get(f.name, Any))
            prop["default"] = getattr(defaults, f.name)
            props[cls.wire_name(f.name)] = prop
        return {"type": "object", "properties": props, "additionalProperties": False}


def _json_type(hint: Any) -> dict[str, Any]:
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if hint in simple:
        return {"type": simple[hint]}
    origin = typing.get_origin(hint)
    if origin in (list, tuple):
        inner = typing.get_args(hint)
        return {"type": "array", "items": _json_type(inner[0]) if inner else {}}
    if origin is dict or hint is dict:
        return {"type": "object"}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_json_type(h) for h in typing.get_args(hint)]}
    if hint is type(None):
        return {"type": "null"}
    return {}


def check_plugin_class(cls: Any, where: str) -> list[str]:
    """Why ``cls`` cannot be used as a plugin (empty when it can)."""
    if not isinstance(cls, type):
        return [f"{where} is not a class"]
    problems = []
    name = getattr(cls, "NAME", None)
    if not isinstance(name, str) or not name:
        problems.append(f"{where} has no NAME (a non-empty string)")
    if not implemented_points(cls):
        problems.append(f"{where} implements no extension point")
    args_cls = getattr(cls, "Args", None)
    if args_cls is not None and not (
        isinstance(args_cls, type) and issubclass(args_cls, PluginArgs)
    ):
        problems.append(f"{where}.Args is not a PluginArgs dataclass")
    events = getattr(cls, "EVENTS", None)
    if events is not None and not set(events) <= {POD_ADD, POD_DELETE}:
        problems.append(f"{where}.EVENTS may hold only {POD_ADD!r} and {POD_DELETE!r}")
    return problems
