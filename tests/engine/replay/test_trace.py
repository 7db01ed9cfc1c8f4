"""Reading traces: openb CSV and JSON lines, and bad input named by file, line and column."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from scheduler_engine.errors import InputError
from scheduler_engine.replay.trace import read_trace, write_jsonl

NODES = "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,2,T4\nn1,64000,131072,4,V100\n"
PODS_HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
    "creation_time,deletion_time,scheduled_time\n"
)


def write(tmp: Path, name: str, text: str) -> str:
    p = tmp / name
    p.write_text(text)
    return str(p)


def test_reads_openb_csv(tmp_path: Path) -> None:
    pods = (
        PODS_HEADER
        + "p0,4000,8192,1,500,T4,LS,Running,0,100,0\np1,1000,1024,0,0,,BE,Running,5,,5\n"
    )
    tr = read_trace(write(tmp_path, "n.csv", NODES), write(tmp_path, "p.csv", pods))
    assert [n.name for n in tr.nodes] == ["n0", "n1"]
    assert tr.gpu_capacity_milli == 6000
    p0 = tr.pods[0]
    assert (p0.created, p0.deleted) == (0.0, 100.0)
    ann = p0.pod.raw["metadata"]["annotations"]
    assert ann == {
        "alibabacloud.com/gpu-milli": "500",
        "alibabacloud.com/gpu-count": "1",
        "alibabacloud.com/gpu-card-model": "T4",
    }
    assert tr.pods[1].deleted is None


@pytest.mark.parametrize(
    ("row", "needle"),
    [
        (
            "p0,-4000,8192,1,500,,LS,Running,0,100,0",
            "line 2: cpu_milli: must be a non-negative integer, got '-4000'",
        ),
        (
            "p0,4000,8192,1,1500,,LS,Running,0,100,0",
            "line 2: gpu_milli: must be between 1 and 1000 when num_gpu is 1, got 1500",
        ),
        (
            "p0,4000,8192,2,500,,LS,Running,0,100,0",
            "line 2: gpu_milli: a share of a GPU (500) needs num_gpu 1, got 2",
        ),
        (
            "p0,4000,8192,1,500,A100,LS,Running,0,100,0",
            "line 2: gpu_spec: unknown GPU type(s) A100 (the nodes have: T4, V100)",
        ),
        (
            "p0,4000,8192,1,500,,LS,Running,50,10,0",
            "line 2: deletion_time: must not be before creation_time (50), got 10",
        ),
        (
            "p0,4000,x,1,500,,LS,Running,0,100,0",
            "line 2: memory_mib: must be a non-negative integer, got 'x'",
        ),
    ],
)
def test_bad_pod_rows_are_named(tmp_path: Path, row: str, needle: str) -> None:
    pods = write(tmp_path, "p.csv", PODS_HEADER + row + "\n")
    with pytest.raises(InputError) as exc:
        read_trace(write(tmp_path, "n.csv", NODES), pods)
    assert exc.value.one_line() == f"{pods}: {needle}"


def test_missing_columns_are_named(tmp_path: Path) -> None:
    nodes = write(tmp_path, "n.csv", "sn,cpu_milli,gpu\nn0,1,1\n")
    with pytest.raises(InputError) as exc:
        read_trace(nodes, write(tmp_path, "p.csv", PODS_HEADER))
    assert exc.value.one_line() == f"{nodes}: line 1 (header): missing column(s) memory_mib, model"


def test_jsonl_round_trip(tmp_path: Path) -> None:
    from scheduler_engine.replay.trace import gpu_node_object, gpu_pod_object

    out = io.StringIO()
    write_jsonl(
        [gpu_node_object("n0", 8000, 1024, 1, "T4")],
        [
            (gpu_pod_object("b", 1000, 64, 1, 250, ""), 5.0, None),
            (gpu_pod_object("a", 1000, 64, 0, 0, ""), 1.0, 9.0),
        ],
        out,
    )
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [x["kind"] for x in lines] == ["Node", "PodCreated", "PodCreated", "PodDeleted"]
    tr = read_trace(None, write(tmp_path, "t.jsonl", out.getvalue()))
    assert [(tp.pod.name, tp.created, tp.deleted) for tp in tr.pods] == [
        ("a", 1.0, 9.0),
        ("b", 5.0, None),
    ]


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("{not json", "line 1: not JSON"),
        ('{"kind": "Pod"}', "line 1: kind: unknown kind 'Pod' (Node, PodCreated, PodDeleted)"),
        (
            '{"kind": "PodCreated", "time": -1, "object": {}}',
            "line 1: time: must be a non-negative number, got -1",
        ),
        (
            '{"kind": "PodDeleted", "time": 3, "pod": "default/ghost"}',
            "line 1: pod: no PodCreated for default/ghost",
        ),
    ],
)
def test_bad_jsonl_lines_are_named(tmp_path: Path, line: str, needle: str) -> None:
    f = write(tmp_path, "t.jsonl", line + "\n")
    with pytest.raises(InputError) as exc:
        read_trace(None, f)
    assert exc.value.one_line().startswith(f"{f}: {needle}")
