"""Mirror fixtures: the wire-protocol API server, a kubeconfig for it, running mirrors.

Also the waits the mirror tests share. A package's conftest imports the fixtures it uses.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from dashboard.cluster.kinds import KINDS_BY_KIND, to_row
from dashboard.cluster.mirror import Mirror, MirrorOptions
from dashboard.cluster.models import Cluster
from dashboard.cluster.services.cluster_state import Changes, apply_changes
from dashboard.cluster.services.clusters import ensure_live_cluster
from tests.support.kubeserver import KubeServer

FAST = MirrorOptions(
    page_size=2,  # tiny pages so every test exercises limit/continue
    resync_seconds=3600,
    watch_timeout=30,
    backoff_base=0.05,
    backoff_max=0.3,
    batch_seconds=0.02,
)


def wait_until(predicate: Callable[[], object], timeout: float = 10.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.03)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or predicate}")


def write_batch(cluster: Cluster, upserts=(), deletes=()) -> None:
    """What the mirror's writer does with one batch of watch events.

    ``upserts`` are whole objects, ``deletes`` (kind, namespace, name) keys.
    """
    changes = Changes()
    for obj in upserts:
        spec = KINDS_BY_KIND[obj["kind"]]
        changes.upsert(spec, to_row(spec, cluster.pk, obj))
    for kind, ns, name in deletes:
        changes.delete(KINDS_BY_KIND[kind], (ns, name))
    apply_changes(cluster.pk, changes)


def wait_watching(cluster: Cluster, timeout: float = 10.0) -> None:
    """Until every kind has been listed and is being watched (health is saved every 0.5 s)."""

    def watching() -> bool:
        c = Cluster.objects.get(pk=cluster.pk)
        return c.mirror_status == Cluster.MirrorStatus.WATCHING and c.connected

    wait_until(watching, timeout, what=f"cluster {cluster.name} watching")


@pytest.fixture
def kube() -> Iterator[KubeServer]:
    server = KubeServer(bookmark_interval=0.2).start()
    yield server
    server.stop()


@pytest.fixture
def kubeconfig(tmp_path, kube: KubeServer):
    return kube.write_kubeconfig(tmp_path / "kubeconfig")


@pytest.fixture
def live_cluster(transactional_db, kubeconfig) -> Cluster:
    return ensure_live_cluster("live", kubeconfig=str(kubeconfig), context="test")


@pytest.fixture
def start_mirror() -> Iterator[Callable[..., Mirror]]:
    mirrors: list[Mirror] = []

    def start(cluster: Cluster, options: MirrorOptions = FAST) -> Mirror:
        mirror = Mirror(cluster, options=options).start()
        mirrors.append(mirror)
        return mirror

    yield start
    for mirror in mirrors:
        mirror.stop()
