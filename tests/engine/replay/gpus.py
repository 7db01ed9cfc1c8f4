"""Small GPU clusters for replay, GPU-share and policy tests."""

from __future__ import annotations

import random
from typing import Any

from scheduler_engine.cluster import ClusterState
from scheduler_engine.framework.handle import FrameworkHandle, SimulationContext
from scheduler_engine.framework.snapshot import Snapshot
from scheduler_engine.objects import Node, Pod, parse_node, parse_pod
from scheduler_engine.plugins.gpushare.resources import GPU_INDEX
from scheduler_engine.replay.trace import gpu_node_object, gpu_pod_object

__all__ = ["gpu_node", "gpu_pod", "handle_over", "running"]


def gpu_node(
    name: str, cpu: int = 64000, gpus: int = 8, model: str = "V100", mem: int = 262144
) -> Node:
    return parse_node(gpu_node_object(name, cpu, mem, gpus, model))


def gpu_pod(
    name: str, cpu: int = 1000, gpus: int = 0, milli: int = 1000, spec: str = "", mem: int = 1024
) -> Pod:
    return parse_pod(gpu_pod_object(name, cpu, mem, gpus, milli if gpus else 0, spec))


def running(pod: Pod, node: str, gpu_index: str | None = None) -> Pod:
    """The pod bound to ``node`` (with its GPUs named when given)."""
    raw: dict[str, Any] = dict(pod.raw)
    meta = dict(raw["metadata"])
    if gpu_index is not None:
        meta["annotations"] = {**meta.get("annotations", {}), GPU_INDEX: gpu_index}
    raw["metadata"] = meta
    raw["spec"] = {**raw["spec"], "nodeName": node}
    return parse_pod(raw)


def handle_over(nodes: list[Node], pods: list[Pod] = (), seed: int = 0) -> FrameworkHandle:
    cluster = ClusterState(nodes=list(nodes), pods=list(pods))
    snap = Snapshot(cluster.nodes, [p for p in cluster.pods if p.node_name])
    ctx = SimulationContext(cluster=cluster, snapshot=snap, rng=random.Random(seed))
    return FrameworkHandle(ctx)
