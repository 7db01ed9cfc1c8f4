"""Strict query parameters: every list endpoint reads its integers here.

A value that is not a decimal integer, or is outside the documented range,
is a 400 naming the parameter, never an OverflowError or a database error.
The same bounds go into the OpenAPI schema, so clients (and Schemathesis)
know them.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

from schedlab.settings.env import parse_bool

__all__ = [
    "ID_MAX",
    "MAX_LIMIT",
    "OFFSET_MAX",
    "StrictLimitOffsetPagination",
    "bool_param",
    "id_param",
    "id_schema",
    "int_param",
    "int_schema",
    "parse_int",
    "text_param",
]

# primary keys are 64-bit (BigAutoField)
ID_MAX = 2**63 - 1
OFFSET_MAX = 2**31 - 1
MAX_LIMIT = 1000


def parse_int(raw: Any, name: str, *, lo: int = 0, hi: int = ID_MAX) -> int:
    """``raw`` as an int in ``lo..hi``, else :class:`ValidationError` naming ``name``."""
    text = str(raw).strip()
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isdigit() or not digits.isascii() or len(digits) > 20:
        raise ValidationError({name: ["must be an integer"]})
    value = int(text)
    if value < lo or value > hi:
        raise ValidationError({name: [f"must be between {lo} and {hi}"]})
    return value


def int_param(
    request: Request, name: str, default: int | None = None, *, lo: int = 0, hi: int = ID_MAX
) -> int:
    """The integer query parameter ``name`` (``default`` when absent; required without one).

    Present but empty (``?limit=``) is not an integer: 400.
    """
    raw = request.query_params.get(name)
    if raw is None:
        if default is None:
            raise ValidationError({name: ["this query parameter is required"]})
        return default
    return parse_int(raw, name, lo=lo, hi=hi)


_TRUE = ("1", "true", "yes")
_FALSE = ("0", "false", "no")


def text_param(request: Request, name: str, *, max_length: int = 1024) -> str:
    """A text query parameter ("" when absent); NUL characters (which PostgreSQL
    text cannot hold) or more than ``max_length`` characters are a 400."""
    raw = request.query_params.get(name, "")
    if "\x00" in raw:
        raise ValidationError({name: ["must not contain NUL characters"]})
    if len(raw) > max_length:
        raise ValidationError({name: [f"must be at most {max_length} characters"]})
    return raw


def bool_param(request: Request, name: str) -> bool:
    """A boolean query parameter: true/false (1/0, yes/no); absent is false."""
    raw = request.query_params.get(name)
    if raw is None:
        return False
    value = parse_bool(raw, _TRUE, _FALSE)
    if value is None:
        raise ValidationError({name: ["must be true or false"]})
    return value


def id_param(request: Request, name: str) -> int | None:
    """An optional object id filter (``?cluster=3``): None when absent."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    return parse_int(raw, name, lo=1)


def id_schema(name: str, description: str = "", *, required: bool = False) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        {"type": "integer", "minimum": 1, "maximum": ID_MAX},
        required=required,
        description=description,
    )


def int_schema(name: str, lo: int, hi: int, description: str = "") -> OpenApiParameter:
    return OpenApiParameter(
        name, {"type": "integer", "minimum": lo, "maximum": hi}, description=description
    )


class StrictLimitOffsetPagination(LimitOffsetPagination):
    """``limit`` 1..1000 (default 100) and ``offset`` 0..2**31-1; anything else is a 400."""

    max_limit = MAX_LIMIT

    def get_limit(self, request: Request) -> int:
        return int_param(request, self.limit_query_param, self.default_limit, lo=1, hi=MAX_LIMIT)

    def get_offset(self, request: Request) -> int:
        return int_param(request, self.offset_query_param, 0, lo=0, hi=OFFSET_MAX)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": self.limit_query_param,
                "required": False,
                "in": "query",
                "description": f"Number of results to return per page (1..{MAX_LIMIT}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
            },
            {
                "name": self.offset_query_param,
                "required": False,
                "in": "query",
                "description": "The initial index from which to return the results.",
                "schema": {"type": "integer", "minimum": 0, "maximum": OFFSET_MAX},
            },
        ]
