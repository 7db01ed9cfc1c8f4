"""Template filters of the GPU pages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def pod_ref(key: str) -> tuple[str, str]:
    """``"ns/name"`` as (namespace, name), for reversing the pod page."""
    ns, _, name = str(key).partition("/")
    return ns, name


@register.filter
def short_id(value: str | None, keep: int = 20) -> str:
    """Long identifiers (NVLink clique ids) by their tail, where they differ."""
    text = str(value or "")
    return text if len(text) <= keep else "…" + text[-(keep - 1) :]
