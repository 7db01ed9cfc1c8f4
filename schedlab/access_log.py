"""One log record per HTTP request and per websocket session, through ``logging``.

Production runs Daphne without its own access log (plain text on stdout) and
logs requests here instead, so they come out as JSON lines like every other
record, with their fields (``method``, ``path``, ``status``, ``bytes``,
``duration_ms``, ``client``) as fields. Probes (/livez, /readyz) are answered
in front of this and not logged. On with ``SCHEDLAB_ACCESS_LOG``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

__all__ = ["AccessLog"]

log = logging.getLogger("schedlab.access")


class AccessLog:
    """ASGI wrapper that logs each request when its response (or socket) ends."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        start = time.monotonic()
        seen: dict[str, Any] = {"status": None, "bytes": 0}

        async def watch(message: dict) -> None:
            kind = message["type"]
            if kind == "http.response.start":
                seen["status"] = message["status"]
            elif kind == "http.response.body":
                seen["bytes"] += len(message.get("body", b""))
            elif kind == "websocket.accept":
                seen["status"] = 101
            elif kind == "websocket.close" and seen["status"] is None:
                seen["status"] = 403  # refused before the handshake completed
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            method = scope.get("method", "WEBSOCKET")
            client = scope.get("client") or ("", 0)
            fields = {
                "method": method,
                "path": scope.get("path", ""),
                "status": seen["status"],
                "bytes": seen["bytes"],
                "duration_ms": round((time.monotonic() - start) * 1000, 1),
                "client": client[0],
            }
            log.info(
                "%s %s %s %sB %.1fms",
                method,
                fields["path"],
                fields["status"] or "-",
                fields["bytes"],
                fields["duration_ms"],
                extra=fields,
            )
