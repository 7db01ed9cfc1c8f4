from __future__ import annotations

import json

import pytest

from scheduler_engine.cluster import build_cluster, load_cluster
from scheduler_engine.documents import parse_documents, read_objects
from scheduler_engine.errors import InputError

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "n1"},
    "status": {"allocatable": {"cpu": "1"}},
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "namespace": "x"},
    "spec": {"containers": [{"name": "c"}]},
}


def test_it_reads_a_kubectl_list(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, POD]}))
    assert [o["kind"] for o in read_objects(f)] == ["Node", "Pod"]


def test_it_reads_multi_document_yaml_and_directories(tmp_path):
    import yaml

    (tmp_path / "a.yaml").write_text(yaml.safe_dump(NODE) + "---\n" + yaml.safe_dump(POD))
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yml").write_text(
        yaml.safe_dump({"kind": "PodList", "items": [POD | {"metadata": {"name": "q"}}]})
    )
    (tmp_path / "notes.txt").write_text("ignored")
    cluster = load_cluster(tmp_path)
    assert [n.name for n in cluster.nodes] == ["n1"]
    assert sorted(p.key for p in cluster.pods) == ["default/q", "x/p"]
    assert cluster.namespaces["x"]["kubernetes.io/metadata.name"] == "x"


def test_yaml_alias_bombs_are_refused():
    bomb = "a: &a [1,2]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n" + "".join(
        f"c{i}: &c{i} [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" for i in range(12)
    )
    with pytest.raises(InputError, match="aliases"):
        parse_documents(bomb, source="bomb.yaml")


def test_bad_yaml_names_file_and_line(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("kind: Node\nmetadata: {name: [\n")
    with pytest.raises(InputError) as exc:
        read_objects(f)
    assert exc.value.file == str(f)
    assert "line" in exc.value.message


def test_missing_file():
    with pytest.raises(InputError, match="no such file"):
        read_objects("/nonexistent/snap.yaml")


def test_finished_pods_are_dropped_and_duplicates_refused():
    done = POD | {"metadata": {"name": "done", "namespace": "x"}, "status": {"phase": "Succeeded"}}
    assert [p.name for p in build_cluster([NODE, POD, done]).pods] == ["p"]
    with pytest.raises(InputError, match="duplicate"):
        build_cluster([NODE, NODE])


def test_object_without_kind_is_named():
    with pytest.raises(InputError) as exc:
        build_cluster([{"metadata": {"name": "x"}}], source="f.yaml")
    assert exc.value.one_line() == "f.yaml: object x: kind: is required"


def test_the_demo_snapshot_loads():
    from pathlib import Path

    import scheduler_engine

    demo = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"
    cluster = load_cluster(demo)
    assert len(cluster.nodes) >= 15
    assert any(n.allocatable.scalar.get("nvidia.com/gpu") == 8 for n in cluster.nodes)
    assert cluster.pending_pods and cluster.pdbs
