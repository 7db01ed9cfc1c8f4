"""Traces a replay reads: the openb CSV files and Schedlab's own JSON-lines format.

A :class:`Trace` is ordinary Kubernetes objects: nodes, and pods with the time
they were created and (optionally) deleted.  Bad input raises
:class:`~scheduler_engine.errors.InputError` naming the file, the line and the
column or field.

Schedlab's trace format (``.jsonl``), one JSON object a line::

    {"kind": "Node", "object": {...a Node...}}
    {"kind": "PodCreated", "time": 12.0, "object": {...a Pod...}}
    {"kind": "PodDeleted", "time": 99.5, "pod": "namespace/name"}

Times are seconds (any origin); lines may come in any order.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..objects import Node, Pod
from ..objects.node import parse_node
from ..objects.pod import parse_pod
from ..plugins.gpushare.resources import (
    GPU_COUNT,
    GPU_MILLI,
    GPU_MODEL,
    MILLI,
    gpu_request,
    node_gpu_model,
)

__all__ = [
    "NODE_COLUMNS",
    "POD_COLUMNS",
    "Trace",
    "TracePod",
    "gpu_node_object",
    "gpu_pod_object",
    "read_trace",
    "write_jsonl",
]

NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS = (
    "name",
    "cpu_milli",
    "memory_mib",
    "num_gpu",
    "gpu_milli",
    "gpu_spec",
    "creation_time",
    "deletion_time",
)
# what the FGD simulator's node files give every node (status.allocatable.pods)
NODE_MAX_PODS = "1001"
NAMESPACE = "default"


@dataclass(slots=True)
class TracePod:
    pod: Pod
    created: float
    deleted: float | None = None


@dataclass(slots=True)
class Trace:
    nodes: list[Node] = field(default_factory=list)
    pods: list[TracePod] = field(default_factory=list)
    source: str = ""

    @property
    def gpu_capacity_milli(self) -> int:
        return sum(int(n.allocatable.scalar.get(GPU_COUNT, 0)) * MILLI for n in self.nodes)


def gpu_node_object(name: str, cpu_milli: int, memory_mib: int, gpus: int, model: str) -> dict:
    """A Node as the open-gpu-share ecosystem describes a GPU machine."""
    alloc = {"cpu": f"{cpu_milli}m", "memory": f"{memory_mib}Mi", "pods": NODE_MAX_PODS}
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    if gpus:
        alloc[GPU_COUNT] = str(gpus)
        alloc[GPU_MILLI] = str(gpus * MILLI)
    if model:
        labels[GPU_MODEL] = model
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "status": {"allocatable": dict(alloc), "capacity": dict(alloc)},
    }


def gpu_pod_object(
    name: str, cpu_milli: int, memory_mib: int, num_gpu: int, gpu_milli: int, gpu_spec: str
) -> dict:
    """A Pod asking for CPU, memory and GPUs (whole or a share) the open-gpu-share way."""
    requests = {"cpu": f"{cpu_milli}m", "memory": f"{memory_mib}Mi"}
    annotations: dict[str, str] = {}
    if num_gpu:
        requests[GPU_MILLI] = str(num_gpu * gpu_milli)
        annotations[GPU_MILLI] = str(gpu_milli)
        annotations[GPU_COUNT] = str(num_gpu)
        if gpu_spec:
            annotations[GPU_MODEL] = gpu_spec
    meta: dict[str, Any] = {"name": name, "namespace": NAMESPACE}
    if annotations:
        meta["annotations"] = annotations
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": meta,
        "spec": {
            "containers": [
                {
                    "name": "main",
                    "image": "trace",
                    "resources": {"requests": requests, "limits": dict(requests)},
                }
            ]
        },
    }


# -- openb CSV ---------------------------------------------------------------------
def _rows(path: str, columns: Iterable[str]) -> Iterable[tuple[int, dict[str, str]]]:
    try:
        f = open(path, newline="", encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=path) from None
    with f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        missing = [c for c in columns if c not in header]
        if missing:
            raise InputError(
                f"missing column(s) {', '.join(missing)}", file=path, obj="line 1 (header)"
            )
        yield from enumerate(reader, start=2)


def _int(path: str, line: int, row: Mapping[str, str], col: str, *, optional: bool = False) -> int:
    raw = (row.get(col) or "").strip()
    if raw == "" and optional:
        return -1
    try:
        v = int(raw)
    except ValueError:
        raise InputError(
            f"must be a non-negative integer, got {raw!r}", file=path, obj=f"line {line}", field=col
        ) from None
    if v < 0:
        raise InputError(
            f"must be a non-negative integer, got {raw!r}", file=path, obj=f"line {line}", field=col
        )
    return v


def read_openb_nodes(path: str) -> list[Node]:
    nodes: list[Node] = []
    seen: set[str] = set()
    for line, row in _rows(path, NODE_COLUMNS):
        name = (row.get("sn") or "").strip()
        if not name:
            raise InputError("is required", file=path, obj=f"line {line}", field="sn")
        if name in seen:
            raise InputError(f"duplicate node {name!r}", file=path, obj=f"line {line}", field="sn")
        seen.add(name)
        obj = gpu_node_object(
            name,
            _int(path, line, row, "cpu_milli"),
            _int(path, line, row, "memory_mib"),
            _int(path, line, row, "gpu"),
            (row.get("model") or "").strip(),
        )
        nodes.append(parse_node(obj, source=path))
    return nodes


def read_openb_pods(path: str, models: set[str]) -> list[TracePod]:
    out: list[TracePod] = []
    seen: set[str] = set()
    for line, row in _rows(path, POD_COLUMNS):
        where = {"file": path, "obj": f"line {line}"}
        name = (row.get("name") or "").strip()
        if not name:
            raise InputError("is required", field="name", **where)
        if name in seen:
            raise InputError(f"duplicate pod {name!r}", field="name", **where)
        seen.add(name)
        num_gpu = _int(path, line, row, "num_gpu")
        gpu_milli = _int(path, line, row, "gpu_milli")
        if num_gpu and not 0 < gpu_milli <= MILLI:
            raise InputError(
                f"must be between 1 and {MILLI} when num_gpu is {num_gpu}, got {gpu_milli}",
                field="gpu_milli",
                **where,
            )
        if num_gpu > 1 and gpu_milli < MILLI:
            raise InputError(
                f"a share of a GPU ({gpu_milli}) needs num_gpu 1, got {num_gpu}",
                field="gpu_milli",
                **where,
            )
        spec = (row.get("gpu_spec") or "").strip()
        unknown = [m for m in spec.split("|") if m and m not in models]
        if unknown:
            raise InputError(
                f"unknown GPU type(s) {', '.join(unknown)} (the nodes have: "
                f"{', '.join(sorted(models)) or 'none'})",
                field="gpu_spec",
                **where,
            )
        created = _int(path, line, row, "creation_time")
        deleted = _int(path, line, row, "deletion_time", optional=True)
        if 0 <= deleted < created:
            raise InputError(
                f"must not be before creation_time ({created}), got {deleted}",
                field="deletion_time",
                **where,
            )
        obj = gpu_pod_object(
            name,
            _int(path, line, row, "cpu_milli"),
            _int(path, line, row, "memory_mib"),
            num_gpu,
            gpu_milli if num_gpu else 0,
            spec,
        )
        pod = parse_pod(obj, source=path)
        out.append(TracePod(pod, float(created), float(deleted) if deleted >= 0 else None))
    return out


# -- JSON lines ----------------------------------------------------------------------
def read_jsonl(path: str) -> tuple[list[Node], list[TracePod]]:
    nodes: list[Node] = []
    pods: dict[str, TracePod] = {}
    deletions: list[tuple[int, str, float]] = []
    try:
        f = open(path, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=path) from None
    with f:
        for line, text in enumerate(f, start=1):
            if not text.strip():
                continue
            where = {"file": path, "obj": f"line {line}"}
            try:
                rec = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InputError(f"not JSON: {exc.msg}", **where) from None
            if not isinstance(rec, dict):
                raise InputError("must be a JSON object", **where)
            kind = rec.get("kind")
            if kind == "Node":
                obj = rec.get("object")
                if not isinstance(obj, dict):
                    raise InputError("must be a Node object", field="object", **where)
                try:
                    nodes.append(parse_node(obj, source=path))
                except InputError as exc:
                    raise InputError(exc.message, field=exc.field, **where) from None
            elif kind in ("PodCreated", "PodDeleted"):
                t = rec.get("time")
                if isinstance(t, bool) or not isinstance(t, (int, float)) or t < 0:
                    raise InputError(
                        f"must be a non-negative number, got {t!r}", field="time", **where
                    )
                if kind == "PodCreated":
                    obj = rec.get("object")
                    if not isinstance(obj, dict):
                        raise InputError("must be a Pod object", field="object", **where)
                    try:
                        pod = parse_pod(obj, source=path)
                    except InputError as exc:
                        raise InputError(exc.message, field=exc.field, **where) from None
                    req = gpu_request(pod)
                    if req.error:
                        raise InputError(req.error, field="object.metadata.annotations", **where)
                    if pod.key in pods:
                        raise InputError(f"duplicate pod {pod.key}", field="object", **where)
                    pods[pod.key] = TracePod(pod, float(t))
                else:
                    key = rec.get("pod")
                    if not isinstance(key, str) or "/" not in key:
                        raise InputError("must be namespace/name", field="pod", **where)
                    deletions.append((line, key, float(t)))
            else:
                raise InputError(
                    f"unknown kind {kind!r} (Node, PodCreated, PodDeleted)", field="kind", **where
                )
    for line, key, t in deletions:
        tp = pods.get(key)
        where = {"file": path, "obj": f"line {line}"}
        if tp is None:
            raise InputError(f"no PodCreated for {key}", field="pod", **where)
        if t < tp.created:
            raise InputError(
                f"deleted ({t}) before it was created ({tp.created})", field="time", **where
            )
        tp.deleted = t
    return nodes, sorted(pods.values(), key=lambda tp: tp.created)


def write_jsonl(
    nodes: Iterable[Mapping[str, Any]],
    pods: Iterable[tuple[Any, ...]],
    out: Any,
) -> int:
    """Write a trace; returns the lines written.

    ``pods`` are ``(Pod object, created, deleted or None)``, optionally with a
    fourth item: what was observed of the pod (``{"node": ..., "boundTime": ...}``),
    written as the record's ``observed`` (replay ignores it).
    """
    n = 0
    for obj in nodes:
        out.write(json.dumps({"kind": "Node", "object": obj}, sort_keys=True) + "\n")
        n += 1
    events: list[tuple[float, int, str]] = []
    for i, item in enumerate(pods):
        obj, created, deleted = item[0], item[1], item[2]
        rec: dict[str, Any] = {"kind": "PodCreated", "time": created, "object": obj}
        if len(item) > 3 and item[3]:
            rec["observed"] = item[3]
        events.append((created, 2 * i, json.dumps(rec, sort_keys=True)))
        if deleted is not None:
            meta = obj.get("metadata") or {}
            key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}"
            gone = {"kind": "PodDeleted", "time": deleted, "pod": key}
            events.append((deleted, 2 * i + 1, json.dumps(gone)))
    for _, _, text in sorted(events):
        out.write(text + "\n")
        n += 1
    return n


def _is_csv(path: str) -> bool:
    return path.lower().endswith(".csv")


def read_trace(nodes_path: str | None, pods_path: str) -> Trace:
    """Nodes and pods from openb CSV files or Schedlab JSON lines (by extension)."""
    nodes: list[Node] = []
    if nodes_path:
        if _is_csv(nodes_path):
            nodes = read_openb_nodes(nodes_path)
        else:
            nodes, extra = read_jsonl(nodes_path)
            if extra:
                raise InputError("a nodes file holds no pods", file=nodes_path)
    if _is_csv(pods_path):
        if not nodes_path:
            raise InputError("an openb pod list needs --nodes", file=pods_path)
        models = {node_gpu_model(n) for n in nodes} - {""}
        pods = read_openb_pods(pods_path, models)
    else:
        more, pods = read_jsonl(pods_path)
        nodes = nodes + more
    if not nodes:
        raise InputError("the trace has no nodes", file=nodes_path or pods_path)
    names = [n.name for n in nodes]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise InputError(f"duplicate node {dup!r}", file=nodes_path or pods_path)
    src = os.fspath(pods_path)
    return Trace(nodes, pods, src)
