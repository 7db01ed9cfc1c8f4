from __future__ import annotations

import logging

import pytest

from dashboard.cluster.models import Node, Pod
from tests.support import objects as b
from tests.support.mirror import wait_until, wait_watching

BAD_QUANTITY = b.pod("bad-gpu")
BAD_QUANTITY["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "lots"
NO_NAME = {"kind": "Pod", "apiVersion": "v1", "metadata": {"namespace": "default"}}
BAD_SPEC = {**b.pod("bad-spec"), "spec": ["not", "a", "mapping"]}


@pytest.mark.parametrize(
    ("body", "key", "logged"),
    [
        (
            BAD_QUANTITY,
            ("default", "bad-gpu"),
            "Pod default/bad-gpu: spec.containers[0].resources.limits.nvidia.com/gpu: quantities must match",
        ),
        (NO_NAME, ("default", "x"), "metadata.name is missing"),
        (BAD_SPEC, ("default", "bad-spec"), "Pod default/bad-spec: spec must be a mapping"),
    ],
    ids=["bad-quantity", "no-name", "bad-spec"],
)
def test_it_skips_a_malformed_object_and_keeps_the_rest(
    body, key, logged, kube, live_cluster, start_mirror, caplog
):
    kube.apply(b.pod("good-1"))
    kube.put_raw("pods", body, key)  # listed
    kube.apply(b.pod("good-2"))
    caplog.set_level(logging.WARNING, logger="dashboard")
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    kube.put_raw("pods", body, (key[0], key[1] + "-w"))  # and watched
    kube.apply(b.pod("good-3"))
    wait_until(lambda: Pod.objects.filter(cluster=live_cluster, name="good-3").exists())

    assert set(Pod.objects.filter(cluster=live_cluster).values_list("name", flat=True)) == {
        "good-1",
        "good-2",
        "good-3",
    }
    assert sum(logged in r.getMessage() for r in caplog.records) == 2


def test_a_garbage_watch_line_is_logged_and_skipped(kube, live_cluster, start_mirror, caplog):
    caplog.set_level(logging.WARNING, logger="dashboard")
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    kube.inject_watch_line("nodes", b"this is not json")
    kube.apply(b.node("after"))
    wait_until(lambda: Node.objects.filter(cluster=live_cluster, name="after").exists())
    assert any("not a watch event" in r.getMessage() for r in caplog.records)


def test_a_later_malformed_version_keeps_the_last_good_copy(kube, live_cluster, start_mirror):
    kube.apply(b.node("n1", gpus=8))
    start_mirror(live_cluster)
    wait_watching(live_cluster)

    broken = b.node("n1", gpus=8)
    broken["status"]["allocatable"]["nvidia.com/gpu"] = "eight"
    kube.put_raw("nodes", broken, ("", "n1"))
    kube.apply(b.node("n2"))
    wait_until(lambda: Node.objects.filter(cluster=live_cluster, name="n2").exists())
    assert Node.objects.get(cluster=live_cluster, name="n1").gpu_allocatable == 8
