"""Small template helpers for the dashboard pages."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django import template

register = template.Library()


@register.filter
def millicores(value: int | None) -> str:
    """``2500`` → ``2.5``; CPU in cores as people read it."""
    if not value:
        return "0"
    return f"{value / 1000:g}"


@register.filter
def gib(value: int | None) -> str:
    """Bytes → GiB with one decimal."""
    if not value:
        return "0"
    return f"{value / 2**30:.1f}"


@register.filter
def percent(part: int | None, whole: int | None) -> str:
    if not whole:
        return "—"
    return f"{100 * (part or 0) / whole:.0f}%"


@register.filter
def json_attr(value: Any) -> str:
    """JSON for an HTML attribute (autoescaping then quotes it)."""
    return json.dumps(value, sort_keys=True)


@register.simple_tag
def querystring_with(query: dict[str, str], **extra: Any) -> str:
    """The page's filters plus ``extra`` (e.g. ``page=2``) as a query string."""
    merged = {**query, **{k: v for k, v in extra.items() if v not in (None, "")}}
    return urlencode(merged)


@register.filter
def get_item(mapping: dict, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, dict) else None
