"""Through the real ASGI app and the Redis channel layer, as a browser would see it."""

from __future__ import annotations

import asyncio

from channels.testing import WebsocketCommunicator

from dashboard.cluster.services.snapshots import import_objects
from schedlab.asgi import application
from tests.support import objects as b
from tests.support.mirror import wait_watching


def _session_headers() -> list[tuple[bytes, bytes]]:
    """A logged-in viewer's session cookie: the consumer refuses anonymous sockets."""
    from django.conf import settings
    from django.test import Client

    from tests.pages.conftest import login_as

    client: Client = login_as("viewer")
    cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
    return [(b"cookie", cookie.encode())]


async def _receive(
    path: str, trigger, *, want: str = "mirror.delta", timeout: float = 5.0, headers=None
) -> dict:
    communicator = WebsocketCommunicator(application, path, headers=headers or [])
    connected, _ = await communicator.connect()
    assert connected
    try:
        await asyncio.get_running_loop().run_in_executor(None, trigger)
        while True:
            message = await communicator.receive_json_from(timeout=timeout)
            if message["type"] == want:
                return message
    finally:
        await communicator.disconnect()


def test_a_watch_event_reaches_a_subscribed_websocket(kube, live_cluster, start_mirror):
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    message = asyncio.run(
        _receive(
            "/ws/clusters/live/?kinds=pods",
            lambda: kube.apply(b.pod("hello", gpus=1)),
            headers=_session_headers(),
        )
    )
    assert message["kind"] == "pods" and message["upsertedCount"] == 1
    (item,) = message["upserted"]
    assert (item["namespace"], item["name"], item["gpu_requested"]) == ("default", "hello", 1)


def test_deletes_are_broadcast_to_the_cluster_group(kube, live_cluster, start_mirror):
    kube.apply(b.node("n1"))
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    message = asyncio.run(
        _receive(
            "/ws/clusters/live/", lambda: kube.delete("Node", "n1"), headers=_session_headers()
        )
    )
    assert message["kind"] == "nodes"
    assert message["deleted"] == [{"namespace": "", "name": "n1"}]


def test_a_snapshot_import_is_broadcast_after_commit(transactional_db):
    from dashboard.cluster.services.clusters import ensure_snapshot_cluster

    cluster = ensure_snapshot_cluster("snap", "inline")
    message = asyncio.run(
        _receive(
            "/ws/clusters/snap/?kinds=nodes",
            lambda: import_objects(cluster, [b.node("a"), b.pod("p")]),
            headers=_session_headers(),
        )
    )
    assert message["kind"] == "nodes" and message["upserted"][0]["name"] == "a"


def test_unknown_clusters_and_kinds_are_refused(transactional_db, live_cluster):
    headers = _session_headers()

    async def connect(path):
        communicator = WebsocketCommunicator(application, path, headers=headers)
        connected, code = await communicator.connect()
        await communicator.disconnect()
        return connected, code

    assert asyncio.run(connect("/ws/clusters/nope/")) == (False, 4404)
    assert asyncio.run(connect("/ws/clusters/live/?kinds=secrets")) == (False, 4400)
