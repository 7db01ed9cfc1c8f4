"""Finding plugins of one's own: entry points and ``MODULE:CLASS`` names.

:func:`build_registry` returns the in-tree registry plus every plugin class
installed under the entry-point group ``schedlab.plugins`` and every
``MODULE:CLASS`` given (the CLI's ``--plugin``, the web side's
``SCHEDLAB_PLUGINS``).  Each class is checked (a ``NAME``, at least one
extension point, a :class:`~scheduler_engine.plugin_api.PluginArgs` ``Args``)
and registered with a factory that parses its args and reports a constructor
that raises as a :class:`PluginError`.  Only importable, installed code is
ever loaded; nothing here evaluates text.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import InputError
from .framework.registry import Registry, default_registry
from .plugin_api import ArgsProblem, PluginArgs, check_plugin_class

__all__ = [
    "ENTRY_POINT_GROUP",
    "PluginError",
    "build_registry",
    "clear_cache",
    "load_plugin_class",
    "parse_specs",
]

ENTRY_POINT_GROUP = "schedlab.plugins"
_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class PluginError(InputError):
    """A plugin that cannot be loaded or built (names the plugin and why)."""


def parse_specs(raw: str | Iterable[str] | None) -> tuple[str, ...]:
    """``MODULE:CLASS`` names from a comma/space separated string or a list."""
    if raw is None:
        return ()
    items = re.split(r"[,\s]+", raw) if isinstance(raw, str) else list(raw)
    return tuple(s.strip() for s in items if s and s.strip())


def load_plugin_class(spec: str) -> type:
    """Import ``MODULE:CLASS`` and return the class (checked to be a usable plugin)."""
    if not _SPEC.match(spec):
        raise PluginError(f"must be MODULE:CLASS, got {spec!r}", obj=f"plugin {spec}")
    module_name, _, attr = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise PluginError(f"cannot import {module_name}: {exc}", obj=f"plugin {spec}") from None
    except Exception as exc:  # the module's own code failed while importing
        raise PluginError(
            f"importing {module_name} raised {type(exc).__name__}: {exc}", obj=f"plugin {spec}"
        ) from None
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise PluginError(f"{module_name} has no {attr}", obj=f"plugin {spec}")
    problems = check_plugin_class(obj, attr)
    if problems:
        raise PluginError("; ".join(problems), obj=f"plugin {spec}")
    return obj


def _args_check(args_cls: type[PluginArgs]) -> Any:
    def check(raw: Mapping[str, Any]) -> tuple[dict[str, Any], list[ArgsProblem]]:
        args, problems = args_cls.parse(raw)
        if args is None or problems:
            return dict(raw), problems
        return args.to_dict(), []

    return check


def _factory(cls: type, args_cls: type[PluginArgs] | None) -> Any:
    name = cls.NAME  # type: ignore[attr-defined]

    def new(raw: Mapping[str, Any], handle: Any) -> Any:
        args: Any = raw
        if args_cls is not None:
            parsed, problems = args_cls.parse(raw)
            if parsed is None or problems:
                field, value, msg = problems[0]
                raise PluginError(f"{field}: {msg} (got {value!r})", obj=f"plugin {name} args")
            args = parsed
        try:
            return cls(args, handle)
        except Exception as exc:
            raise PluginError(
                f"initializing plugin {name}: {type(exc).__name__}: {exc}", obj=f"plugin {name}"
            ) from None

    return new


def register_class(registry: Registry, cls: type, origin: str) -> None:
    name = cls.NAME  # type: ignore[attr-defined]
    if name in registry:
        raise PluginError(
            f"a plugin named {name} already exists ({registry.origins.get(name, 'in-tree')})",
            obj=f"plugin {origin}",
        )
    args_cls = getattr(cls, "Args", None)
    events = getattr(cls, "EVENTS", None)
    registry.register(
        name,
        _factory(cls, args_cls),
        cls,
        args_check=_args_check(args_cls) if args_cls is not None else None,
        events=frozenset(events) if events is not None else None,
        origin=origin,
        args_schema=args_cls.json_schema() if args_cls is not None else None,
    )


def _entry_points() -> list[tuple[str, str]]:
    return [(ep.name, ep.value) for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)]


_CACHE: dict[tuple[tuple[str, ...], bool], Registry] = {}


def clear_cache() -> None:
    """Forget built registries (after installing or removing a plugin in-process)."""
    _CACHE.clear()


def build_registry(specs: Iterable[str] = (), *, entry_points: bool = True) -> Registry:
    """In-tree plugins, installed entry points (unless ``entry_points`` is False), then ``specs``.

    Raises :class:`PluginError` for a name that does not load or clashes.  The
    result is cached per arguments (a registry is read-only once built).
    """
    key = (tuple(specs), entry_points)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    registry = default_registry()
    seen: dict[str, str] = {}
    found = _entry_points() if entry_points else []
    for ep_name, value in found:
        cls = load_plugin_class(value)
        seen[value] = f"entry point {ep_name}"
        register_class(registry, cls, f"entry point {ep_name} = {value}")
    for spec in key[0]:
        if spec in seen:
            continue  # installed and named again: the same class
        cls = load_plugin_class(spec)
        seen[spec] = spec
        register_class(registry, cls, spec)
    _CACHE[key] = registry
    return registry
