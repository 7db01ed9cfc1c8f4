"""The API server's ``Status`` body, written by both test servers' handlers."""

from __future__ import annotations

import json

__all__ = ["status_body"]


def status_body(code: int, reason: str, message: str) -> bytes:
    return json.dumps(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": message,
            "reason": reason,
            "code": code,
        }
    ).encode()
