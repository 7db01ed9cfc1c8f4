"""Websocket endpoints for the dashboard's live updates.

``/ws/clusters/<name>/?kinds=pods,nodes`` streams mirror deltas and health;
``/ws/dry-runs/<id>/`` streams a dry-run's progress, ``/ws/studies/<id>/`` a study's. Both need the session's
user (AuthMiddlewareStack in schedlab.asgi): anonymous sockets are closed
with 4401; any role, viewers included, may watch (watching changes nothing).
"""

from __future__ import annotations

import time
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from dashboard.cluster.kinds import KINDS_BY_KEY
from dashboard.cluster.models import Cluster
from dashboard.cluster.services.broadcast import cluster_group, kind_group
from dashboard.dryruns.models import DryRun
from dashboard.dryruns.services.runner import dry_run_group
from dashboard.roles import VIEWER, has_role
from dashboard.studies.models import Study
from dashboard.studies.services.runner import study_group

__all__ = ["ClusterConsumer", "DryRunConsumer", "StudyConsumer"]

UNAUTHENTICATED = 4401
FORBIDDEN = 4403
NOT_FOUND = 4404
BAD_REQUEST = 4400


@database_sync_to_async
def _cluster_id(name: str) -> int | None:
    return Cluster.objects.filter(name=name).values_list("pk", flat=True).first()


@database_sync_to_async
def _exists(model: type[DryRun | Study], pk: int) -> bool:
    return model.objects.filter(pk=pk).exists()


@database_sync_to_async
def _may_watch(user: Any) -> bool:
    return has_role(user, VIEWER)


async def _refuse_anonymous(consumer: AsyncJsonWebsocketConsumer) -> bool:
    """Close with 4401/4403 unless the scope's user may watch; True when refused."""
    user = consumer.scope.get("user")
    if user is None or not user.is_authenticated:
        await consumer.close(code=UNAUTHENTICATED)
        return True
    if not await _may_watch(user):
        await consumer.close(code=FORBIDDEN)
        return True
    return False


class _GroupConsumer(AsyncJsonWebsocketConsumer):
    groups_joined: list[str]

    async def join(self, groups: list[str]) -> None:
        self.groups_joined = groups
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def relay(self, event: dict[str, Any]) -> None:
        """Send a group message on to the client as it is."""
        await self.send_json(event)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # Read-only stream; "ping" lets a client check the socket is alive.
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong", "serverTime": time.time()})


class ClusterConsumer(_GroupConsumer):
    """Joins the cluster group (all kinds) or only the kind groups asked for."""

    async def connect(self) -> None:
        self.groups_joined = []
        if await _refuse_anonymous(self):
            return
        name = self.scope["url_route"]["kwargs"]["name"]
        cluster_id = await _cluster_id(name)
        if cluster_id is None:
            await self.close(code=NOT_FOUND)
            return
        query = self.scope.get("query_string", b"").decode()
        params = dict(p.partition("=")[::2] for p in query.split("&") if p)
        kinds = [k for k in params.get("kinds", "").split(",") if k]
        if any(k not in KINDS_BY_KEY for k in kinds):
            await self.close(code=BAD_REQUEST)
            return
        await self.join(
            [kind_group(cluster_id, k) for k in kinds] if kinds else [cluster_group(cluster_id)]
        )
        await self.accept()
        await self.send_json(
            {"type": "hello", "cluster": name, "kinds": kinds, "serverTime": time.time()}
        )

    mirror_delta = _GroupConsumer.relay
    mirror_health = _GroupConsumer.relay


class _ProgressConsumer(_GroupConsumer):
    """Progress of one object whose worker broadcasts to its group: 4404 if it is unknown."""

    model: type[DryRun | Study]
    hello_key: str

    @staticmethod
    def group(pk: int) -> str:
        raise NotImplementedError

    async def connect(self) -> None:
        self.groups_joined = []
        if await _refuse_anonymous(self):
            return
        pk = int(self.scope["url_route"]["kwargs"]["pk"])
        if not await _exists(self.model, pk):
            await self.close(code=NOT_FOUND)
            return
        await self.join([self.group(pk)])
        await self.accept()
        await self.send_json({"type": "hello", self.hello_key: pk, "serverTime": time.time()})


class DryRunConsumer(_ProgressConsumer):
    """Progress of one dry-run (``dryrun.progress`` messages from the worker)."""

    model = DryRun
    hello_key = "dryRun"
    group = staticmethod(dry_run_group)

    dryrun_progress = _GroupConsumer.relay


class StudyConsumer(_ProgressConsumer):
    """Progress of one study (``study.progress`` messages: the study's counts and one run's)."""

    model = Study
    hello_key = "study"
    group = staticmethod(study_group)

    study_progress = _GroupConsumer.relay
