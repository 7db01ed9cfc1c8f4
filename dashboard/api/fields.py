"""Fields of the API's own: text that stays text, kube-scheduler's feature gates, and lists of
objects an answer carries only where they apply."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from scheduler_engine.config import FEATURE_GATES

__all__ = ["FeatureGatesField", "OptionalObjectsField", "StrictCharField", "StrictSlugField"]


class _TextOnly:
    """Text only: a number or a boolean is refused (DRF's CharField would turn it into text)."""

    def to_internal_value(self, data: object) -> Any:
        if not isinstance(data, str):
            self.fail("invalid")  # type: ignore[attr-defined]
        return super().to_internal_value(data)  # type: ignore[misc]


class StrictCharField(_TextOnly, serializers.CharField):
    pass


class StrictSlugField(_TextOnly, serializers.SlugField):
    pass


class OptionalObjectsField(serializers.ListField):
    """A list of JSON objects that only some answers carry (a nearest node's taints, a
    fix's evictions): absent where it does not apply, so not required."""

    child = serializers.DictField()

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)


_GATES_SCHEMA = {
    "type": "object",
    "properties": {name: {"type": "boolean", "default": on} for name, on in FEATURE_GATES.items()},
    "additionalProperties": False,
}


@extend_schema_field({**_GATES_SCHEMA, "nullable": True})
class FeatureGatesField(serializers.JSONField):
    """kube-scheduler's feature gates: an object of gate → true/false (or the flag's text)."""
