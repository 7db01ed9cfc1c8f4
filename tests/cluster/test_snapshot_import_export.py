from __future__ import annotations

import pytest
import yaml
from django.core.management import CommandError, call_command

from dashboard.cluster.models import (
    Cluster,
    Namespace,
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
)
from dashboard.cluster.services.snapshots import import_snapshot
from scheduler_engine.documents import read_objects
from tests.support.fixtures import SMALL_CLUSTER


def test_it_imports_kubectl_output(db):
    result = import_snapshot(SMALL_CLUSTER, "small")

    assert result.counts == {
        "namespaces": 1,
        "nodes": 2,
        "priorityclasses": 1,
        "poddisruptionbudgets": 1,
        "pods": 2,
    }
    assert result.skipped == ["ConfigMap ml/ignored: kind not mirrored"]
    cluster = Cluster.objects.get(name="small")
    assert cluster.source == "snapshot" and not cluster.is_live
    nodes = {
        n.name: (n.gpu_capacity, n.gpu_resources, n.cpu_allocatable_milli)
        for n in Node.objects.filter(cluster=cluster)
    }
    assert nodes == {
        "gpu-a": (8, ["nvidia.com/gpu"], 95500),
        "mi300-a": (8, ["amd.com/gpu"], 127000),
    }
    running = Pod.objects.get(cluster=cluster, name="trainer-0")
    # max(sum of containers, largest init container): 16 CPUs, 128Gi
    assert (running.cpu_requested_milli, running.memory_requested_bytes, running.gpu_requested) == (
        16000,
        128 * 2**30,
        4,
    )
    pending = Pod.objects.get(cluster=cluster, name="trainer-1")
    assert (pending.gpu_requested, pending.cpu_requested_milli) == (
        8,
        8000,
    )  # requests default to limits
    assert pending.pending_since is not None and pending.scheduler_name == "default-scheduler"
    assert PodDisruptionBudget.objects.get(cluster=cluster).max_unavailable == "0"


def test_export_is_a_list_that_loads_back_identically(db, tmp_path):
    import_snapshot(SMALL_CLUSTER, "small")
    out = tmp_path / "export.yaml"
    call_command("export_snapshot", "--cluster", "small", "-o", str(out))

    document = yaml.safe_load(out.read_text())
    assert document["kind"] == "List" and document["apiVersion"] == "v1"
    exported = read_objects(out)  # the engine's reader accepts it
    original = [o for o in read_objects(SMALL_CLUSTER) if o["kind"] != "ConfigMap"]
    key = lambda o: (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"])  # noqa: E731
    assert sorted(exported, key=key) == sorted(original, key=key)

    import_snapshot(out, "again")
    again = Cluster.objects.get(name="again")
    assert (
        Pod.objects.filter(cluster=again).count() == 2
        and Namespace.objects.filter(cluster=again).count() == 1
    )


def test_reimport_replaces_the_previous_state(db, tmp_path):
    import_snapshot(SMALL_CLUSTER, "small")
    smaller = tmp_path / "smaller.yaml"
    objects = [o for o in read_objects(SMALL_CLUSTER) if o["kind"] in ("Node", "PriorityClass")]
    smaller.write_text(yaml.safe_dump_all(objects))  # multi-document YAML

    import_snapshot(smaller, "small")
    cluster = Cluster.objects.get(name="small")
    assert Pod.objects.filter(cluster=cluster).count() == 0
    assert Node.objects.filter(cluster=cluster).count() == 2
    assert PriorityClass.objects.filter(cluster=cluster).count() == 1


def test_malformed_objects_are_skipped_with_a_reason(db, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "kind: Node\napiVersion: v1\nmetadata: {name: ok}\n---\n"
        "kind: Node\napiVersion: v1\nmetadata: {name: bad}\nstatus: {capacity: {nvidia.com/gpu: many}}\n"
    )
    result = import_snapshot(path, "bad")
    assert result.counts == {"nodes": 1}
    [skipped] = result.skipped
    assert skipped.startswith(
        "Node bad: status.capacity[nvidia.com/gpu]: 'many': quantities must match"
    )


def test_the_command_reports_a_file_that_does_not_parse(db, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("items: [")
    with pytest.raises(CommandError, match="broken.yaml"):
        call_command("import_snapshot", str(path), "--cluster", "x")


def test_load_demo_starts_an_empty_cluster_when_the_file_is_missing(db, tmp_path, capsys):
    call_command("load_demo", "--file", str(tmp_path / "missing.yaml"))
    assert "not found" in capsys.readouterr().err
    assert Cluster.objects.get(name="demo").source == "snapshot"


def test_load_demo_loads_a_snapshot(db):
    call_command("load_demo", "--file", str(SMALL_CLUSTER), "--cluster", "demo")
    assert Node.objects.filter(cluster__name="demo").count() == 2


def test_large_batches_take_the_copy_path_and_upsert(db):
    from dashboard.cluster.services.clusters import ensure_snapshot_cluster
    from dashboard.cluster.services.pgcopy import COPY_THRESHOLD
    from dashboard.cluster.services.snapshots import import_objects
    from tests.support import objects as b

    cluster = ensure_snapshot_cluster("big", "inline")
    n = COPY_THRESHOLD + 50
    import_objects(cluster, [b.pod(f"p{i}", gpus=1) for i in range(n)])
    import_objects(cluster, [b.pod(f"p{i}", gpus=2, node="n1") for i in range(n)])

    pods = Pod.objects.filter(cluster=cluster)
    assert pods.count() == n
    assert set(pods.values_list("gpu_requested", "node_name", "phase")) == {(2, "n1", "Running")}
    assert pods.get(name="p7").obj["spec"]["nodeName"] == "n1"
