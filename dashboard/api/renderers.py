"""A JSON renderer for large plain answers: orjson, byte for byte what DRF's renderer writes.

An explanation at 5,000 nodes is a 1.4 MB document (every node's record);
``json.dumps`` through DRF's encoder took 66 to 68 ms of CPU for it, orjson 6 ms
and the check below 10 to 25 ms more (37 ms in all, ``benchmarks/explain_warm.py``).
Used where the data is the engine's plain JSON (dicts, lists, strings,
numbers); anything orjson does not write exactly as DRF would (floats in
exponent notation, integers beyond 64 bits, non-string keys, other types)
goes to DRF's renderer, so the bytes sent are the same either way (one
exception: a NaN is written as null where DRF's strict JSON would fail).
"""

from __future__ import annotations

import re
from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.settings import api_settings

__all__ = ["FastJSONRenderer", "fast_json_renderers"]

# orjson writes 1e-7 where json writes 1e-07; DRF escapes U+2028/U+2029
_DIFFERS = re.compile(rb"[0-9][eE]|\xe2\x80[\xa8\xa9]")
# types orjson writes its own way: left to DRF's encoder (TypeError here)
_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class FastJSONRenderer(JSONRenderer):
    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: dict[str, Any] | None = None,
    ) -> bytes:
        indent = self.get_indent(accepted_media_type, renderer_context or {})
        if data is None or indent or not self.compact or self.ensure_ascii:
            return super().render(data, accepted_media_type, renderer_context)
        try:
            out = orjson.dumps(data, option=_PASSTHROUGH)
        except (TypeError, orjson.JSONEncodeError):
            return super().render(data, accepted_media_type, renderer_context)
        if _DIFFERS.search(out):
            return super().render(data, accepted_media_type, renderer_context)
        return out


def fast_json_renderers() -> list[type]:
    """The API's renderers with DRF's JSON renderer replaced by this one."""
    return [
        FastJSONRenderer if r is JSONRenderer else r for r in api_settings.DEFAULT_RENDERER_CLASSES
    ]
