"""A source that cannot be used shows up on the cluster row; stored rows survive."""

from __future__ import annotations

import socket

import pytest

from dashboard.cluster.models import Cluster, Pod
from dashboard.cluster.services.clusters import ensure_live_cluster
from tests.support import objects as b
from tests.support.mirror import wait_until, wait_watching


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _missing_file(tmp_path, kube):
    return str(tmp_path / "nope.yaml"), "test"


def _not_yaml(tmp_path, kube):
    path = tmp_path / "broken.yaml"
    path.write_text("clusters: [unclosed")
    return str(path), "test"


def _unknown_context(tmp_path, kube):
    return str(kube.write_kubeconfig(tmp_path / "kc")), "no-such-context"


def _unreachable(tmp_path, kube):
    path = kube.write_kubeconfig(tmp_path / "kc")
    path.write_text(path.read_text().replace(f":{kube.port}", f":{_free_port()}"))
    return str(path), "test"


def _expired_token(tmp_path, kube):
    kube.token = "fresh"
    return str(kube.write_kubeconfig(tmp_path / "kc", token="expired")), "test"


@pytest.mark.parametrize(
    ("make_source", "status"),
    [
        (_missing_file, "bad kubeconfig"),
        (_not_yaml, "bad kubeconfig"),
        (_unknown_context, "bad kubeconfig"),
        (_unreachable, "unreachable"),
        (_expired_token, "unauthorized"),
    ],
    ids=lambda v: v.__name__[1:] if callable(v) else v,
)
def test_it_shows_why_it_cannot_mirror(
    make_source, status, tmp_path, kube, transactional_db, start_mirror
):
    kubeconfig, context = make_source(tmp_path, kube)
    cluster = ensure_live_cluster("broken", kubeconfig=kubeconfig, context=context)
    Pod.objects.create(cluster=cluster, namespace="default", name="kept", obj=b.pod("kept"))
    start_mirror(cluster)

    def errored():
        c = Cluster.objects.get(pk=cluster.pk)
        return c.mirror_status == "error" and status in c.last_error

    wait_until(errored, what=f"status {status}")
    cluster = Cluster.objects.get(pk=cluster.pk)
    assert not cluster.connected and cluster.last_error_at is not None
    assert Pod.objects.filter(cluster=cluster, name="kept").exists()


def test_it_recovers_once_credentials_are_renewed(tmp_path, kube, transactional_db, start_mirror):
    kube.token = "fresh"
    kube.apply(b.pod("p"))
    path = kube.write_kubeconfig(tmp_path / "kc", token="expired")
    cluster = ensure_live_cluster("renewed", kubeconfig=str(path), context="test")
    start_mirror(cluster)
    wait_until(lambda: Cluster.objects.get(pk=cluster.pk).mirror_status == "error")

    kube.write_kubeconfig(path, token="fresh")  # e.g. a credential plugin rotated it
    wait_watching(cluster)
    assert Pod.objects.filter(cluster=cluster, name="p").exists()
