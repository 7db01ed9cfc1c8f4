"""The bundled demo cluster keeps showing what it is there to show."""

from __future__ import annotations

from pathlib import Path

import pytest

import scheduler_engine
from scheduler_engine import load_cluster, simulate

DEMO = Path(scheduler_engine.__file__).parent / "demo" / "gpu-cluster.yaml"


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    out = simulate(load_cluster(DEMO), seed=0).to_dict()
    return {r["pod"]: r for r in out["results"]}


def test_high_priority_training_preempts_the_low_priority_experiment(results):
    r = results["ml-training/gpt-finetune-worker-0"]
    assert (r["status"], r["node"]) == ("Scheduled", "h100-a-1")
    assert r["victims"] == ["ml-training/experiment-7-worker-0"]


def test_a_request_bigger_than_any_node_is_not_helped_by_preemption(results):
    msg = results["ml-training/bad-request-16gpu"]["message"]
    assert msg.startswith("0/20 nodes are available: ")
    assert "Insufficient nvidia.com/gpu" in msg
    assert msg.endswith(
        "no new claims to deallocate, preemption: 0/20 nodes are available: 20 Preemption is not helpful for scheduling."
    )


def test_a_pod_that_may_not_preempt_says_so(results):
    assert results["batch/render-farm-0"]["message"].endswith(
        "no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."
    )


def test_dra_allocation_is_reported(results):
    r = results["ml-inference/render-preview-0"]
    assert r["status"] == "Scheduled"
    [alloc] = r["allocations"]
    assert alloc["allocatedNow"] is True
    assert alloc["allocation"]["devices"]["results"][0]["driver"] == "gpu.nvidia.com"


def test_gated_and_foreign_pods(results):
    queued = results["ml-training/queued-job-0"]
    assert queued["status"] == "Skipped" and queued["events"] == []
    assert queued["message"] == "Scheduling is blocked due to non-empty scheduling gates"
    assert (
        queued["preEnqueue"]["reason"] == "waiting for scheduling gates: [kueue.x-k8s.io/admission]"
    )
    assert results["batch/volcano-job-0"]["status"] == "Skipped"


def test_storage_reasons(results):
    assert (
        "didn't find available persistent volumes to bind"
        in results["ml-training/dataset-prep-huge"]["message"]
    )
    assert (
        "didn't match PersistentVolume's node affinity"
        in results["data/postgres-0-debug"]["message"]
    )
