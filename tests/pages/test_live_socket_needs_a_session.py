"""The websocket through the real ASGI app (AuthMiddlewareStack) and the Redis layer."""

from __future__ import annotations

import asyncio

from channels.testing import WebsocketCommunicator
from django.conf import settings

from dashboard.cluster.services.broadcast import publish_delta
from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from schedlab.asgi import application
from tests.pages.conftest import login_as


def _cookie(client) -> list[tuple[bytes, bytes]]:
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    return [(b"cookie", f"{settings.SESSION_COOKIE_NAME}={session}".encode())]


async def _connect(path: str, headers=None):
    communicator = WebsocketCommunicator(application, path, headers=headers or [])
    connected, code = await communicator.connect()
    return communicator, connected, code


def test_anonymous_sockets_are_closed_with_4401(transactional_db):
    ensure_snapshot_cluster("live", "inline")

    async def run():
        communicator, connected, code = await _connect("/ws/clusters/live/")
        await communicator.disconnect()
        return connected, code

    assert asyncio.run(run()) == (False, 4401)


def test_users_without_a_role_are_refused(transactional_db):
    ensure_snapshot_cluster("live", "inline")
    headers = _cookie(login_as(None))

    async def run():
        communicator, connected, code = await _connect("/ws/clusters/live/", headers)
        await communicator.disconnect()
        return connected, code

    assert asyncio.run(run()) == (False, 4403)


def test_a_viewer_watches_deltas(transactional_db):
    cluster = ensure_snapshot_cluster("live", "inline")
    headers = _cookie(login_as("viewer"))

    class Row:
        namespace, name, resource_version = "ml", "p1", "7"
        phase, node_name, scheduler_name, priority, gpu_requested = (
            "Pending",
            "",
            "default-scheduler",
            5,
            8,
        )

    async def run():
        communicator, connected, _ = await _connect("/ws/clusters/live/?kinds=pods", headers)
        assert connected
        hello = await communicator.receive_json_from(timeout=5)
        publish_delta(
            cluster.pk,
            "pods",
            ("phase", "node_name", "scheduler_name", "priority", "gpu_requested"),
            [Row()],
            [("ml", "gone")],
        )
        delta = await communicator.receive_json_from(timeout=5)
        await communicator.disconnect()
        return hello, delta

    hello, delta = asyncio.run(run())
    assert hello["type"] == "hello" and hello["kinds"] == ["pods"]
    assert delta["type"] == "mirror.delta" and delta["upserted"][0]["gpu_requested"] == 8
    assert delta["deleted"] == [{"namespace": "ml", "name": "gone"}]


def test_dry_run_progress_socket_needs_a_session_and_a_run(transactional_db):
    headers = _cookie(login_as("viewer"))

    async def run():
        a, connected_anon, code_anon = await _connect("/ws/dry-runs/1/")
        await a.disconnect()
        b, connected, code = await _connect("/ws/dry-runs/999999/", headers)
        await b.disconnect()
        return (connected_anon, code_anon), (connected, code)

    assert asyncio.run(run()) == ((False, 4401), (False, 4404))
