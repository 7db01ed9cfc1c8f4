"""Template filters of the GPU pages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def pod_ref(key: str) -> tuple[str, str]:
    """``"ns/name"`` as (namespace, name), for reversing the pod page."""
    ns, _, name = str(key).partition("/")
    return ns, name
