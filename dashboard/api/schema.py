"""The API's OpenAPI schema: every status code an operation can answer is documented.

Errors are JSON objects: ``{"detail": "..."}`` or ``{"field": ["message", ...]}``
(400 naming the field). Which codes apply:

- every operation: 400 (a bad query parameter or body), 401 (no credentials),
  403 (a role too low), 404 (an unknown id or path);
- operations that change something: 409 (conflict: in use, already finished,
  a refused ConfigMap write) and 415 (a body that is not JSON);
- apply and rollback: 502 (the cluster could not be reached to write the ConfigMap).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema

__all__ = ["SchedlabAutoSchema"]

_ERROR = {
    "type": "object",
    "additionalProperties": True,
    "description": '{"detail": "..."} or {"field": ["message", ...]}',
}

_COMMON = {
    "400": "Bad input: the field or query parameter is named",
    "401": "No credentials were given",
    "403": "The user's role does not allow this",
    "404": "No such object or path",
}
_CHANGES = {
    "409": "Conflict with the object's state",
    "415": "The body is not JSON",
}
_UPSTREAM = {"502": "The cluster could not be reached (the ConfigMap was not written)"}


class SchedlabAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses = super()._get_response_bodies(direction)
        codes = dict(_COMMON)
        if self.method in ("POST", "PUT", "PATCH", "DELETE"):
            codes.update(_CHANGES)
        if getattr(self.view, "action", None) in ("apply", "rollback"):
            codes.update(_UPSTREAM)
        for code, description in codes.items():
            responses.setdefault(
                code,
                {"content": {"application/json": {"schema": _ERROR}}, "description": description},
            )
        return responses
