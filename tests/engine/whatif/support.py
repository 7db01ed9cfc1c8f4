"""Run the engine with what-if on objects, and apply a reported fix to them."""

from __future__ import annotations

import copy
from typing import Any

from scheduler_engine.cluster import build_cluster
from scheduler_engine.simulate import simulate
from scheduler_engine.whatif.patch import apply_patch


def _key(obj: dict[str, Any]) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace') or 'default'}/{meta['name']}"


def explained(objs: list[dict[str, Any]], pod: str) -> dict[str, Any]:
    doc = simulate(build_cluster(copy.deepcopy(objs)), explain=True, whatif=True).to_dict()
    return next(r for r in doc["results"] if r["pod"] == pod)


def applied(objs: list[dict[str, Any]], pod: str, fix: dict[str, Any]) -> list[dict[str, Any]]:
    """The objects as they would be with the fix made: pod patched, victims gone, node added."""
    gone = {e["pod"] for e in fix.get("evict", ())}
    out = []
    for o in objs:
        if o.get("kind") == "Pod" and _key(o) in gone:
            continue
        if o.get("kind") == "Pod" and _key(o) == pod and fix["kind"] != "node":
            o = apply_patch(o, fix["patch"])
        out.append(o)
    if fix["kind"] == "node":
        out.append(fix["patch"])
    return out


def status_after(objs: list[dict[str, Any]], pod: str, fix: dict[str, Any]) -> dict[str, Any]:
    doc = simulate(build_cluster(applied(objs, pod, fix))).to_dict()
    return next(r for r in doc["results"] if r["pod"] == pod)


def by_kind(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["kind"]: f for f in result["fixes"]}
