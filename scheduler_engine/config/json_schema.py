"""The v1 configuration's decoding schema as JSON Schema, and what a profile may name.

For editors: completion of field names, plugin names, extension points and
``pluginConfig`` args. Built from the same tables the strict decoder
(:mod:`.schema`) and the registry use, so it cannot drift from what validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .schema import ARGS_SCHEMAS, CONFIG_SCHEMA, PLUGIN_SET_FIELDS

__all__ = ["config_json_schema", "editor_schema"]

_LEAVES = {
    "int32": {"type": "integer", "format": "int32"},
    "int64": {"type": "integer", "format": "int64"},
    "float32": {"type": "number"},
    "bool": {"type": "boolean"},
    "string": {"type": "string"},
    "duration": {"type": "string", "format": "duration", "examples": ["15s", "1m30s"]},
    "any": {},
}


def _convert(t: Any) -> dict[str, Any]:
    if isinstance(t, str):
        return dict(_LEAVES.get(t, {}))
    if isinstance(t, tuple) and len(t) == 2 and t[0] == "list":
        return {"type": "array", "items": _convert(t[1])}
    if isinstance(t, tuple) and len(t) == 2 and t[0] == "map":
        return {"type": "object", "additionalProperties": _convert(t[1])}
    if isinstance(t, Mapping):
        return {
            "type": "object",
            "properties": {k: _convert(v) for k, v in t.items()},
            "additionalProperties": False,
        }
    return {}


def config_json_schema() -> dict[str, Any]:
    """``KubeSchedulerConfiguration`` (v1) as a JSON Schema (draft 2020-12)."""
    schema = _convert(CONFIG_SCHEMA)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)"
    return schema


def editor_schema(capabilities: Mapping[str, frozenset[str]]) -> dict[str, Any]:
    """The schema, the plugins (name → extension points) and each plugin's args schema."""
    return {
        "schema": config_json_schema(),
        "extensionPoints": list(PLUGIN_SET_FIELDS),
        "plugins": {name: sorted(points) for name, points in sorted(capabilities.items())},
        "pluginArgs": {name: _convert(t) for name, t in sorted(ARGS_SCHEMAS.items())},
    }
