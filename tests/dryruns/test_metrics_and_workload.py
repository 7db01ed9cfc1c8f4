"""Fleet metrics (GPU stranding, PDB violations) and workload expansion, without Django I/O."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboard.dryruns.services.errors import BadInput
from dashboard.dryruns.services.metrics import METRICS, fleet_metrics, verdicts
from dashboard.dryruns.services.workload import expand_workload
from scheduler_engine import build_cluster
from tests.support.synthetic import job, node, pod


def test_free_gpus_on_nodes_with_fewer_than_the_pending_size_are_stranded():
    objs = [node(0), node(1), pod(0, "node-0", gpus=4), pod(1, "node-1", gpus=2), pod(2, gpus=8)]
    metrics = fleet_metrics(build_cluster(objs), [])
    before = metrics["before"]
    assert before["gpuFree"] == 10 and before["gpuStrandingSize"] == 8
    assert before["gpuStranded"] == 10 and before["gpuLargestFreeOnNode"] == 6


def test_victims_beyond_a_pdb_budget_count_as_violations():
    victim = pod(0, "node-0", gpus=8)
    victim["metadata"]["labels"] = {"app": "t"}
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "t", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "t"}}},
        "status": {"disruptionsAllowed": 0},
    }
    results = [
        {
            "pod": "default/pod-1",
            "status": "Scheduled",
            "node": "node-0",
            "victims": ["default/pod-0"],
        }
    ]
    after = fleet_metrics(build_cluster([node(0), victim, pdb, pod(1, gpus=8)]), results)["after"]
    assert after["preemptions"] == 1 and after["pdbViolations"] == 1
    assert after["podsPending"] == 1


def test_verdicts_know_which_way_is_better():
    lines = {
        v["metric"]: v
        for v in verdicts(
            {"podsPending": 5, "gpuAllocation": 0.5}, {"podsPending": 3, "gpuAllocation": 0.4}
        )
    }
    assert lines["podsPending"]["verdict"] == "better"
    assert lines["gpuAllocation"]["verdict"] == "worse"


def test_a_template_expands_into_named_replicas():
    pods = expand_workload([job("train", 3)])
    assert [p["metadata"]["name"] for p in pods] == ["train-0", "train-1", "train-2"]
    assert all(p["kind"] == "Pod" and "nodeName" not in p["spec"] for p in pods)


def test_a_real_job_object_uses_its_parallelism_and_template():
    obj = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "ml"},
        "spec": {"parallelism": 2, "template": {"spec": {"containers": []}}},
    }
    assert [p["metadata"]["name"] for p in expand_workload(obj)] == ["j-0", "j-1"]


def test_an_unknown_kind_is_named():
    with pytest.raises(BadInput) as exc:
        expand_workload([{"kind": "CronJob"}])
    assert "workload[0].kind" in exc.value.errors


def test_equal_states_pack_to_equal_bytes(monkeypatch):
    import gzip as _gzip

    from dashboard.dryruns import codec

    a = codec.pack([node(0)])
    monkeypatch.setattr(_gzip.time, "time", lambda: 1e9)
    assert codec.pack([node(0)]) == a


def test_a_timing_gets_no_verdict_and_every_metric_has_a_name_and_unit():
    lines = {
        v["metric"]: v
        for v in verdicts(
            {"podsPerSecond": 900.0, "zoneSkew": 2}, {"podsPerSecond": 20.0, "zoneSkew": 2}
        )
    }
    assert lines["podsPerSecond"]["verdict"] is None
    assert "no verdict" in lines["podsPerSecond"]["line"]
    assert lines["zoneSkew"]["verdict"] == "same"
    for key, m in METRICS.items():
        assert m.label and m.unit and m.definition.endswith("."), key


def test_the_metrics_doc_defines_every_metric():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "metrics.md").read_text()
    for key, m in METRICS.items():
        assert f"| `{key}` | {m.label} | {m.unit} | {m.definition} |" in doc, key
