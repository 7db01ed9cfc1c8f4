"""``/livez`` and ``/readyz``, answered in front of Django for probes.

They sit before Django so that neither ``ALLOWED_HOSTS`` (a kubelet probes
the pod's IP), the HTTPS redirect, nor a login stand between a probe and
its answer, and so that a health check costs no middleware or session.
(Django's own ``/healthz`` page stays: it checks the whole stack, behind them.)

- ``/livez``: the process and its event loop answer (liveness).
- ``/readyz``: the database answers ``SELECT 1`` (readiness; every page needs
  it). Redis is reported, not required: pages still render without it.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as redis
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connections

__all__ = ["HEALTH_PATHS", "HealthEndpoints", "database_status", "redis_status"]

HEALTH_PATHS = ("/livez", "/readyz")
REDIS_TIMEOUT = 2.0


def database_status() -> str:
    """``"ok"`` or the error's type (never its text: it may name hosts and users)."""
    conn = connections["default"]
    try:
        with conn.cursor() as cursor:
            cursor.execute("SELECT 1")
        return "ok"
    except Exception as exc:
        conn.close()
        return f"error: {type(exc).__name__}"
    finally:
        conn.close_if_unusable_or_obsolete()


async def redis_status() -> str:
    url = getattr(settings, "REDIS_URL", "")
    if not url:
        return "not configured"
    client = redis.from_url(url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT)
    try:
        await client.ping()
        return "ok"
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    finally:
        await client.aclose()


class HealthEndpoints:
    """ASGI wrapper: answers the health paths itself, passes everything else on."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        path = scope.get("path", "").rstrip("/")
        if scope["type"] != "http" or path not in HEALTH_PATHS:
            await self.app(scope, receive, send)
            return
        if path == "/livez":
            status, body = 200, {"status": "ok"}
        else:
            database = await sync_to_async(database_status)()
            body = {"database": database, "redis": await redis_status()}
            status = 200 if database == "ok" else 503
            body = {"status": "ok" if status == 200 else "unavailable", **body}
        payload = json.dumps(body).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(payload)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
