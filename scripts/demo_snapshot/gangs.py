"""Gangs: three training jobs of the native workload API (``scheduling.k8s.io/v1alpha2``).

Each starts all of its workers or none.  kube-scheduler schedules them as
groups only with its alpha gates on (``make run`` turns them on, docs/gangs.md
says why); without them they are ordinary pods.  They run at a negative
priority, as opportunistic research jobs do, so every other pending pod (and
any dry-run workload) is queued before them and keeps the outcome it has
without them.
"""

from __future__ import annotations

from typing import Any

from .objects import PYTORCH_IMAGE, objects, pod, priority_class, ts

GANG_CLASS = "research-opportunistic"


def build() -> None:
    priority_class(GANG_CLASS, -100, "Research jobs that wait for free capacity; never preempt.")
    # fits: two 1-GPU workers on the A100s of zone c
    gang("bert-finetune", 2, cpu="4", memory="32Gi", gpus=1, minute=110)
    # blocked by GPUs: four workers of a whole 8-GPU node each; no node has eight free
    gang("llama-pretrain", 4, cpu="48", memory="512Gi", gpus=8, minute=111)
    # blocked by topology: four 16-CPU workers that must share a zone; the CPU pool
    # has room for seven, but no zone for more than three
    gang(
        "xgb-train",
        4,
        cpu="16",
        memory="32Gi",
        minute=112,
        topology_key="topology.kubernetes.io/zone",
    )


def _scheduling_object(kind: str, name: str, minute: int, spec: dict[str, Any]) -> None:
    objects.append(
        {
            "apiVersion": "scheduling.k8s.io/v1alpha2",
            "kind": kind,
            "metadata": {"name": name, "namespace": "ml-training", "creationTimestamp": ts(minute)},
            "spec": spec,
        }
    )


def gang(
    name: str,
    workers: int,
    *,
    cpu: str,
    memory: str,
    gpus: int = 0,
    minute: int,
    topology_key: str | None = None,
) -> None:
    """A Workload, the PodGroup a controller stamps from it, and its pending workers."""
    template: dict[str, Any] = {
        "name": "workers",
        "schedulingPolicy": {"gang": {"minCount": workers}},
    }
    if topology_key:
        template["schedulingConstraints"] = {"topology": [{"key": topology_key}]}
    _scheduling_object("Workload", name, minute, {"podGroupTemplates": [template]})
    spec: dict[str, Any] = {
        "podGroupTemplateRef": {
            "workload": {"workloadName": name, "podGroupTemplateName": "workers"}
        },
        "schedulingPolicy": template["schedulingPolicy"],
    }
    if topology_key:
        spec["schedulingConstraints"] = template["schedulingConstraints"]
    _scheduling_object("PodGroup", name, minute, spec)
    for i in range(workers):
        pod(
            "ml-training",
            f"{name}-worker-{i}",
            cpu=cpu,
            memory=memory,
            gpus=gpus,
            labels={"job": name},
            priority_class=GANG_CLASS,
            minute=minute,
            image=PYTORCH_IMAGE,
            schedulingGroup={"podGroupName": name},
        )
