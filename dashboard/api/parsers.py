"""The API's one request parser: JSON, with a size cap per endpoint and a depth limit.

Every endpoint reads at most its cap (``body_limit`` of the view, else
``SCHEDLAB_MAX_REQUEST_BYTES``) before parsing anything, and refuses bodies
nested deeper than :data:`scheduler_engine.documents.MAX_DEPTH` levels: both
answer 400 naming ``body``, never a 500 or a process that grows without bound.
"""

from __future__ import annotations

import json
from typing import IO, Any

from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser

from dashboard import conf
from scheduler_engine.documents import load_json
from scheduler_engine.errors import InputError

__all__ = ["LimitedJSONParser", "body_limit"]


def body_limit(view: Any) -> int:
    """The largest body (bytes) ``view`` accepts: its ``body_limit()`` or the default."""
    limit = getattr(view, "body_limit", None)
    return int(limit()) if callable(limit) else conf.max_request_bytes()


class LimitedJSONParser(JSONParser):
    def parse(
        self,
        stream: IO[bytes] | None,
        media_type: str | None = None,
        parser_context: dict[str, Any] | None = None,
    ) -> Any:
        context = parser_context or {}
        limit = body_limit(context.get("view"))
        request = context.get("request")
        length = (request.META.get("CONTENT_LENGTH") or "") if request is not None else ""
        if length.isdigit() and int(length) > limit:
            raise _too_big(limit)
        data = stream.read(limit + 1) if stream is not None else b""
        if len(data) > limit:
            raise _too_big(limit)
        try:
            return load_json(data.decode(context.get("encoding") or "utf-8"))
        except InputError as exc:
            raise ValidationError({"body": [exc.message]}) from None
        except (ValueError, json.JSONDecodeError) as exc:
            raise ValidationError({"body": [f"not valid JSON: {exc}"]}) from None


def _too_big(limit: int) -> ValidationError:
    return ValidationError({"body": [f"larger than {limit} bytes, the limit of this endpoint"]})
