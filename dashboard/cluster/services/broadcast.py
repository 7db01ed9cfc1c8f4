"""Send mirror changes to websocket clients through the channel layer.

Callers are synchronous (the mirror's writer thread, management commands,
Celery tasks). Messages go through one private event loop so that the Redis
connections are reused and messages leave in the order they were published.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import Future
from typing import Any

from channels.layers import get_channel_layer

__all__ = [
    "MAX_DELTA_ITEMS",
    "cluster_group",
    "flush",
    "kind_group",
    "publish",
    "publish_delta",
    "publish_health",
]

log = logging.getLogger(__name__)

# Above this many objects a delta only carries counts; pages then reload
# instead of receiving (say) 50,000 pods over a websocket during a relist.
MAX_DELTA_ITEMS = 200


def cluster_group(cluster_id: int) -> str:
    return f"cluster.{cluster_id}"


def kind_group(cluster_id: int, kind_key: str) -> str:
    return f"cluster.{cluster_id}.{kind_key}"


class _Sender:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._send_lock: asyncio.Lock | None = None

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(
                    target=loop.run_forever, name="broadcast-loop", daemon=True
                )
                thread.start()
                self._loop = loop
                self._send_lock = None
            return self._loop

    async def _send(self, groups: list[str], message: dict[str, Any]) -> None:
        if self._send_lock is None:
            self._send_lock = asyncio.Lock()
        layer = get_channel_layer()
        if layer is None:
            return
        async with self._send_lock:  # FIFO: clients see changes in commit order
            for group in groups:
                try:
                    await layer.group_send(group, message)
                except Exception:  # a dead Redis must not stop the mirror
                    log.exception("broadcast to %s failed", group)

    def submit(self, groups: list[str], message: dict[str, Any]) -> Future:
        return asyncio.run_coroutine_threadsafe(self._send(groups, message), self._ensure_loop())


_sender = _Sender()


def publish(groups: list[str], message: dict[str, Any]) -> Future:
    """Queue ``message`` for ``groups``; returns a future for callers that wait."""
    return _sender.submit(groups, message)


def flush(timeout: float = 5.0) -> None:
    """Wait until everything published so far has been handed to the layer."""
    publish([], {}).result(timeout)


def _item(spec_fields: tuple[str, ...], row: Any) -> dict[str, Any]:
    item = {"namespace": row.namespace, "name": row.name, "resourceVersion": row.resource_version}
    for f in spec_fields:
        item[f] = getattr(row, f)
    return item


def publish_delta(
    cluster_id: int,
    kind_key: str,
    delta_fields: tuple[str, ...],
    upserted: list[Any],
    deleted: list[tuple[str, str]],
) -> None:
    """One ``mirror.delta`` message per kind and batch, to the cluster and kind groups."""
    if not upserted and not deleted:
        return
    total = len(upserted) + len(deleted)
    message: dict[str, Any] = {
        "type": "mirror.delta",
        "cluster": cluster_id,
        "kind": kind_key,
        "upsertedCount": len(upserted),
        "deletedCount": len(deleted),
        "truncated": total > MAX_DELTA_ITEMS,
        "sentAt": time.time(),
    }
    if total <= MAX_DELTA_ITEMS:
        message["upserted"] = [_item(delta_fields, r) for r in upserted]
        message["deleted"] = [{"namespace": ns, "name": name} for ns, name in deleted]
    publish([cluster_group(cluster_id), kind_group(cluster_id, kind_key)], message)


def publish_health(cluster_id: int, health: dict[str, Any]) -> None:
    publish([cluster_group(cluster_id)], {"type": "mirror.health", "cluster": cluster_id, **health})
