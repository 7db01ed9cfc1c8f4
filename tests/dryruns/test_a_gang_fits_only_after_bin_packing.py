"""End to end: a 16-pod native gang (a Job plus its PodGroup) fits only with a bin-packing profile.

18 nodes of 8 GPUs. Sixteen one-GPU pods of higher priority go first; then a
Job of 16 workers that each need a whole node, joined to a
``scheduling.k8s.io/v1alpha2`` PodGroup with ``minCount: 16``. Spreading
(LeastAllocated) leaves the small pods on 16 nodes and 2 whole nodes free:
the gang starts no worker. Bin packing (MostAllocated) puts them on two
nodes: all 16 workers start.
"""

from __future__ import annotations

from typing import Any

import pytest

from dashboard.cluster.services.clusters import ensure_snapshot_cluster
from dashboard.dryruns.models import DryRun
from tests.support.fixtures import BIN_PACKING_CONFIG, poll_dry_run
from tests.support.synthetic import node

GATES = {"GenericWorkload": True, "GangScheduling": True}


def profile(strategy: str) -> str:
    """The shared bin-packing configuration, or the same with the spreading strategy."""
    return BIN_PACKING_CONFIG.replace("MostAllocated", strategy)


def template(gpus: int, **spec: Any) -> dict[str, Any]:
    limits = {"nvidia.com/gpu": str(gpus)}
    container = {
        "name": "w",
        "image": "trainer",
        "resources": {"requests": {"cpu": "1", **limits}, "limits": limits},
    }
    return {"spec": {"containers": [container], **spec}}


WORKLOAD = [
    {
        "kind": "Job",
        "name": "small",
        "namespace": "train",
        "spec": {"parallelism": 16, "template": template(1, priority=1000)},
    },
    {
        "kind": "Job",
        "name": "llm",
        "namespace": "train",
        "spec": {
            "parallelism": 16,
            "template": template(8, schedulingGroup={"podGroupName": "llm"}),
        },
    },
    {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "llm", "namespace": "train"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 16}}},
    },
]


def test_a_16_pod_gang_fits_only_after_a_bin_packing_profile(worker, operator):
    cluster = ensure_snapshot_cluster("binpack", "test")
    snapshot = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "train"}},
        *(node(i) for i in range(18)),
    ]
    ids = {}
    for strategy in ("LeastAllocated", "MostAllocated"):
        r = operator.post(
            "/api/v1/dry-runs/",
            {
                "cluster": cluster.pk,
                "source": "snapshot",
                "snapshot": snapshot,
                "workload": WORKLOAD,
                "inline_config": profile(strategy),
                "feature_gates": GATES,
            },
            format="json",
        )
        assert r.status_code == 202, r.content
        assert r.json()["workload_pods"] == 32
        ids[strategy] = r.json()["id"]
    out = {}
    for strategy, run_id in ids.items():
        done = poll_dry_run(operator, run_id)
        assert done["status"] == "succeeded", done
        (g,) = done["summary"]["gangs"]
        out[strategy] = (done["pods_placed"], g["name"], g["status"], g["scheduled"])
    assert out == {
        "LeastAllocated": (16, "train/llm", "Unschedulable", 0),
        "MostAllocated": (32, "train/llm", "Scheduled", 16),
    }


@pytest.mark.parametrize(
    ("group", "field", "says"),
    [
        ({"metadata": {}}, "workload[0].metadata.name", "is required"),
        ({"metadata": {"name": "Bad_Name"}}, "workload[0].metadata.name", "Invalid value"),
        (
            {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 0}}}},
            "workload[0].spec.schedulingPolicy.gang.minCount",
            "",
        ),
    ],
)
def test_a_bad_pod_group_in_a_workload_is_a_400_naming_it(operator, group, field, says):
    cluster = ensure_snapshot_cluster("binpack", "test")
    item = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup", **group}
    r = operator.post(
        "/api/v1/dry-runs/",
        {"cluster": cluster.pk, "source": "snapshot", "snapshot": [node(0)], "workload": [item]},
        format="json",
    )
    assert r.status_code == 400, r.content
    errors = r.json()
    assert list(errors) == [field], errors
    assert says in errors[field][0]
    assert not DryRun.objects.exists()


def test_pod_groups_of_the_two_apis_may_share_a_name(operator):
    cluster = ensure_snapshot_cluster("binpack", "test")
    native = WORKLOAD[2]
    cos = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "llm", "namespace": "train"},
        "spec": {"minMember": 2},
    }

    def post(snapshot):
        body = {"cluster": cluster.pk, "source": "snapshot", "snapshot": [node(0), *snapshot]}
        return operator.post("/api/v1/dry-runs/", body, format="json")

    assert post([native, cos]).status_code == 202
    r = post([native, cos, native])
    assert r.status_code == 400, r.content
    assert r.json() == {
        "snapshot[3].metadata.name": ["duplicate PodGroup train/llm (also snapshot[1])"]
    }
