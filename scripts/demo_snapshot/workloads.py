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
    for i, n in enumerate(["cpu-a-1", "cpu-b-1"]):
        pod(
            "data",
            f"redis-{i}",
            node_name=n,
            cpu="2",
            memory="8Gi",
            labels={"app": "redis"},
            minute=i,
        )
    for i in range(6):
        zone = "a" if i < 4 else "b"
        node_name = f"cpu-{zone}-{1 + i % 2}"
        labels = {"app": "frontend"}
        pod(
            "web",
            f"frontend-{i}",
            node_name=node_name,
            cpu="2",
            memory="4Gi",
            labels=labels,
            minute=40 + i,
        )
    for i in range(3):
        node_name = f"cpu-c-{1 + i % 2}"
        labels = {"app": "etl"}
        pod(
            "data",
            f"etl-{i}",
            node_name=node_name,
            cpu="12",
            memory="48Gi",
            labels=labels,
            minute=50 + i,
        )


def pending() -> None:
    """Pending pods, each showing a different scheduling outcome."""
    # Fits: more frontend and a small GPU notebook.
    pod("web", "frontend-6", cpu="2", memory="4Gi", labels={"app": "frontend"}, minute=90)
    labels = {"app": "notebook"}
    pod("ml-training", "notebook-alice", cpu="4", memory="32Gi", gpus=1, labels=labels, minute=91)
    # Needs a whole H100 node at high priority: preempts the low-priority experiment.
    pod(
        "ml-training",
        "gpt-finetune-worker-0",
        cpu="64",
        memory="512Gi",
        gpus=8,
        labels={"job": "gpt-finetune"},
        priority_class="training-high",
        minute=92,
        tolerations=H100_TOLERATIONS,
        affinity=H100_AFFINITY,
    )
    # Asks for 16 GPUs in one pod: no node has that many, preemption cannot help.
    pod(
        "ml-training",
        "bad-request-16gpu",
        cpu="8",
        memory="64Gi",
        gpus=16,
        labels={"job": "oops"},
        minute=93,
        priority_class="training-high",
    )
    # Requests a GPU but forgot the toleration.
    labels = {"app": "embedder"}
    no_toleration = pod(
        "ml-inference", "no-toleration-gpu", cpu="2", memory="8Gi", gpus=1, labels=labels, minute=94
    )
    no_toleration["spec"].pop("tolerations")
    pending_constraints()


def pending_constraints() -> None:
    """Pending pods held by a constraint: zone, affinity, spread, size, priority, gate."""
    # Pinned to a zone that does not exist.
    pod(
        "data",
        "zone-d-cache",
        cpu="2",
        memory="8Gi",
        labels={"app": "cache"},
        minute=95,
        nodeSelector={"topology.kubernetes.io/zone": "us-east-1d"},
    )
    # Third redis replica: anti-affinity keeps it off nodes with redis.
    anti_affinity = {
        "labelSelector": {"matchLabels": {"app": "redis"}},
        "topologyKey": "kubernetes.io/hostname",
    }
    pod(
        "data",
        "redis-2",
        cpu="2",
        memory="8Gi",
        labels={"app": "redis"},
        minute=96,
        affinity={
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [anti_affinity]}
        },
    )
    # Spread evenly across zones (frontends are skewed to zone a).
    spread = {
        "maxSkew": 1,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "frontend"}},
    }
    labels = {"app": "frontend"}
    pod(
        "web",
        "frontend-7",
        cpu="2",
        memory="4Gi",
        labels=labels,
        minute=97,
        topologySpreadConstraints=[spread],
    )
    # Too much memory for any node.
    pod("batch", "giant-sort", cpu="8", memory="4Ti", labels={"app": "sort"}, minute=98)
    # Batch that may not preempt, needing a whole A100 node.
    pod(
        "batch",
        "render-farm-0",
        cpu="32",
        memory="256Gi",
        gpus=8,
        labels={"app": "render"},
        minute=99,
        priority_class="batch-no-preempt",
    )
    # Held back by a scheduling gate (e.g. a quota controller).
    gates = [{"name": "kueue.x-k8s.io/admission"}]
    labels = {"job": "queued"}
    pod(
        "ml-training",
        "queued-job-0",
        cpu="4",
        memory="16Gi",
        gpus=2,
        labels=labels,
        minute=100,
        schedulingGates=gates,
    )
    # Handled by another scheduler.
    labels = {"app": "volcano"}
    pod(
        "batch",
        "volcano-job-0",
        cpu="2",
        memory="4Gi",
        labels=labels,
        minute=101,
        schedulerName="volcano",
    )
