"""Websocket endpoint: ``/ws/clusters/<name>/?kinds=pods,nodes`` streams mirror deltas."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from .kinds import KINDS_BY_KEY
from .models import Cluster
from .services.broadcast import cluster_group, kind_group

__all__ = ["ClusterConsumer"]


@database_sync_to_async
def _cluster_id(name: str) -> int | None:
    return Cluster.objects.filter(name=name).values_list("pk", flat=True).first()


class ClusterConsumer(AsyncJsonWebsocketConsumer):
    """Joins the cluster group (all kinds) or only the kind groups asked for."""

    groups_joined: list[str]

    async def connect(self) -> None:
        self.groups_joined = []
        name = self.scope["url_route"]["kwargs"]["name"]
        cluster_id = await _cluster_id(name)
        if cluster_id is None:
            await self.close(code=4404)
            return
        query = self.scope.get("query_string", b"").decode()
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        kinds = [k for k in params.get("kinds", "").split(",") if k]
        if any(k not in KINDS_BY_KEY for k in kinds):
            await self.close(code=4400)
            return
        self.groups_joined = (
            [kind_group(cluster_id, k) for k in kinds] if kinds else [cluster_group(cluster_id)]
        )
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def mirror_delta(self, event: dict[str, Any]) -> None:
        await self.send_json(event)

    async def mirror_health(self, event: dict[str, Any]) -> None:
        await self.send_json(event)
