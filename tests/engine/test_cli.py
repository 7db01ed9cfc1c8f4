"""The engine CLI end to end: ``python -m scheduler_engine`` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.engine.builders import make_node, make_pod

ROOT = Path(__file__).resolve().parents[2]

ISSUE_FACT_1 = (
    "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, "
    "1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. no new claims to "
    "deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
)
ISSUE_FACT_2 = (
    "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
    "1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. no new claims to "
    "deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
)


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scheduler_engine", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def write(tmp_path: Path, objs: list[dict], name: str = "snap.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objs))
    return str(path)


THREE_NODES = [
    make_node("cordoned").cap(cpu=4, memory="8Gi").unschedulable().obj(),
    make_node("tainted").cap(cpu=4, memory="8Gi").taint("dedicated", "x").obj(),
    make_node("plain").cap(cpu=1, memory="1Gi").obj(),
]


@pytest.mark.parametrize(
    ("pod", "message"),
    [
        (make_pod("big").req(cpu=2, memory="2Gi").obj(), ISSUE_FACT_1),
        (make_pod("aff").node_affinity_in("zone", "nope").obj(), ISSUE_FACT_2),
        (
            make_pod("pinned").node_name_affinity("plain").req(cpu=2).obj(),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: "
            "3 Preemption is not helpful for scheduling.",
        ),
        (
            make_pod("never").req(cpu=2).priority(5).preemption_policy("Never").obj(),
            "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), "
            "1 node(s) were unschedulable. no new claims to deallocate, preemption: not eligible "
            "due to preemptionPolicy=Never.",
        ),
    ],
    ids=["issue-fact-resources", "issue-fact-affinity", "pinned-by-match-fields", "policy-never"],
)
def test_failed_scheduling_messages(tmp_path, pod, message):
    out = cli("simulate", "--snapshot", write(tmp_path, [*THREE_NODES, pod]))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    (r,) = doc["results"]
    assert (r["status"], r["node"], r["message"]) == ("Unschedulable", None, message)


def test_result_document_shape_and_queue_order(tmp_path):
    objs = [
        make_node("n").cap(cpu=4, memory="8Gi").obj(),
        make_pod("low").req(cpu=1).created("2024-01-01T00:00:00Z").obj(),
        make_pod("high").req(cpu=1).priority(100).created("2024-01-01T00:00:05Z").obj(),
    ]
    doc = json.loads(cli("simulate", "--snapshot", write(tmp_path, objs)).stdout)
    assert [r["pod"] for r in doc["results"]] == ["default/high", "default/low"]
    assert set(doc["results"][0]) == {
        "pod",
        "status",
        "node",
        "message",
        "nominatedNode",
        "victims",
        "events",
    }
    assert set(doc) == {"results", "events", "summary"}
    assert doc["summary"]["counts"]["Scheduled"] == 2


def test_preemption_with_pdb_protecting_one_victim(tmp_path):
    objs = [
        make_node("a").cap(cpu=2, memory="8Gi").obj(),
        make_node("b").cap(cpu=2, memory="8Gi").obj(),
        make_pod("guarded").req(cpu="1500m").priority(1).labels(app="db").node("a").obj(),
        make_pod("free").req(cpu="1500m").priority(1).labels(app="web").node("b").obj(),
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "db"}}, "minAvailable": 1},
            "status": {"disruptionsAllowed": 0},
        },
        make_pod("urgent").req(cpu=1).priority(1000).obj(),
    ]
    doc = json.loads(cli("simulate", "--snapshot", write(tmp_path, objs)).stdout)
    (r,) = doc["results"]
    assert (r["status"], r["node"], r["nominatedNode"], r["victims"]) == (
        "Scheduled",
        "b",
        None,
        ["default/free"],
    )


def test_explain_adds_scores_and_failures(tmp_path):
    objs = [*THREE_NODES, make_node("big").cap(cpu=8, memory="8Gi").obj(), make_pod("p").obj()]
    out = cli("simulate", "--snapshot", write(tmp_path, objs), "--explain", "--seed", "4")
    r = json.loads(out.stdout)["results"][0]
    assert set(r["scores"]) == {"plain", "big"}
    assert r["filterFailures"]["tainted"]["plugin"] == "TaintToleration"
    assert "NodeResourcesFit" in r["pluginScores"]["big"]
    assert isinstance(r["allFilterFailures"]["cordoned"], list)


def test_seed_is_repeatable(tmp_path):
    objs = [make_node(f"n{i}").cap(cpu=4, memory="8Gi").obj() for i in range(6)]
    objs += [make_pod(f"p{i}").obj() for i in range(4)]
    path = write(tmp_path, objs)
    runs = [json.loads(cli("simulate", "--snapshot", path, "--seed", "9").stdout) for _ in range(2)]
    assert runs[0]["results"] == runs[1]["results"]


def test_table_format(tmp_path):
    out = cli(
        "simulate",
        "--snapshot",
        write(tmp_path, [*THREE_NODES, make_pod("p").obj()]),
        "--format",
        "table",
    )
    assert out.returncode == 0
    assert out.stdout.splitlines()[0].split()[:3] == ["POD", "STATUS", "NODE"]
    assert "default/p" in out.stdout


@pytest.mark.parametrize(
    ("objs", "fragment"),
    [
        (
            [
                {
                    "kind": "Pod",
                    "metadata": {"name": "x"},
                    "spec": {
                        "containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}]
                    },
                }
            ],
            "Pod default/x",
        ),
        ([{"metadata": {"name": "x"}}], "kind"),
    ],
    ids=["bad-quantity", "missing-kind"],
)
def test_bad_snapshot_exits_2_with_one_line(tmp_path, objs, fragment):
    path = write(tmp_path, objs)
    out = cli("simulate", "--snapshot", path)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and path in lines[0] and fragment in lines[0]
    assert "Traceback" not in out.stderr


def test_missing_snapshot_exits_2(tmp_path):
    out = cli("simulate", "--snapshot", str(tmp_path / "nope.yaml"))
    assert out.returncode == 2 and "no such file" in out.stderr


def test_bad_config_exits_2_naming_field(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled:\n"
        "      - name: NoSuchPlugin\n"
    )
    snap = write(tmp_path, THREE_NODES)
    out = cli("simulate", "--snapshot", snap, "--config", str(cfg))
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "NoSuchPlugin" in out.stderr
    out = cli("validate-config", str(cfg))
    assert out.returncode == 2 and "NoSuchPlugin" in out.stderr


def test_validate_config_accepts_a_good_file(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: default-scheduler\n"
    )
    out = cli("validate-config", str(cfg))
    assert out.returncode == 0 and "valid" in out.stdout


def test_config_profiles_route_pods(tmp_path):
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: default-scheduler\n- schedulerName: gpu-scheduler\n"
    )
    objs = [
        *THREE_NODES,
        make_pod("a").obj(),
        make_pod("b").scheduler("gpu-scheduler").obj(),
        make_pod("c").scheduler("volcano").obj(),
    ]
    doc = json.loads(
        cli("simulate", "--snapshot", write(tmp_path, objs), "--config", str(cfg)).stdout
    )
    status = {r["pod"]: r["status"] for r in doc["results"]}
    assert status == {"default/a": "Scheduled", "default/b": "Scheduled", "default/c": "Skipped"}
