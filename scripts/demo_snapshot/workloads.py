"""Running workloads (inference, training, CPU services) and pending pods to explain."""

from __future__ import annotations

from typing import Any

from .objects import GPU_TOLERATION, PYTORCH_IMAGE, ZONES, pdb, pod

H100_TOLERATIONS = [
    GPU_TOLERATION,
    {"key": "pool", "operator": "Equal", "value": "h100", "effect": "NoSchedule"},
]
H100_AFFINITY: dict[str, Any] = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {
                            "key": "nvidia.com/gpu.product",
                            "operator": "In",
                            "values": ["NVIDIA-H100-80GB-HBM3"],
                        }
                    ]
                }
            ]
        }
    }
}


def running() -> None:
    """Inference and sweeps on the A100s, training on the H100s, CPU services."""
    # Inference replicas, 4 GPUs each, on the A100 pool, protected by a PDB.
    a100 = [f"a100-{z[-1]}-{i}" for z in ZONES for i in (1, 2)]
    for i, n in enumerate(a100):
        pod(
            "ml-inference",
            f"llm-serve-{i}",
            node_name=n,
            cpu="16",
            memory="128Gi",
            gpus=4,
            labels={"app": "llm-serve"},
            priority_class="inference-critical",
            minute=i,
            image=PYTORCH_IMAGE,
        )
    pdb("ml-inference", "llm-serve", {"app": "llm-serve"}, allowed=1, min_available=5)
    # Preemptible sweeps fill the other half of four A100 nodes.
    for i, n in enumerate(a100[:4]):
        pod(
            "ml-training",
            f"sweep-{i}",
            node_name=n,
            cpu="8",
            memory="64Gi",
            gpus=4,
            labels={"job": "sweep", "team": "research"},
            priority_class="training-low",
            minute=20 + i,
            image=PYTORCH_IMAGE,
        )
    # A low-priority experiment holds a whole H100 node; a high-priority run holds another.
    for name, node_name, gpus, job, priority, minute in [
        ("experiment-7-worker-0", "h100-a-1", 8, "experiment-7", "training-low", 30),
        ("gpt-pretrain-worker-0", "h100-a-2", 8, "gpt-pretrain", "training-high", 10),
        ("gpt-pretrain-worker-1", "h100-b-1", 6, "gpt-pretrain", "training-high", 10),
    ]:
        pod(
            "ml-training",
            name,
            node_name=node_name,
            cpu="64",
            memory="512Gi",
            gpus=gpus,
            labels={"job": job},
            priority_class=priority,
            minute=minute,
            tolerations=H100_TOLERATIONS,
        )
    pdb("ml-training", "gpt-pretrain", {"job": "gpt-pretrain"}, allowed=0, min_available=2)
    cpu_services()


def cpu_services() -> None:
    """Redis with anti-affinity, web front ends skewed to zone a, data pipelines."""
    # Replicas ``app-i``, the i-th on the i-th node from minute ``first + i``.
    for ns, app, nodes, first, cpu, memory in [
        ("data", "redis", ["cpu-a-1", "cpu-b-1"], 0, "2", "8Gi"),
        ("web", "frontend", ["cpu-a-1", "cpu-a-2"] * 2 + ["cpu-b-1", "cpu-b-2"], 40, "2", "4Gi"),
        ("data", "etl", ["cpu-c-1", "cpu-c-2", "cpu-c-1"], 50, "12", "48Gi"),
    ]:
        for i, node_name in enumerate(nodes):
            pod(
                ns,
                f"{app}-{i}",
                node_name=node_name,
                cpu=cpu,
                memory=memory,
                labels={"app": app},
                minute=first + i,
            )


REDIS_ANTI_AFFINITY = {
    "podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {
                "labelSelector": {"matchLabels": {"app": "redis"}},
                "topologyKey": "kubernetes.io/hostname",
            }
        ]
    }
}
ZONE_SPREAD = {
    "maxSkew": 1,
    "topologyKey": "topology.kubernetes.io/zone",
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "frontend"}},
}

# The pending pods, one a minute from minute 90, each showing a scheduling outcome: namespace,
# name, the ``pod()`` keywords of ``COLUMNS`` and a dict of any further ones.
COLUMNS = ("cpu", "memory", "gpus", "labels", "priority_class")
PENDING: list[tuple[str, str, str, str, int, dict[str, str], str | None, dict[str, Any]]] = [
    # Fits: more frontend and a small GPU notebook.
    ("web", "frontend-6", "2", "4Gi", 0, {"app": "frontend"}, None, {}),
    ("ml-training", "notebook-alice", "4", "32Gi", 1, {"app": "notebook"}, None, {}),
    # Needs a whole H100 node at high priority: preempts the low-priority experiment.
    ("ml-training", "gpt-finetune-worker-0", "64", "512Gi", 8, {"job": "gpt-finetune"}, "training-high",
     {"tolerations": H100_TOLERATIONS, "affinity": H100_AFFINITY}),
    # Asks for 16 GPUs in one pod: no node has that many, preemption cannot help.
    ("ml-training", "bad-request-16gpu", "8", "64Gi", 16, {"job": "oops"}, "training-high", {}),
    # Requests a GPU but forgot the toleration.
    ("ml-inference", "no-toleration-gpu", "2", "8Gi", 1, {"app": "embedder"}, None,
     {"gpu_toleration": False}),
    # Pinned to a zone that does not exist.
    ("data", "zone-d-cache", "2", "8Gi", 0, {"app": "cache"}, None,
     {"nodeSelector": {"topology.kubernetes.io/zone": "us-east-1d"}}),
    # Third redis replica: anti-affinity keeps it off nodes with redis.
    ("data", "redis-2", "2", "8Gi", 0, {"app": "redis"}, None, {"affinity": REDIS_ANTI_AFFINITY}),
    # Spread evenly across zones (frontends are skewed to zone a).
    ("web", "frontend-7", "2", "4Gi", 0, {"app": "frontend"}, None,
     {"topologySpreadConstraints": [ZONE_SPREAD]}),
    # Too much memory for any node.
    ("batch", "giant-sort", "8", "4Ti", 0, {"app": "sort"}, None, {}),
    # Batch that may not preempt, needing a whole A100 node.
    ("batch", "render-farm-0", "32", "256Gi", 8, {"app": "render"}, "batch-no-preempt", {}),
    # Held back by a scheduling gate (e.g. a quota controller).
    ("ml-training", "queued-job-0", "4", "16Gi", 2, {"job": "queued"}, None,
     {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]}),
    # Handled by another scheduler.
    ("batch", "volcano-job-0", "2", "4Gi", 0, {"app": "volcano"}, None, {"schedulerName": "volcano"}),
]  # fmt: skip


def pending() -> None:
    """Pending pods, each showing a different scheduling outcome (``PENDING``)."""
    for minute, (ns, name, *values, more) in enumerate(PENDING, start=90):
        pod(ns, name, minute=minute, **dict(zip(COLUMNS, values, strict=True)), **more)
