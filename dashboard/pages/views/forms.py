"""Form fields several pages' forms share, parsed the same way."""

from __future__ import annotations

from django.http import HttpRequest

from dashboard import conf
from scheduler_engine.cascade import MAX_CASCADE_DEPTH
from scheduler_engine.config import FEATURE_GATES

__all__ = [
    "DEPTH_MESSAGE",
    "cascade_depth_param",
    "cascade_max_depth",
    "deployment_gates",
    "gates_text",
]

DEPTH_MESSAGE = "must be a whole number (empty: do not follow the cascade)"


def cascade_depth_param(request: HttpRequest) -> int | None:
    """The posted ``cascade_depth`` (empty: 0); None when it is not a whole number.

    Its range is checked by the service, which names the setting that bounds it.
    """
    raw = request.POST.get("cascade_depth", "").strip()
    if not raw:
        return 0
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 6:
        return None
    return int(raw)


def cascade_max_depth() -> int:
    """The deepest cascade a dry-run form may ask for (``SCHEDLAB_CASCADE_MAX_DEPTH``)."""
    return min(conf.cascade_max_depth(), MAX_CASCADE_DEPTH)


def gates_text(gates: dict[str, bool] | None) -> str:
    """``--feature-gates`` text of the gates that differ from v1.36's defaults ("" if none)."""
    given = gates or {}
    return ",".join(
        f"{name}={'true' if given[name] else 'false'}"
        for name, default in FEATURE_GATES.items()
        if name in given and given[name] != default
    )


def deployment_gates() -> str:
    """The deployment's feature gates (``SCHEDLAB_FEATURE_GATES``) as a dry-run form shows them."""
    return gates_text(conf.feature_gates())
