"""Redis restarted while the mirror syncs: every row is stored, the health is clean, and
websocket broadcasts flow again once Redis is back.

Redis here is a private redis-server on a free port (the shared one serves every
other test), used by a ``manage.py mirror`` process as its channel layer.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from dashboard.cluster.models import Cluster, Pod
from dashboard.cluster.services.broadcast import cluster_group
from tests.cluster.test_mirror_recovers_from_faults import _mirror_process
from tests.support import objects as b
from tests.support.mirror import wait_until, wait_watching

REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="needs the redis-server binary")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _redis(port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def up() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    wait_until(up, timeout=10, what=f"redis-server on port {port}")
    return proc


def _hears_a_change(url: str, cluster: Cluster, kube) -> bool:
    """Subscribe to the cluster's group on ``url``, change a pod, wait for the delta."""
    prefix = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]

    async def listen() -> bool:
        layer = RedisChannelLayer(hosts=[url], prefix=prefix)
        channel = await layer.new_channel()
        await layer.group_add(cluster_group(cluster.pk), channel)
        kube.apply(b.pod("after-restart"))
        deadline = time.monotonic() + 15
        try:
            while time.monotonic() < deadline:
                try:
                    msg = await asyncio.wait_for(layer.receive(channel), 1.0)
                except TimeoutError:
                    continue
                if msg.get("type") == "mirror.delta":
                    return True
            return False
        finally:
            await layer.flush()

    return asyncio.run(listen())


def test_the_sync_completes_and_broadcasts_resume(kube, kubeconfig, live_cluster):
    names = {f"p{i:03d}" for i in range(400)}
    for name in sorted(names):
        kube.apply(b.pod(name))
    port = _free_port()
    url = f"redis://127.0.0.1:{port}/0"
    redis = _redis(port)
    mirror = _mirror_process(str(kubeconfig), {"REDIS_URL": url})
    count = Pod.objects.filter(cluster=live_cluster).count
    try:
        wait_until(lambda: count() > 0, timeout=30, what="the first pages stored")
        redis.kill()  # mid-sync: the broadcasts of the next pages have nowhere to go
        redis.wait(10)
        assert count() < len(names), "Redis went down too late to be mid-sync"
        time.sleep(1.0)
        redis = _redis(port)
        wait_watching(live_cluster, timeout=60)
        wait_until(lambda: count() == len(names), timeout=30, what="every pod stored")
        cluster = Cluster.objects.get(pk=live_cluster.pk)
        assert cluster.connected and not cluster.last_error
        assert cluster.shown_health()["mirror_status"] == Cluster.MirrorStatus.WATCHING
        assert _hears_a_change(url, live_cluster, kube), "no broadcast after Redis came back"
        wait_until(lambda: count() == len(names) + 1, what="the new pod stored")
    finally:
        mirror.terminate()
        mirror.wait(20)
        redis.kill()
        redis.wait(10)
